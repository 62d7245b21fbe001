#!/bin/sh
# Attacks on certificates on demand (issue 31), against the real pebble:
# handshakes for hosts that route to no workload never cause an order;
# 50 handshakes for made-up hosts under a workload's pattern cause no
# more orders than "issuances per hour"; with pebble stopped, a renewal
# fails, is reported (orchctl, /metrics), backs off (a second handshake
# for a failed host orders nothing), and the certificates already issued
# are still served.  What acmed sends the parent (a forged, oversized or
# unterminated CERT, STATUS or CHALLENGE) is replayed by an acmed that
# is a script, as a compromised one would send it: each is refused and
# logged, nothing is stored or shown, and orchd goes on; the same checks
# are fed by regress/unit/test_acme.c and regress/fuzz/fuzz_parent_acme.c.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pebble.subr"
e2e_init "$1"
trap 'acme_cleanup; e2e_cleanup' EXIT
acme_need
ports API
acme_start

CAP=3
acme_conf "issuances per hour $CAP" >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
api listen on 127.0.0.1 port $API
api metrics public
CONF
start_orchd_or_exit

c=$(https app.s8acme.test)
check "a workload's host gets its certificate ($c)" [ "$c" = 200 ]
n0=$(orders)
check "... one order ($n0)" [ "$n0" -eq 1 ]

# -- hosts that route nowhere: not one order
i=0
while [ $i -lt 20 ]; do
	https "nowhere$i.s8acme.test" -m 5 >/dev/null
	https "x$i.other.test" -m 5 >/dev/null
	i=$((i + 1))
done
check "40 handshakes for hosts no workload answers: no order ($(orders))" \
    [ "$(orders)" -eq "$n0" ]
check "... none of them in orchctl show certificates" \
    sh -c "! '$ORCHCTL' -s '$SOCK' show certificates | \
    grep -q -e nowhere -e other.test"

# -- the per-hour cap, under 50 handshakes for made-up hosts
# (a wait for these alone: orchd is a job of this shell too)
i=0
pids=
while [ $i -lt 50 ]; do
	https "made$i.pr.s8acme.test" -m 20 >/dev/null &
	pids="$pids $!"
	i=$((i + 1))
	[ $((i % 10)) -ne 0 ] || { wait $pids; pids=; }
done
n1=$(orders)
check "50 handshakes for made-up hosts: at most $CAP orders in the hour ($((n1 - n0)) more, $n1 in all)" \
    [ "$n1" -le "$CAP" ]
capped=$("$ORCHCTL" -s "$SOCK" show certificates | grep -c ' capped ')
check "... the others are shown capped ($capped)" [ "$capped" -ge 40 ]
check "... and orchd is still up" alive "$ORCHD_PID"
c=$(https app.s8acme.test)
check "... serving the certificate it had ($c)" [ "$c" = 200 ]

# -- pebble stopped: the failure reported, backed off, the old kept
stop_orchd
rm -f "$T/orchd.log"
acme_conf "issuances per hour 100" >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
api listen on 127.0.0.1 port $API
api metrics public
CONF
start_orchd_or_exit
pebble_stop
s1=$(serial app.s8acme.test)
check "pebble stopped: orchctl renew is taken" \
    quiet "$ORCHCTL" -s "$SOCK" renew app.s8acme.test
failed() { [ "$(certstate app.s8acme.test)" = failed ]; }
check "... the renewal fails and is shown failed" wait_for 40 failed
line=$("$ORCHCTL" -s "$SOCK" show certificates | grep '^app.s8acme.test ')
echo "# $line"
check "... with its error" sh -c "echo '$line' | grep -q 'refused'"
check "... and a retry a minute away, not at once" \
    sh -c "echo '$line' | grep -Eq ' (1m0s|[2-5][0-9]s) '"
c=$(https app.s8acme.test)
check "... the certificate issued before is still served ($c)" \
    [ "$c" = 200 ] && [ "$(serial app.s8acme.test)" = "$s1" ]
curl -s -m 10 -o "$T/metrics" "http://127.0.0.1:$API/metrics"
check "... /metrics counts the failure" \
    grep -q '^orchd_acme_failures_total{host="app.s8acme.test"} 1$' \
    "$T/metrics"
c=$(https fresh.pr.s8acme.test -m 40)
check "a new host while pebble is down: no certificate ($c)" \
    [ "$c" != 200 ]
