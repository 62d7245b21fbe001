#!/usr/bin/env python3
# A webhook receiver for regress/e2e/notify.sh and attack_notify.sh: it
# checks each POST's signature as a real receiver would (HMAC-SHA256 of
# "TIMESTAMP.BODY" with the key file's key, the timestamp within five
# minutes) and appends one line a request to LOG:
#	ok EVENT WORKLOAD TRY	a good signature (TRY: the request's number)
#	badsig ...		a signature that does not match
#	stale ...		a timestamp too far from now
# MODE is how it answers:
#	ok		204
#	flaky N		500 to the first N requests, then 204
#	slow S		nothing for S seconds, then 204
#	huge		200 with 64 MiB of body
#	redirect URL	302 to URL
# With HOOKRECV_TLS=CERT:KEY in the environment it speaks HTTPS.
# Usage: hookrecv.py PORT KEYFILE LOG MODE [ARG]
import hashlib
import hmac
import http.server
import json
import os
import socketserver
import ssl
import sys
import time

port, keyfile, logfile, mode = (int(sys.argv[1]), sys.argv[2],
                                sys.argv[3], sys.argv[4])
arg = sys.argv[5] if len(sys.argv) > 5 else ""
key = open(keyfile, "rb").read().rstrip(b"\r\n")
count = 0


def log(line):
    with open(logfile, "a") as f:
        f.write(line + "\n")


class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *a):
        pass

    def do_POST(self):
        global count
        count += 1
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n) if n < 1 << 20 else b""
        ts = self.headers.get("X-Orchd-Timestamp", "")
        sig = self.headers.get("X-Orchd-Signature", "")
        want = "sha256=" + hmac.new(key, ts.encode() + b"." + body,
                                    hashlib.sha256).hexdigest()
        try:
            ev = json.loads(body)
        except ValueError:
            ev = {}
        what = "%s %s %d" % (ev.get("event", "-"),
                             ev.get("workload") or "-", count)
        if not hmac.compare_digest(want, sig):
            log("badsig " + what)
        elif not ts.isdigit() or abs(time.time() - int(ts)) > 300:
            log("stale " + what)
        else:
            log("ok " + what)
            with open(logfile + ".json", "a") as f:
                f.write(body.decode() + "\n")
        if mode == "flaky" and count <= int(arg):
            self.send_response(500)
            self.end_headers()
            return
        if mode == "slow":
            time.sleep(float(arg))
        if mode == "huge":
            self.send_response(200)
            self.end_headers()
            chunk = b"x" * 65536
            try:
                for _ in range(1024):
                    self.wfile.write(chunk)
            except OSError:
                log("huge: cut off")
            return
        if mode == "redirect":
            self.send_response(302)
            self.send_header("Location", arg)
            self.end_headers()
            return
        self.send_response(204)
        self.end_headers()


class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


srv = S(("127.0.0.1", port), H)
if os.environ.get("HOOKRECV_TLS"):
    cert, tlskey = os.environ["HOOKRECV_TLS"].split(":")
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, tlskey)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
srv.serve_forever()
