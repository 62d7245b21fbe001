#!/bin/sh
# Certificates on demand (issue 31) with the real pebble: the first
# HTTPS request for a workload's host waits for its certificate, which
# acmed orders (http-01 answered by the gateway's plain listener) and
# the parent stores root's, 0600; curl trusts it with pebble's root.  A
# restart serves the same certificate without a new order, with the same
# account key; orchctl renew swaps it while a long download goes on;
# orchctl show certificates and /metrics tell it.  The directory is
# named "localhost", resolved by acmed in its chroot.  Then, with
# pebble's certificates valid 90 seconds, a renewal at two thirds of
# that, by itself, and again after a restart for the stored one; and an
# account with external account binding.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pebble.subr"
e2e_init "$1"
trap 'acme_cleanup; e2e_cleanup' EXIT
acme_need
ports API
acme_start

ACME_HOST=localhost acme_conf "issuances per hour 10" >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
api listen on 127.0.0.1 port $API
api metrics public
CONF
check "orchd -n takes the acme block" "$ORCHD" -n -f "$T/orchd.conf"
start_orchd_or_exit

ACMEDIR=$T/orchd-acme
CERTS=$T/orchd-certs
check "acmed runs as orchd: acme" quiet child acme
pid=$(child acme)
check "... as the daemon user, not root" \
    [ "$(stat -c %U "/proc/$pid" 2>/dev/null)" = _orchd ]
check "... chrooted to its own directory" \
    [ "$(readlink "/proc/$pid/root")" = "$ACMEDIR/root" ]
check "... with a seccomp filter" \
    grep -q '^Seccomp:[[:space:]]*2' "/proc/$pid/status"
check "the account key is the daemon user's, mode 0600" \
    [ "$(stat -c '%U %a' "$ACMEDIR/root/account/account.key")" = \
    "_orchd 600" ]
key1=$(md5sum <"$ACMEDIR/root/account/account.key")

# -- the first request waits for the certificate
n0=$(orders)
c=$(https app.s8acme.test)
check "the first HTTPS request is answered, trusted with pebble's root ($c)" \
    [ "$c" = 200 ]
check "... after one order ($(orders))" [ "$(orders)" -eq $((n0 + 1)) ]
check "... stored root's, 0600, outside acmed's chroot" \
    [ "$(stat -c '%U %a' "$CERTS/app.s8acme.test.crt" 2>/dev/null)" = \
    "root 600" ] && [ "$(stat -c '%U %a' "$CERTS/app.s8acme.test.key" \
    2>/dev/null)" = "root 600" ]
check "... validated by http-01 on the plain listener" \
    grep -q "validate w/ HTTP: http://app.s8acme.test:$HPORT/.well-known/" \
    "$T/pebble.log"
c=$(https app.s8acme.test)
check "a second request is answered at once ($c), no new order" \
    [ "$c" = 200 ] && [ "$(orders)" -eq $((n0 + 1)) ]
check "orchctl show certificates: valid, pebble's issuer" \
    sh -c "'$ORCHCTL' -s '$SOCK' show certificates | grep -q \
    '^app.s8acme.test  *valid  *Pebble Intermediate'"
check "orchctl -j show certificates: the host, valid" \
    sh -c "'$ORCHCTL' -s '$SOCK' -j show certificates | grep -q '\"valid\"'"

curl -s -m 10 -o "$T/metrics" "http://127.0.0.1:$API/metrics"
check "/metrics: orchd_acme_certificate_expiry_seconds of the host" \
    grep -q '^orchd_acme_certificate_expiry_seconds{host="app.s8acme.test"} [0-9]' \
    "$T/metrics"
check "/metrics: orchd_acme_failures_total of the host, 0" \
    grep -q '^orchd_acme_failures_total{host="app.s8acme.test"} 0$' \
    "$T/metrics"
if command -v promtool >/dev/null; then
	check "promtool check metrics" sh -c "promtool check metrics \
	    <'$T/metrics'"
fi

# -- a restart serves the same certificate, orders nothing; the key
# given back to root, as systemd's StateDirectory= does, is given back
s1=$(serial app.s8acme.test)
n1=$(orders)
stop_orchd
chown root:root "$ACMEDIR/root/account/account.key"
start_orchd_or_exit
check "the account key is the daemon user's again" \
    [ "$(stat -c %U "$ACMEDIR/root/account/account.key")" = _orchd ]
c=$(https app.s8acme.test)
check "after a restart the host is served at once ($c)" [ "$c" = 200 ]
check "... with the same certificate" [ "$(serial app.s8acme.test)" = "$s1" ]
check "... and no new order ($(orders))" [ "$(orders)" -eq "$n1" ]
check "... and the same account key" \
    [ "$(md5sum <"$ACMEDIR/root/account/account.key")" = "$key1" ]