c=$(https fresh.pr.s8acme.test -m 10)
check "... a second handshake at once orders nothing: backing off" \
    [ "$(grep -c 'fresh.pr.s8acme.test: ordering' "$T/orchd.log")" -eq 1 ]

stop_orchd
check "orchd stops cleanly ($STATUS)" [ "$STATUS" = 0 ]

# -- a compromised acmed: orchd's programs copied, acmed a script that
# says it is ready, then sends forged messages on its channel
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
[ -n "$PY" ] || skip "no python3"
mkdir -p "$T/fake"
chmod 0755 "$T/fake"
for p in orchd confd spawnerd stored gatewayd reaperd runtimed; do
	cp "$BUILD/$p" "$T/fake/$p"
done
VERSION=$(sed -n 's/^#define ORCHD_IMSG_VERSION[[:space:]]*//p' \
    "$(dirname "$0")/../../common/msg.h")
rm -rf "$T/orchd-certs"
cat >"$T/fake/acmed" <<FAKE
#!$PY
import os, struct, time
def msg(kind, body):
    os.write(3, struct.pack("=IIHHII", kind, 20 + len(body), 0, 0, 0,
        os.getpid()) + body)
def name(s, n):
    return s.encode() + b"\\0" * (n - len(s))
CERT = b"-----BEGIN CERTIFICATE-----\\nMIIB\\n-----END CERTIFICATE-----\\n"
KEY = b"-----BEGIN PRIVATE KEY-----\\nMIIB\\n-----END PRIVATE KEY-----\\n"
LATER = int(time.time()) + 86400
def cert(host, chain, key, clen=None, klen=None):
    return name(host, 256) + struct.pack("=qII", LATER,
        len(chain) if clen is None else clen,
        len(key) if klen is None else klen) + chain + key
def status(host, issuer, error):
    return host + name(issuer, 128) + error + struct.pack("=qqII", 0, 0, 3, 1)
msg(201, struct.pack("=I", $VERSION))		# IMSG_PROC_READY
time.sleep(2)
# IMSG_ACME_CERT: a host no workload answers, lengths that lie, an
# oversized chain, a key with a NUL
msg(1306, cert("evil.s8acme.test", CERT, KEY))
msg(1306, cert("app.s8acme.test", CERT, KEY, clen=len(CERT) + 9))
msg(1306, cert("app.s8acme.test", CERT + b"A" * 100000, KEY))
msg(1306, cert("app.s8acme.test", CERT, KEY[:20] + b"\\0" + KEY[21:]))
# IMSG_ACME_STATUS: unterminated, a terminal escape, a name of 256 bytes
msg(1308, status(name("app.s8acme.test", 256), "x", b"x" * 256))
msg(1308, status(name("app.s8acme.test", 256), "x",
    name("\\033[2Jforged", 256)))
msg(1308, status(b"a" * 256, "x", name("y", 256)))
# IMSG_ACME_CHALLENGE: a token that is a path
msg(1304, name("app.s8acme.test", 256) + struct.pack("=IIII", 1, 0, 0, 0)
    + name("../../etc", 128) + name("../../etc.thumb", 256))
open("$T/fake.done", "w").write("sent")
time.sleep(60)
FAKE
chmod 0755 "$T/fake/acmed"
rm -f "$T/orchd.log"
# not start_orchd: show summary would wait for the script's answer
"$T/fake/orchd" -d -f "$T/orchd.conf" >>"$T/orchd.log" 2>&1 &
ORCHD_PID=$!
check "the forged messages were sent" wait_for 20 test -f "$T/fake.done"
sleep 1
check "... each refused and logged (8)" \
    [ "$(grep -c 'from acmed refused' "$T/orchd.log")" -eq 8 ]
check "... orchd goes on" alive "$ORCHD_PID"
check "... no certificate stored" \
    sh -c "[ -z \"\$(ls -A '$T/orchd-certs')\" ]"
check "... none shown by orchctl show certificates" \
    sh -c "! '$ORCHCTL' -s '$SOCK' show certificates | \
    grep -q -e s8acme -e forged -e aaaa"
c=$(https app.s8acme.test -m 5)
check "... and none served ($c)" [ "$c" != 200 ]
stop_orchd
e2e_done
