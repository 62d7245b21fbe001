# dockerrelay.py PATH REAL GID [SLOW]: a Docker socket at PATH (group
# GID, mode 0660) that relays each connection to the real socket REAL,
# both ways, for the tests that cut or move the daemon under orchd
# (regress/e2e/docker.sh, swarm.sh).  While the file SLOW exists, a new
# connection waits as many seconds as it says before it is relayed: a
# daemon slow to answer (checking.sh).
import os, socket, sys, threading, time
path, real, gid = sys.argv[1], sys.argv[2], int(sys.argv[3])
slow = sys.argv[4] if len(sys.argv) > 4 else None
def pipe(a, b):
    try:
        while True:
            d = a.recv(65536)
            if not d:
                break
            b.sendall(d)
    except OSError:
        pass
    try:
        b.shutdown(socket.SHUT_WR)
    except OSError:
        pass
def relay(c):
    try:
        with open(slow) as f:
            time.sleep(min(float(f.read() or 0), 30))
    except (TypeError, OSError, ValueError):
        pass
    u = socket.socket(socket.AF_UNIX)
    u.connect(real)
    for a, b in ((c, u), (u, c)):
        threading.Thread(target=pipe, args=(a, b), daemon=True).start()
l = socket.socket(socket.AF_UNIX)
l.bind(path + ".new")
os.chown(path + ".new", 0, gid)
os.chmod(path + ".new", 0o660)
os.rename(path + ".new", path)
l.listen(16)
l.settimeout(1)
end = time.monotonic() + 120
while time.monotonic() < end:
    try:
        c, _ = l.accept()
    except socket.timeout:
        continue
    threading.Thread(target=relay, args=(c,), daemon=True).start()
