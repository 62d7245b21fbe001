#!/bin/sh
# Attacks on the gateway's side of ACME (issue 31), against a live orchd
# with a "tls acme" listener:
#   1. path tricks on the challenge path (dot segments, percent-encoded
#      and double-encoded bytes, any case, doubled slashes): each answered
#      404 by orchd, never proxied, never a wake;
#   2. a ClientHello for a host that routes nowhere: closed at once, and
#      no certificate asked (orchd_gateway_tls_hellos_total in /metrics,
#      and no "asked for one" in the log);
#   3. 50 handshakes at once for made-up hosts: all closed at once, none
#      asks for a certificate, the gateway's descriptors come back;
#   4. bytes that are no ClientHello, a record too long, a hello cut
#      short then silent, a hello a byte a second (slowloris): each
#      closed, the silent and the slow ones within the bound (10 s),
#      and the gateway serves on;
#   5. handshakes for hosts that do route (a wildcard), while the ACME
#      server never answers (a tarpit): 80 for one host, 64 held and the
#      rest closed at once, one certificate asked; 300 hosts, at most
#      256 awaited; a named host served meanwhile; all held ones closed
#      cleanly after 30 s, and the descriptors come back.
# On a build without "tls acme" the listener falls back to a keypair of
# its own, so that the same attacks run there and show what they do.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
command -v openssl >/dev/null || skip "no openssl"
command -v python3 >/dev/null || skip "no python3"

ports TPORT HPORT API APORT TARPIT
mkdir -p "$T/log" "$T/pki"
testhttp_bin
P=$T/pki
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$P/a.key" -out "$P/a.crt" -days 2 -subj "/CN=a.test" \
    -addext "subjectAltName=DNS:a.test" 2>/dev/null
chmod 0600 "$P/a.key"
KEY=$(openssl rand -hex 16)
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"

write_conf() {	# write_conf TLS-OPTION [ACME-BLOCK]
	conf_head >"$T/orchd.conf"
	cat >>"$T/orchd.conf" <<CONF
${2:-}
listen on 127.0.0.1 port $TPORT $1
listen on 127.0.0.1 port $HPORT
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
api metrics public

workload "a" {
	host "a.test"
	host "*.pr.test"
	command "$T/bin/testhttp serve $APORT $T/a.starts $T/a.reqs"
	port $APORT
	tls keypair "$P/a.crt" "$P/a.key"
}
CONF
}
# the workload's own records, which its uid must be able to write
: >"$T/a.starts"
: >"$T/a.reqs"
chmod 0666 "$T/a.starts" "$T/a.reqs"
# an ACME server that accepts and never answers
python3 - "$TARPIT" >/dev/null 2>&1 <<'PY' &
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(64)
held = []
end = time.time() + 300
s.settimeout(1)
while time.time() < end:
    try:
        held.append(s.accept()[0])
    except socket.timeout:
        pass
PY
TARPID=$!
trap 'kill $TARPID 2>/dev/null; e2e_cleanup' EXIT
ACME_BLOCK="acme {
	directory \"https://127.0.0.1:$TARPIT/dir\"
}"
acme=1
write_conf "tls acme" "$ACME_BLOCK"
if "$ORCHD" -n -f "$T/orchd.conf" >"$T/n.out" 2>&1; then
	ok "tls acme and an acme block are accepted"
else
	fail "tls acme and an acme block are accepted (this build has none)"
	acme=0
	write_conf "tls certificate \"$P/a.crt\" key \"$P/a.key\""
fi
start_orchd_or_exit

metric() {	# metric NAME-AND-LABELS: its value in a fresh /metrics
	curl -sS -m 10 -o "$T/metrics" "http://127.0.0.1:$API/metrics"
	awk -v m="$1" 'index($0, m " ") == 1 { print $2 }' "$T/metrics"
}
asked() { metric 'orchd_gateway_tls_hellos_total{result="certificate_asked"}'; }
noroute() { metric 'orchd_gateway_tls_hellos_total{result="no_route"}'; }
malformed() { metric 'orchd_gateway_tls_hellos_total{result="malformed"}'; }

