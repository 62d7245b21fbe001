#!/bin/sh
# The README's "Previews on the internet", its configuration read out of
# README.md and run as written against the real pebble, with only what
# a test must change: loopback addresses and the test's ports, pebble's
# directory (and its CA, which a public ACME server does not need), the
# test backend in place of the preview server, and the forward-auth
# service of gate.sh (oauth2-proxy's protocol) in place of oauth2-proxy.
# Plain HTTP is sent to HTTPS without a wake; the first HTTPS request
# for a preview's host gets a certificate pebble issued; a visitor
# without oauth2-proxy's cookie gets its answer and wakes nothing; one
# with it is served, with Strict-Transport-Security; a host that routes
# nowhere causes no issuance.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pebble.subr"
e2e_init "$1"
top=$(cd "$(dirname "$0")/../.." && pwd)
trap 'kill $AUTHPID 2>/dev/null; acme_cleanup; e2e_cleanup' EXIT
acme_need
ports WPORT P_AUTH
acme_start

# the first indented block after the section's title
readme_conf() {
	awk '
	/^## Previews on the internet/ { sec = 1; next }
	sec && /^## / { exit }
	sec && /^    / { inb = 1; sub(/^    /, ""); print; next }
	sec && inb && /^$/ { print; next }
	sec && inb { exit }' "$top/README.md"
}

readme_conf >"$T/readme.conf"
check "the README has the section's configuration" \
    grep -q 'tls acme' "$T/readme.conf"

python3 "$(dirname "$0")/gateauth.py" "$P_AUTH" ok "$T/auth.log" \
    2>"$T/auth.err" &
AUTHPID=$!
wait_for 10 sh -c "ss -ltn | grep -q ':$P_AUTH '" ||
    fail "the auth service did not start"

{
	conf_head
	sed -e "s|0\.0\.0\.0 port 80 |127.0.0.1 port $HPORT |" \
	    -e "s|0\.0\.0\.0 port 443 |127.0.0.1 port $SPORT |" \
	    -e "s|directory \"https://acme-v02.api.letsencrypt.org/directory\"|directory \"https://127.0.0.1:$PEBPORT/dir\"\\
	ca file \"$P/ca.crt\"|" \
	    -e "s|/usr/local/bin/preview-server --port 9100|$T/bin/testhttp serve $WPORT $T/p.starts $T/p.reqs|" \
	    -e "s|port 9100|port $WPORT|" \
	    -e "s|127\.0\.0\.1:4180|127.0.0.1:$P_AUTH|" "$T/readme.conf"
} >"$T/orchd.conf"
check "orchd -n takes it" "$ORCHD" -n -f "$T/orchd.conf"
# the preview's records of its starts and requests, written as its uid
: >"$T/p.starts"
: >"$T/p.reqs"
chmod 0666 "$T/p.starts" "$T/p.reqs"
start_orchd_or_exit

starts() { wc -l <"$T/p.starts" | tr -d ' '; }
H=pr-7.preview.example.com

# -- plain HTTP: a redirect, nothing woken
loc=$(curl -s -m 10 -o /dev/null -w '%{http_code} %{redirect_url}' \
    --resolve "$H:$HPORT:127.0.0.1" "http://$H:$HPORT/a/b?c=1")
check "plain HTTP: 308 to https, path and query kept ($loc)" \
    [ "$loc" = "308 https://$H/a/b?c=1" ]
check "... nothing woken" [ "$(starts)" = 0 ]

# -- HTTPS without the cookie: the certificate, and the auth service's 401
n0=$(orders)
c=$(https "$H")
check "HTTPS without oauth2-proxy's cookie: its 401 ($c), trusted cert" \
    [ "$c" = 401 ]
check "... one order at pebble" [ "$(orders)" -eq $((n0 + 1)) ]
check "... validated by http-01 on port 80's listener" \
    grep -q "validate w/ HTTP: http://$H:$HPORT/.well-known/" \
    "$T/pebble.log"
c=$(https "$H" -H "Cookie: session=login")
check "a visitor to log in gets the login redirect ($c)" [ "$c" = 302 ]
check "... nothing woken by either" [ "$(starts)" = 0 ]

# -- with the cookie: served, with HSTS
c=$(curl -s -m 40 -D "$T/h" -o /dev/null -w '%{http_code}' \
    --cacert "$P/root.pem" --resolve "$H:$SPORT:127.0.0.1" \
    -H "Cookie: session=good" "https://$H:$SPORT/")
check "with the cookie: 200 from the preview ($c)" [ "$c" = 200 ]
check "... woken once ($(starts))" [ "$(starts)" = 1 ]
check "... Strict-Transport-Security" \
    grep -qi '^strict-transport-security: max-age=' "$T/h"

# -- another preview, its own certificate; a host routing nowhere, none
c=$(https pr-8.preview.example.com -H "Cookie: session=good")
check "a second preview's host gets its own certificate ($c)" \
    [ "$c" = 200 ] && [ "$(orders)" -eq $((n0 + 2)) ]
c=$(https pr-9.elsewhere.example.com)
check "a host that routes nowhere: no handshake ($c), no order" \
    [ "$c" = 000 ] && [ "$(orders)" -eq $((n0 + 2)) ]
check "orchctl show certificates lists both previews" \
    sh -c "'$ORCHCTL' -s '$SOCK' show certificates | grep -c \
    '^pr-[78].preview.example.com  *valid' | grep -qx 2"

stop_orchd
check "orchd stops cleanly ($STATUS)" [ "$STATUS" = 0 ]
e2e_done
