#!/usr/bin/env python3
# A forward-auth service for gate.sh and attack_gate.sh, speaking
# oauth2-proxy's protocol on /oauth2/auth:
#
#	gateauth.py PORT MODE LOG
#
# MODE ok: a Cookie "session=good" gets 202 with X-Auth-Request-User
#	and X-Auth-Request-Email; "session=login" a 302 to the login page
#	(Location, Set-Cookie); anything else 401 with WWW-Authenticate
#	and a body.
# MODE hang: takes the connection and never answers.
# MODE error: 500 to everything.
# Each request's X-Forwarded-* and Cookie are appended to LOG, a line
# each, and the count of requests is in LOG.count.
import socketserver
import sys
import threading
import time

PORT = int(sys.argv[1])
MODE = sys.argv[2]
LOG = sys.argv[3]
lock = threading.Lock()
count = 0


def answer(status, fields, body=b""):
    head = "HTTP/1.1 %s\r\n" % status
    for k, v in fields:
        head += "%s: %s\r\n" % (k, v)
    head += "Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body)
    return head.encode() + body


class Handler(socketserver.StreamRequestHandler):
    def handle(self):
        global count
        self.request.settimeout(30)
        lines = []
        while True:
            line = self.rfile.readline(8192)
            if not line or line in (b"\r\n", b"\n"):
                break
            lines.append(line.decode("latin-1").rstrip("\r\n"))
        if not lines:
            return
        fields = {}
        for line in lines[1:]:
            k, _, v = line.partition(":")
            fields[k.strip().lower()] = v.strip()
        with lock:
            count += 1
            with open(LOG, "a") as f:
                f.write("%s %s\n" % (lines[0], " ".join(
                    "%s=%s" % (k, fields[k]) for k in sorted(fields)
                    if k.startswith("x-forwarded-") or k in
                    ("cookie", "authorization", "host"))))
            with open(LOG + ".count", "w") as f:
                f.write("%d\n" % count)
        if MODE == "hang":
            time.sleep(60)
            return
        if MODE == "error":
            self.wfile.write(answer("500 Internal Server Error", []))
            return
        cookie = fields.get("cookie", "")
        if not lines[0].startswith("GET /oauth2/auth "):
            self.wfile.write(answer("404 Not Found", []))
        elif "session=good" in cookie:
            self.wfile.write(answer("202 Accepted", [
                ("X-Auth-Request-User", "alice"),
                ("X-Auth-Request-Email", "alice@example.com"),
                ("X-Other", "not copied")]))
        elif "session=login" in cookie:
            self.wfile.write(answer("302 Found", [
                ("Location", "https://login.example/oauth2/start?rd=%s" %
                 fields.get("x-forwarded-uri", "/")),
                ("Set-Cookie", "csrf=abc; Path=/; HttpOnly")]))
        else:
            self.wfile.write(answer("401 Unauthorized", [
                ("WWW-Authenticate", 'Bearer realm="sso"'),
                ("Content-Type", "text/html")],
                b"<a href=/oauth2/start>sign in</a>\n"))


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


Server(("127.0.0.1", PORT), Handler).serve_forever()
