#!/bin/sh
# Attacks on maintenance's input (orchd-security.7): its message comes
# from an API client or an operator and is shown to every client of the
# workload.  Replayed against a live orchd: a message with <script> (it
# must be escaped in the HTML page, a string in the JSON), CRLF and a
# NUL trying to forge a header (refused; the message never reaches a
# header), a 100 KB message, an until in the past, a thousand years
# ahead or not a time, a workload that does not exist or a name that
# climbs out of the path, no key, and the status page's read-only
# session trying to turn it on (403).  Each refusal must leave the
# workload as it was, and orchd running.  On today's main the route does
# not exist: the checks say so by failing.
#
#	sh regress/e2e/attack_maint.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

port_base 61
ports GW API P_WEB
KEY=$(openssl rand -hex 16)
SKEY=$(openssl rand -hex 16)
mkdir -p "$T/log" "$T/pages"
testhttp_bin
: >"$T/web.starts"
chmod 0666 "$T/web.starts"
printf '%s\n' "$KEY" >"$T/api.key"
printf '%s\n' "$SKEY" >"$T/status.key"
chmod 0600 "$T/api.key" "$T/status.key"
chmod 0755 "$T/pages"
cat >"$T/pages/503.html" <<'EOF2'
<html><body><p id="m">{message}</p></body></html>
EOF2
chmod 0644 "$T/pages/503.html"
{
	conf_head
	cat <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
status page
status key file "$T/status.key"
error page 503 "$T/pages/503.html"
workload "am-web" {
	host "web.test"
	command "$T/bin/testhttp serve $P_WEB $T/web.starts"
	port $P_WEB
	idle timeout 1h
}
CONF
} >"$T/orchd.conf"
start_orchd_or_exit

URL=http://127.0.0.1:$API
ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
# maint BODY [curl args...]: the status of POST .../am-web/maintenance
maint() {
	_b=$1
	shift
	curl -sS -m 20 -o "$T/a.body" -w '%{http_code}' -X POST \
	    -H "Authorization: Bearer $KEY" \
	    -H 'Content-Type: application/json' --data-binary "$_b" "$@" \
	    "$URL/v1/workloads/am-web/maintenance" 2>/dev/null
}
get() {	# get ACCEPT: the status of GET web.test/, head and body in $T/r.*
	curl -sS -m 20 -H 'Host: web.test' ${1:+-H "Accept: $1"} \
	    -D "$T/r.head" -o "$T/r.body" -w '%{http_code}' \
	    "http://127.0.0.1:$GW/" 2>/dev/null
}
in_maint() {
	curl -sS -m 10 -H "Authorization: Bearer $KEY" \
	    "$URL/v1/workloads/am-web" 2>/dev/null | python3 -c '
import json, sys
sys.exit(0 if json.load(sys.stdin).get("maintenance") else 1)'
}
not_maint() { ! in_maint; }
starts() { wc -l <"$T/web.starts" | tr -d ' '; }

# -- <script> in the message: escaped in HTML, a string in JSON
XSS='<script>alert(document.cookie)</script><img src=x onerror=alert(1)>'
body=$(python3 -c 'import json, sys; print(json.dumps({"enabled": True,
    "message": sys.argv[1]}))' "$XSS")
code=$(maint "$body")
check "a <script> message is taken, as text ($code)" [ "$code" = 200 ]
code=$(get 'text/html')
check "... the page answers 503 ($code)" [ "$code" = 503 ]
check "... with the message escaped" grep -q \
    '&lt;script&gt;alert(document.cookie)&lt;/script&gt;&lt;img src=x' \
    "$T/r.body"
check "... never a raw tag" sh -c "! grep -q '<script\|<img' '$T/r.body'"
code=$(get 'application/json')
check "... JSON has it as a string ($code)" python3 -c "
import json, sys
o = json.load(open('$T/r.body'))
assert o['workload'] == 'am-web', o
assert o['detail'] == 'in maintenance: ' + sys.argv[1], o
" "$XSS"
check "... nothing woke it" [ "$(starts)" = 0 ]
check "... Retry-After is a number alone" sh -c "tr -d '\r' <'$T/r.head' |
    grep -Eq '^Retry-After: [0-9]+$'"