# -- 1. path tricks: orchd's 404, no request reaches the workload
code() {	# code PATH: the status for a.test on the cleartext listener
	printf 'GET %s HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n' \
	    "$1" | "$T/bin/testhttp" raw "$HPORT" 5 | head -1 |
	    awk '{ print $2 }'
}
for p in '/.well-known/acme-challenge/../x' \
    '/.well-known/acme-challenge/%2e%2e/x' \
    '/.well-known/acme-challenge/%2E%2E%2Fx' \
    '/.well-known/%61cme-challenge/tok' \
    '/.well-known/acme%252dchallenge/tok' \
    '//.well-known//acme-challenge/tok' \
    '/.WELL-KNOWN/ACME-CHALLENGE/tok' \
    '/.well-known/acme-challenge/tok?x=1' \
    '/x/../.well-known/acme-challenge/tok' \
    '/.well-known/acme-challenge/' \
    '/.well-known/acme-challenge'; do
	c=$(code "$p")
	check "1: $p: 404 of orchd's ($c)" [ "$c" = 404 ]
done
check "1: none of them reached the workload, nor woke it" \
    sh -c "[ ! -s '$T/a.reqs' ] && [ ! -s '$T/a.starts' ]"

# a python client: ClientHellos, whole, cut or slow (hello.py)
cat >"$T/hello.py" <<'PY'
import socket, ssl, sys, threading, time
port, mode, names = int(sys.argv[1]), sys.argv[2], sys.argv[3:]

def handshake(name, out, i):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    t0 = time.time()
    s = socket.create_connection(("127.0.0.1", port), timeout=40)
    try:
        with ctx.wrap_socket(s, server_hostname=name) as t:
            out[i] = "done %.1f" % (time.time() - t0)
    except (OSError, ssl.SSLError):
        out[i] = "closed %.1f" % (time.time() - t0)

def hello_bytes(name):
    # the hello python's ssl would send, caught through a memory BIO
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    i, o = ssl.MemoryBIO(), ssl.MemoryBIO()
    t = ctx.wrap_bio(i, o, server_hostname=name)
    try:
        t.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return o.read()

def raw(data, every=None, limit=40):
    t0 = time.time()
    s = socket.create_connection(("127.0.0.1", port), timeout=limit)
    try:
        if every is None:
            s.sendall(data)
        else:
            for b in data:
                s.sendall(bytes([b]))
                time.sleep(every)
        while s.recv(4096):
            pass
        return "closed %.1f" % (time.time() - t0)
    except socket.timeout:
        return "open %.1f" % (time.time() - t0)
    except OSError:
        return "closed %.1f" % (time.time() - t0)

if mode == "shake":
    out = [None] * len(names)
    th = [threading.Thread(target=handshake, args=(n, out, i))
          for i, n in enumerate(names)]
    for t in th:
        t.start()
    for t in th:
        t.join()
    print("\n".join(out))
elif mode == "garbage":
    print(raw(b"GET / HTTP/1.1\r\nHost: a.test\r\n\r\n"))
elif mode == "toolong":
    print(raw(b"\x16\x03\x01\x40\x01" + b"\x01" * 100))
elif mode == "cut":
    print(raw(hello_bytes(names[0])[:40]))
elif mode == "slow":
    print(raw(hello_bytes(names[0]), every=1.0))
PY
hello() { timeout 60 python3 "$T/hello.py" "$TPORT" "$@"; }
secs() { awk '{ print int($2) }'; }

r=$(hello shake a.test)
check "the named host is served over TLS ($r)" \
    sh -c "echo '$r' | grep -q '^done'"
a0=$(asked)
n0=$(noroute)

# -- 2. a host that routes nowhere
r=$(hello shake nowhere.test)
check "2: a ClientHello for nowhere.test is closed at once ($r)" \
    sh -c "echo '$r' | grep -q '^closed' && [ $(echo "$r" | secs) -le 2 ]"
a1=$(asked)
check "2: no certificate asked (certificate_asked ${a1:-none}, was ${a0:-none})" \
    sh -c "[ -n '$a0' ] && [ '$a1' = '$a0' ]"
check "2: counted as no_route ($(noroute))" [ "${n0:-0}" -lt "$(noroute)" ]
check "2: and nothing asked in the log" \
    sh -c "! grep -q 'asked for one' '$T/orchd.log'"

# -- 3. 50 handshakes at once for made-up hosts
gw=$(child gateway)
f0=$(fds "$gw")
names=$(seq 1 50 | sed 's/^/x/; s/$/.nowhere.test/')
t0=$(now_ms)
hello shake $names >"$T/fifty.out"
t1=$(now_ms)
check "3: 50 handshakes for made-up hosts all closed ($(grep -c '^closed' "$T/fifty.out") of 50)" \
    [ "$(grep -c '^closed' "$T/fifty.out")" -eq 50 ]
