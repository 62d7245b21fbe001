# dockerrelay.py PATH REAL GID: a Docker socket at PATH (group GID,
# mode 0660) that relays each connection to the real socket REAL, both
# ways, for the tests that cut or move the daemon under orchd
# (regress/e2e/docker.sh, swarm.sh).
import os, socket, sys, threading, time
path, real, gid = sys.argv[1], sys.argv[2], int(sys.argv[3])
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
    u = socket.socket(socket.AF_UNIX)
    u.connect(real)
    for a, b in ((c, u), (u, c)):
        threading.Thread(target=pipe, args=(a, b), daemon=True).start()