code=$(maint '{"enabled": false}')
check "off again ($code)" [ "$code" = 200 ]

# -- CRLF, LF and NUL: refused, and nothing changes
for m in 'x\r\nSet-Cookie: pwn=1' 'x\nLocation: http://evil.test/' \
    'x\u0000y' '\u001b[2J' 'tab\there'; do
	code=$(maint "{\"enabled\": true, \"message\": \"$m\"}")
	# the JSON escape shown as written, not as echo would read it
	label=$(printf '%s' "$m" | sed 's/\\/\\\\/g')
	check "a message with a control character is refused: $label ($code)" \
	    [ "$code" = 400 ]
	# jansson refuses a NUL in a string before we see it
	check "... saying why" grep -Eq 'control character|NUL' "$T/a.body"
	check "... and it is not in maintenance" not_maint
done
check "orchctl refuses a CR LF message" sh -c "! $ORCHCTL -s $SOCK \
    maintenance am-web on --message \"\$(printf 'a\r\nSet-Cookie: x=1')\" \
    2>$T/ctl.err"
check "... saying why" grep -q 'control character' "$T/ctl.err"
check "... and it is not in maintenance" not_maint
code=$(maint '{"enabled": true, "message": "\udc00 lone surrogate"}')
check "a lone surrogate is refused ($code)" [ "$code" = 400 ]
code=$(get '')
check "no answer carries a forged header" sh -c "! grep -qi \
    '^Set-Cookie: pwn\|^Location: http://evil' '$T/r.head'"

# -- 100 KB
big=$(head -c 102400 /dev/zero | tr '\0' a)
code=$(maint "{\"enabled\": true, \"message\": \"$big\"}")
check "a 100 KB message is refused ($code)" sh -c \
    "[ '$code' = 400 ] || [ '$code' = 413 ]"
code=$(maint "{\"enabled\": true, \"message\": \"$(head -c 256 /dev/zero |
    tr '\0' a)\"}")
check "256 bytes are refused too ($code)" [ "$code" = 400 ]
check "... saying the bound" grep -q 'at most 255 bytes' "$T/a.body"
check "... and it is not in maintenance" not_maint
code=$(maint "{\"enabled\": true, \"message\": \"$(head -c 255 /dev/zero |
    tr '\0' a)\"}")
check "255 bytes are taken ($code)" [ "$code" = 200 ]
maint '{"enabled": false}' >/dev/null

# -- until: past, absurd, not a time
code=$(maint '{"enabled": true, "until": "2001-01-01T00:00:00Z"}')
check "an until in the past is refused ($code)" [ "$code" = 400 ]
check "... saying why" grep -q 'passed' "$T/a.body"
code=$(maint '{"enabled": true, "until": "3026-01-01T00:00:00Z"}')
check "an until a thousand years ahead is refused ($code)" [ "$code" = 400 ]
code=$(maint '{"enabled": true, "until": "9999-99-99T99:99:99Z"}')
check "an until that is not a time is refused ($code)" [ "$code" = 400 ]
code=$(maint '{"enabled": true, "until": 99999999999999999999}')
check "an until that is a huge number is refused ($code)" [ "$code" = 400 ]
code=$(maint '{"enabled": false, "message": "x"}')
check "a message with enabled false is refused ($code)" [ "$code" = 400 ]
check "... and it is not in maintenance" not_maint
check "orchctl refuses an until in the past" sh -c "! $ORCHCTL -s $SOCK \
    maintenance am-web on --until 2001-01-01T00:00:00Z 2>$T/u.err"
check "... with the text" grep -qx \
    'orchctl: maintenance until: that time has passed' "$T/u.err"
check "orchctl refuses an until too far" sh -c "! $ORCHCTL -s $SOCK \
    maintenance am-web on --until 100000d 2>/dev/null"