check "3: within 5 s ($((t1 - t0)) ms)" [ $((t1 - t0)) -lt 5000 ]
a1=$(asked)
check "3: none asked for a certificate (${a1:-none})" \
    sh -c "[ -n '$a0' ] && [ '$a1' = '$a0' ]"
f1=$(fds "$gw")
check "3: the gateway's descriptors came back ($f0, then $f1)" \
    [ "$f1" -le $((f0 + 2)) ]

# -- 4. no ClientHello, too long, cut short, slowloris
m0=$(malformed)
r=$(hello garbage)
check "4: HTTP on the TLS port is closed at once ($r)" \
    sh -c "echo '$r' | grep -q '^closed' && [ $(echo "$r" | secs) -le 2 ]"
r=$(hello toolong)
check "4: a record longer than TLS allows is closed at once ($r)" \
    sh -c "echo '$r' | grep -q '^closed' && [ $(echo "$r" | secs) -le 2 ]"
check "4: both counted as malformed ($(malformed), was ${m0:-none})" \
    [ "$(malformed)" -ge $((${m0:-0} + 2)) ]
r=$(hello cut a.test)
check "4: a hello cut short then silent is closed within 12 s ($r)" \
    sh -c "echo '$r' | grep -q '^closed' && [ $(echo "$r" | secs) -le 12 ]"
r=$(hello slow a.test)
check "4: a hello a byte a second is closed within 12 s ($r)" \
    sh -c "echo '$r' | grep -q '^closed' && [ $(echo "$r" | secs) -le 12 ]"

# -- 5. routed hosts, an ACME server that never answers
h0=$(metric 'orchd_gateway_tls_hellos_total{result="held"}')
a0=$(asked)
f0=$(fds "$gw")
t0=$(now_ms)
hello shake $(seq 1 80 | sed 's/.*/one.pr.test/') >"$T/one.out" &
one=$!
hello shake $(seq 1 300 | sed 's/^/h/; s/$/.pr.test/') >"$T/many.out" &
many=$!
sleep 3
r=$(hello shake a.test)
check "5: a named host is served while routed ones wait ($r)" \
    sh -c "echo '$r' | grep -q '^done'"
f1=$(fds "$gw")
h1=$(metric 'orchd_gateway_tls_hellos_total{result="held"}')
a1=$(asked)
check "5: at most 64 + 256 handshakes held (${h1:-none}, was ${h0:-none})" \
    sh -c "[ $acme = 1 ] && [ $((${h1:-0} - ${h0:-0})) -le 320 ] &&
    [ $((${h1:-0} - ${h0:-0})) -ge 64 ]"
check "5: at most 257 certificates asked (${a1:-none}, was ${a0:-none})" \
    sh -c "[ $acme = 1 ] && [ $((${a1:-0} - ${a0:-0})) -ge 1 ] &&
    [ $((${a1:-0} - ${a0:-0})) -le 257 ]"
check "5: the gateway's descriptors stay bounded ($f0, then $f1)" \
    [ "$f1" -le $((f0 + 330)) ]
wait "$one" "$many"
t1=$(now_ms)
quick=$(awk '$1 == "closed" && $2 <= 2' "$T/one.out" | wc -l)
check "5: of 80 for one host, 16 or more closed at once ($quick)" \
    [ "$quick" -ge 16 ]
check "5: none of the 380 was served ($(grep -c '^done' "$T/one.out" "$T/many.out" | tr '\n' ' '))" \
    sh -c "! grep -q '^done' '$T/one.out' '$T/many.out' &&
    [ \$(cat '$T/one.out' '$T/many.out' | grep -c '^closed') -eq 380 ]"
check "5: the held ones ended within 40 s ($((t1 - t0)) ms)" \
    [ $((t1 - t0)) -lt 40000 ]
f2=$(fds "$gw")
check "5: the descriptors came back ($f0, then $f2)" [ "$f2" -le $((f0 + 2)) ]

r=$(hello shake a.test)
check "the same gateway serves on ($r)" \
    sh -c "[ '$(child gateway)' = '$gw' ] && echo '$r' | grep -q '^done'"
code=$(code /)
check "and a.test's own paths are proxied ($code)" [ "$code" = 200 ]
check "orchd is still running" alive "$ORCHD_PID"
check "no sanitizer report" sh -c "! grep -q 'Sanitizer' '$T/orchd.log'"
e2e_done
