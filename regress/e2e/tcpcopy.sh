#!/bin/sh
# TCP listeners' two ways of moving bytes (gatewayd/tcp.c): a small
# message is read into a buffer shared by every connection and written
# out at once, what the other side does not take at once waits in a
# pipe, and a bulk stream is spliced.  Through a "listen on" of a
# keep-warm echo workload, byte for byte: 2,000 round trips of sizes
# around each boundary (1 byte, the buffer's page, a pipe's 64 KiB),
# 20 connections at once each with bytes of its own (none gets
# another's), a client that sends 8 MiB before reading a byte (the echo
# backs up: partial writes, a full pipe, a blocked source) and one that
# reads a byte at a time, its end then still passed on.  The gateway's
# memory stays flat, its byte counters are exact, it never crashes.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
command -v python3 >/dev/null 2>&1 || { skip "no python3"; e2e_done; exit 0; }

ports GW P_ECHO L_ECHO API
testhttp_bin
: >"$T/echo.starts"
chmod 0666 "$T/echo.starts"
mkdir -p "$T/log"
{
	conf_head
	cat <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api metrics public
workload "tc-echo" {
	command "$T/bin/testhttp echo $P_ECHO $T/echo.starts"
	port $P_ECHO
	listen on 127.0.0.1 port $L_ECHO
	keep warm
}
CONF
} >"$T/orchd.conf"
start_orchd_or_exit
check "tc-echo runs" wait_for 20 sh -c \
    "\"$ORCHCTL\" -s \"$SOCK\" show workloads | grep -q '^tc-echo  *running'"

cat >"$T/client.py" <<'PY'
import hashlib, os, socket, sys, threading, time

port = int(sys.argv[2])

def conn():
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s

def recvn(s, n):
    b = bytearray()
    while len(b) < n:
        d = s.recv(min(n - len(b), 1 << 20))
        if not d:
            raise EOFError("closed after %d of %d" % (len(b), n))
        b += d
    return bytes(b)

def rounds(tag, count, sizes, sent):
    s = conn()
    for i in range(count):
        n = sizes[i % len(sizes)]
        m = (b"%s:%d:" % (tag, i) + os.urandom(n))[:max(n, 1)]
        s.sendall(m)
        if recvn(s, len(m)) != m:
            raise ValueError("%s: round %d (%d bytes) differs" % (tag, i, n))
        sent[0] += len(m)
    s.close()

mode = sys.argv[1]
if mode == "sizes":
    sent = [0]
    k = 16384
    sizes = [1, 2, 100, 1400, 4095, 4096, 4097, 8192, k - 1, k, k + 1,
        2 * k, 65535, 65536, 65537, 200000, 7, 3000]
    rounds(b"s", 2000, sizes, sent)
    print("ok", sent[0])
elif mode == "many":
    sent, errs = [0], []
    def run(j):
        try:
            rounds(b"c%d" % j, 200, [10 + j, 5000 + j, 17000 + j], sent)
        except Exception as e:
            errs.append(str(e))
    ts = [threading.Thread(target=run, args=(j,)) for j in range(20)]
    for t in ts: t.start()
    for t in ts: t.join(120)
    print("ok" if not errs and not any(t.is_alive() for t in ts) else
        "failed " + "; ".join(errs[:3]), sent[0])
elif mode == "backlog":
    # 8 MiB sent before a byte is read: the echo's answer backs up
    data = os.urandom(8 << 20)
    s = conn()
    got = []
    def reader():
        time.sleep(2)
        got.append(recvn(s, len(data)))
    t = threading.Thread(target=reader)
    t.start()
    s.sendall(data)
    t.join(60)
    s.shutdown(socket.SHUT_WR)
    tail = s.recv(100)
    print("ok" if got and got[0] == data else "failed",
        tail.decode(errors="replace").strip())
elif mode == "trickle":
    # a reader of one byte at a time, after a burst
    data = os.urandom(300000)
    s = conn()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.sendall(data)
    s.shutdown(socket.SHUT_WR)
    b = bytearray()
    deadline = time.time() + 60
    while time.time() < deadline:
        d = s.recv(1 if len(b) < 20000 else 65536)
        if not d:
            break
        b += d
    print("ok" if bytes(b[:len(data)]) == data else "failed",
        bytes(b[len(data):]).decode(errors="replace").strip())
PY

GWPID=$(child gateway)
rss0=$(rss_kb "$GWPID")

out=$(timeout 120 python3 "$T/client.py" sizes "$L_ECHO" 2>&1)
check "2,000 round trips of 1 byte to 200 KB around 4, 16 and 64 KiB, intact" \
    [ "${out%% *}" = ok ]
sizes_bytes=${out#ok }
out=$(timeout 150 python3 "$T/client.py" many "$L_ECHO" 2>&1)
check "20 connections at once: each gets its own bytes back ($out)" \
    [ "${out%% *}" = ok ]
many_bytes=${out##* }
out=$(timeout 120 python3 "$T/client.py" backlog "$L_ECHO" 2>&1)
check "8 MiB sent before reading: all back intact, then the end" \
    [ "$out" = "ok eof after 8388608 bytes" ]
out=$(timeout 120 python3 "$T/client.py" trickle "$L_ECHO" 2>&1)
check "a reader of a byte at a time: intact, the end passed on" \
    [ "$out" = "ok eof after 300000 bytes" ]

check "the gateway lives" alive "$GWPID"
rss1=$(rss_kb "$GWPID")
check "its memory stayed flat: $rss0 KiB, then $rss1 KiB" \
    [ -n "$rss1" ] && [ $((rss1 - rss0)) -lt 4096 ]
check "one start of tc-echo" [ "$(grep -c . "$T/echo.starts")" -eq 1 ]

# every byte counted once each way (the backlog and trickle clients' too)
want=$((sizes_bytes + many_bytes + 8388608 + 300000))
metrics() {
	curl -sS -m 30 "http://127.0.0.1:$API/metrics" >"$T/metrics"
}
metric() { awk -v m="$1" 'index($0, m " ") == 1 { print $2 }' "$T/metrics"; }
check "bytes from the clients counted exactly ($want)" wait_for 10 sh -c \
    "curl -sS -m 30 'http://127.0.0.1:$API/metrics' | grep -q \
    '^orchd_tcp_received_bytes_total{workload=\"tc-echo\"} $want\$'"
metrics
tx=$(metric 'orchd_tcp_sent_bytes_total{workload="tc-echo"}')
# the echo adds "eof after N bytes" at each client's end: the two that
# read it, and those of the 21 that closed without reading it that the
# gateway passed on before the client's reset
ends=$(printf 'eof after 8388608 bytes\neof after 300000 bytes\n' | wc -c)
extra=$((tx - want - ends))
check "bytes to the clients counted exactly (the ends: $extra more)" \
    [ "$extra" -ge 0 ] && [ "$extra" -le $((21 * 40)) ]

stop_orchd
st=$STATUS
check "orchd stops cleanly (status $st)" [ "$st" -eq 0 ]
ORCHD_PID=
e2e_done