check "... and a time too far, with the text" sh -c "! $ORCHCTL -s $SOCK \
    maintenance am-web on --until 3026-01-01T00:00:00Z 2>$T/u.err &&
    grep -qx 'orchctl: maintenance until: at most 366 days ahead' $T/u.err"
# each bad --until: the exact text, naming the bounds and the value
for u in 0s 367d soon -1h 2026-13-01T00:00:00Z ''; do
	"$ORCHCTL" -s "$SOCK" maintenance am-web on --until "$u" \
	    2>"$T/u.err"
	st=$?
	check "orchctl --until '$u' refused ($st): $(cat "$T/u.err")" \
	    sh -c "[ $st -ne 0 ] && grep -qxF 'orchctl: --until: a duration \
from 1s to 366d (30m, 2h, 1d) or a UTC time as 2026-12-06T18:00:00Z: \
\"$u\"' '$T/u.err'"
done
check "... and it is not in maintenance" not_maint

# -- names
code=$(curl -sS -m 10 -o /dev/null -w '%{http_code}' -X POST \
    -H "Authorization: Bearer $KEY" --data-binary '{"enabled": true}' \
    "$URL/v1/workloads/nosuch/maintenance")
check "a workload that does not exist: 404 ($code)" [ "$code" = 404 ]
code=$(curl -sS -m 10 -o /dev/null -w '%{http_code}' --path-as-is -X POST \
    -H "Authorization: Bearer $KEY" --data-binary '{"enabled": true}' \
    "$URL/v1/workloads/..%2Fam-web/maintenance")
check "a name that climbs out: 400 ($code)" [ "$code" = 400 ]
code=$(curl -sS -m 10 -o /dev/null -w '%{http_code}' -X POST \
    -H "Authorization: Bearer $KEY" --data-binary '{"enabled": true}' \
    "$URL/v1/groups/nosuch/maintenance")
check "a group that does not exist: 404 ($code)" [ "$code" = 404 ]

# -- who may
code=$(curl -sS -m 10 -o /dev/null -w '%{http_code}' -X POST \
    --data-binary '{"enabled": true}' "$URL/v1/workloads/am-web/maintenance")
check "no key: 401 ($code)" [ "$code" = 401 ]
code=$(curl -sS -m 10 -o /dev/null -w '%{http_code}' -X POST \
    -H "Authorization: Bearer $SKEY" --data-binary '{"enabled": true}' \
    "$URL/v1/workloads/am-web/maintenance")
check "the status key as a bearer key: 401 ($code)" [ "$code" = 401 ]
check "... and it is not in maintenance" not_maint
SID=$(curl -sS -m 10 -o /dev/null -D - --data-urlencode "key=$SKEY" \
    "$URL/ui/login" | tr -d '\r' |
    sed -n 's/^[Ss]et-[Cc]ookie: orchd_session=\([0-9a-f]*\);.*/\1/p')
TOK=$(curl -sS -m 10 -H "Cookie: orchd_session=$SID" "$URL/ui/session" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["csrf"])' \
    2>/dev/null)
check "the status key logs in read-only" [ -n "$SID" ] && [ -n "$TOK" ]
code=$(curl -sS -m 10 -o "$T/ro.body" -w '%{http_code}' -X POST \
    -H "Cookie: orchd_session=$SID" -H "X-CSRF-Token: $TOK" \
    -H 'Content-Type: application/json' --data-binary '{"enabled": true}' \
    "$URL/v1/workloads/am-web/maintenance")
check "a read-only session turning maintenance on: 403 ($code)" \
    [ "$code" = 403 ]
check "... and it is not in maintenance" not_maint
check "... the group route is not the page's: 401" [ "$(curl -sS -m 10 \
    -o /dev/null -w '%{http_code}' -X POST -H "Cookie: orchd_session=$SID" \
    -H "X-CSRF-Token: $TOK" --data-binary '{"enabled": true}' \
    "$URL/v1/groups/g/maintenance")" = 401 ]

check "orchd still runs" kill -0 "$ORCHD_PID"
e2e_done
