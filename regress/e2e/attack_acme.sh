#!/bin/sh
# Attacks on certificates on demand (issue 31), against the real pebble:
# handshakes for hosts that route to no workload never cause an order;
# 50 handshakes for made-up hosts under a workload's pattern cause no
# more orders than "issuances per hour"; with pebble stopped, a renewal
# fails, is reported (orchctl, /metrics), backs off (a second handshake
# for a failed host orders nothing), and the certificates already issued
# are still served.  What acmed sends the parent (a forged, oversized or
# unterminated CERT or STATUS) is fed to the parent's checks by
# regress/unit/test_acme.c and regress/fuzz/fuzz_parent_acme.c.
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
e2e_done
