#!/bin/sh
# The status page in a real browser: a real orchd with "status page" and
# a read-only "status key file", three process workloads made through the
# API (one whose description and command hold <script>, an <img onerror>
# and quotes), then regress/browser/ui.test.js drives Debian's chromium
# with puppeteer-core: login, the live table, the wake button, read-only,
# logout, an expired session, CSP, axe-core, eslint, the weight and 1,000
# workloads, and the attacks (cross-site POST, no CSRF token, cookie after
# logout, /ui/../, session fixation, XSS).  Its screenshots are kept in
# $OUT (default $T/shots, kept), and the table's copied to
# doc/statuspage.png when BROWSER_SHOT=1; UI_MANY=1000 measures the table
# with 1,000 more made through the API.  Skipped, saying why, where
# chromium or the npm modules (tools/deps.sh) are missing.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

SRC=$(cd "$(dirname "$0")/../.." && pwd)
BR=$SRC/regress/browser
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || skip "no $CHROMIUM (Debian's chromium: tools/deps.sh)"
command -v node >/dev/null 2>&1 || skip "no node (Debian's nodejs)"
[ -d "$BR/node_modules/puppeteer-core" ] &&
    [ -d "$BR/node_modules/axe-core" ] &&
    [ -d "$BR/node_modules/eslint" ] ||
    skip "no npm modules in $BR (tools/deps.sh runs npm ci there)"
"$CHROMIUM" --headless=new --no-sandbox --disable-gpu --dump-dom \
    about:blank >"$T/chromium.out" 2>&1 ||
    skip "chromium cannot run here: $(tail -n 1 "$T/chromium.out")"

ports GW API P1 P2 P3
KEY=e2e-ui-$$-0123456789abcdef0123
ROKEY=e2e-ro-$$-0123456789abcdef0123
mkdir -p "$T/log" "$T/bin"
cp "$BUILD/regress/testhttp" "$T/bin/testhttp"
chmod 0755 "$T/bin" "$T/bin/testhttp"
printf '%s\n' "$KEY" >"$T/api.key"
printf '%s\n' "$ROKEY" >"$T/status.key"
chmod 0600 "$T/api.key" "$T/status.key"
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
wake timeout 10s
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
api allow process
status page
status key file "$T/status.key"
status session timeout 1m
access log "$T/log/access.log"
CONF
start_orchd_or_exit

URL=http://127.0.0.1:$API
api() {
	curl -sS -m 30 -o /dev/null -w '%{http_code}' \
	    -H "Authorization: Bearer $KEY" "$@"
}
N=$$
LIVE=ui-live-$N
WAKE=ui-wake-$N
XSSWL=ui-xss-$N
# the text a browser must show and never run
XSS='<script>window.__xss=1</script>"'"'"'><img src=x onerror="window.__xss=2">'
XSSJ=$(printf '%s' "$XSS" | python3 -c 'import json, sys
print(json.dumps(sys.stdin.read()))')
XSSE=$(printf 'X=%s' "$XSS" | python3 -c 'import json, sys
print(json.dumps(sys.stdin.read()))')
mk() {	# mk NAME PORT [MORE-JSON]
	api -X POST --data-binary "$(printf '{"name": "%s", "hosts": ["%s.test"], "command": "%s serve %s", "port": %s, "idle_timeout": "10m"%s}' \
	    "$1" "$1" "$T/bin/testhttp" "$2" "$2" "${3:-}")" "$URL/v1/workloads"
}
check "create $LIVE through the API" [ "$(mk "$LIVE" "$P1")" = 201 ]
check "create $WAKE through the API" [ "$(mk "$WAKE" "$P2")" = 201 ]
check "create $XSSWL, its description <script> and quotes" \
    [ "$(mk "$XSSWL" "$P3" ", \"description\": $XSSJ, \"env\": [$XSSE]")" = 201 ]
c=$(api -X POST --data-binary \
    '{"name": "<script>x</script>", "hosts": ["a.test"], "command": "x", "port": 1}' \
    "$URL/v1/workloads")
check "a name with <script> is refused by the API ($c)" [ "$c" = 400 ]
c=$(api -X POST --data-binary \
    '{"name": "q1", "hosts": ["\"><script>.test"], "command": "x", "port": 1}' \
    "$URL/v1/workloads")
check "a host with <script> and quotes is refused by the API ($c)" \
    [ "$c" = 400 ]

# UI_MANY=N more through the API (none by default: 1,000 take about
# 100 s to make, each written durably), on
# one kept-alive connection: docker workloads never woken
MANY=${UI_MANY:-0}
if [ "$MANY" -gt 0 ]; then
	t0=$(now_ms)
	made=$(python3 - "$API" "$KEY" "$MANY" "$N" <<'PY'
import http.client, json, sys
port, key, n, tag = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
c = http.client.HTTPConnection("127.0.0.1", int(port), timeout=30)
made = 0
for i in range(n):
	b = json.dumps({"name": "m%s-%04d" % (tag, i),
	    "hosts": ["m%s-%04d.test" % (tag, i)], "driver": "docker",
	    "image": "busybox:never", "port": 8080})
	c.request("POST", "/v1/workloads", b, {"Authorization": "Bearer " + key,
	    "Content-Type": "application/json"})
	r = c.getresponse()
	r.read()
	made += r.status == 201
print(made)
PY
)
	echo "# figure: api_create_${MANY}_ms $(($(now_ms) - t0)) ms"
	check "$MANY more workloads made through the API ($made)" \
	    [ "$made" = "$MANY" ]
fi

# a session made now, to be refused once its minute is over
curl -sS -m 10 -D "$T/login.h" -o /dev/null --data-urlencode "key=$KEY" \
    "$URL/ui/login"
EXPIRE_AT=$(($(date +%s) + 60))
EXPIRE_COOKIE=$(sed -n 's/^[Ss]et-[Cc]ookie: *\([^;]*\).*/\1/p' "$T/login.h" |
    tr -d '\r' | head -n 1)
check "a login with curl sets a cookie" [ -n "$EXPIRE_COOKIE" ]

OUT=${OUT:-$T/shots}
mkdir -p "$OUT"
E2E_KEEP_SHOTS=$OUT
SHOT=
if [ "${BROWSER_SHOT:-0}" = 1 ]; then
	mkdir -p "$SRC/doc"
	SHOT=$SRC/doc/statuspage.png
fi
BASE=$URL GW=http://127.0.0.1:$GW KEY=$KEY ROKEY=$ROKEY OUT=$OUT \
    UI=$SRC/ui NAMES="$LIVE $WAKE $XSSWL" XSS=$XSS SHOT=$SHOT \
    EXPIRE_COOKIE=$EXPIRE_COOKIE EXPIRE_AT=$EXPIRE_AT CHROMIUM=$CHROMIUM \
    MANY=$MANY \
    timeout 300 node "$BR/ui.test.js" >"$T/node.out" 2>&1
st=$?
sed -n '/^[0-9]* passed, [0-9]* failed$/!p' "$T/node.out"
np=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$T/node.out")
nf=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$T/node.out")
PASSED=$((PASSED + ${np:-0}))
FAILED=$((FAILED + ${nf:-0}))
[ -n "$np" ] || fail "the browser test printed its count (status $st)"
echo "# screenshots in $E2E_KEEP_SHOTS"
if [ "$OUT" = "$T/shots" ]; then
	# kept past e2e_cleanup, which removes $T
	cp -r "$OUT" "/tmp/orchd-browser-shots.$$"
	echo "# kept as /tmp/orchd-browser-shots.$$"
fi
e2e_done