# -- orchctl renew while a long download goes on
curl -s -m 60 --cacert "$P/root.pem" --limit-rate 200k \
    --resolve "app.s8acme.test:$SPORT:127.0.0.1" -o "$T/big" \
    -w '%{http_code}' "https://app.s8acme.test:$SPORT/big?4000000" \
    >"$T/big.code" 2>/dev/null &
dl=$!
sleep 1
check "orchctl renew app.s8acme.test" \
    "$ORCHCTL" -s "$SOCK" renew app.s8acme.test
renewed() { [ "$(serial app.s8acme.test)" != "$s1" ]; }
check "... a new certificate is served to new connections" \
    wait_for 30 renewed
check "... after one more order" [ "$(orders)" -eq $((n1 + 1)) ]
wait "$dl"
check "... while the download begun before went on to its end" \
    [ "$(cat "$T/big.code")" = 200 ] && \
    [ "$(stat -c %s "$T/big" 2>/dev/null)" = 4000000 ]
check "orchctl renew of a host no workload answers is refused" \
    sh -c "! '$ORCHCTL' -s '$SOCK' renew nowhere.s8acme.test"

# -- without a plain listener: tls-alpn-01 on the "tls acme" one
grep -v "port $HPORT\$" "$T/orchd.conf" >"$T/orchd.conf.new"
mv "$T/orchd.conf.new" "$T/orchd.conf"
check "a reload leaves the TLS listener alone" \
    "$ORCHCTL" -s "$SOCK" reload
n2=$(orders)
c=$(https alpn.pr.s8acme.test)
check "a host of the pattern gets its certificate ($c)" [ "$c" = 200 ]
check "... validated by tls-alpn-01 on the TLS listener" \
    grep -q "alpn.pr.s8acme.test: tls-alpn-01 challenge" "$T/orchd.log"
check "... after one order" [ "$(orders)" -eq $((n2 + 1)) ]

stop_orchd
check "orchd stops cleanly ($STATUS)" [ "$STATUS" = 0 ]

# -- certificates valid 90 s: renewed at 60 s or so, by acmed alone
pebble_stop
PEBBLE_EXTRA=', "certificateValidityPeriod": 90' pebble_start ||
    fail_always "pebble starts again"
curl -sf -m 5 --cacert "$P/ca.crt" -o "$P/root.pem" \
    "https://127.0.0.1:$PEBMPORT/roots/0"
start_orchd_or_exit
check "orchctl renew: a certificate of 90 s" \
    quiet "$ORCHCTL" -s "$SOCK" renew app.s8acme.test
short() {
	openssl s_client -connect "127.0.0.1:$SPORT" -servername \
	    app.s8acme.test </dev/null 2>/dev/null |
	    openssl x509 -noout -checkend 3600 >/dev/null 2>&1 && return 1
	return 0
}
check "... served" wait_for 30 short
s3=$(serial app.s8acme.test)
n3=$(orders)
renewed3() { [ "$(serial app.s8acme.test)" != "$s3" ]; }
check "... renewed by acmed itself at two thirds of its life" \
    wait_for 80 renewed3
check "... one order more" [ "$(orders)" -eq $((n3 + 1)) ]
c=$(https app.s8acme.test)
check "... served, trusted ($c)" [ "$c" = 200 ]
# a restart: acmed learns the stored one's dates from the parent (HAVE)
stop_orchd
start_orchd_or_exit
s4=$(serial app.s8acme.test)
n4=$(orders)
check "after a restart the stored 90 s certificate is served" \
    [ "$s4" != "" ]
renewed4() { [ "$(serial app.s8acme.test)" != "$s4" ]; }
check "... and renewed in its turn, as acmed read its dates" \
    wait_for 80 renewed4
check "... one order more" [ "$(orders)" -eq $((n4 + 1)) ]
stop_orchd

# -- external account binding: pebble asks for it
pebble_stop
printf 'zWNDZM6eQGHWpSRTPal5eIUYFTu7EajVIoguysqZ9wG44nMEtx3MUAsUDkMTQ12W\n' \
    >"$P/eab.key"
PEBBLE_EXTRA=', "externalAccountBindingRequired": true,
 "externalAccountMACKeys": {"kid-s8": "zWNDZM6eQGHWpSRTPal5eIUYFTu7EajVIoguysqZ9wG44nMEtx3MUAsUDkMTQ12W"}' \
    pebble_start || fail_always "pebble starts with EAB"
curl -sf -m 5 --cacert "$P/ca.crt" -o "$P/root.pem" \
    "https://127.0.0.1:$PEBMPORT/roots/0"
acme_conf "eab kid \"kid-s8\" hmac file \"$P/eab.key\"" >"$T/orchd.conf"
start_orchd_or_exit
c=$(https eab.pr.s8acme.test)
check "an account bound with EAB (HS256) gets its certificate ($c)" \
    [ "$c" = 200 ]
stop_orchd
check "orchd stops cleanly ($STATUS)" [ "$STATUS" = 0 ]
e2e_done
