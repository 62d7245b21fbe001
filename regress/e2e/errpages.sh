#!/bin/sh
# orchd's own answers as the client asks for them ("error page",
# orchd.conf(5)): a browser (Accept: text/html) gets the operator's page
# with {workload}, {status} and {retry_after} put in, HTML-escaped; an
# API client (Accept: application/json) a JSON object; anyone else the
# line of text as ever.  A workload's own page wins over the global one;
# a HEAD gets no body; a held request is still held, never a page; a
# reload takes an edited page.  Bad pages are refused at orchd -n: a
# symlink to /etc/shadow, a 10 MB file, a missing one, a NUL byte, a
# status orchd never answers, a relative path.  Loopback only, every
# wait bounded.
#
#	sh regress/e2e/errpages.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
command -v busybox >/dev/null || skip "no busybox"

port_base 44
ports GW WEB DEAD MINE EVIL API
KEY=e2e-errpages-$$-0123456789abcdef
mkdir -p "$T/log" "$T/pages" "$T/www"
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
chmod 0755 "$T/pages" "$T/www"
echo hi >"$T/www/index.html"
chmod 0644 "$T/www/index.html"
cat >"$T/pages/503.html" <<'EOF'
<html><body><h1>{status}</h1><p>{workload} is asleep: {retry_after}s</p>
<p>{unknown} {braces</p></body></html>
EOF
cat >"$T/pages/404.html" <<'EOF'
<html><body>no such site ({status}), workload "{workload}"</body></html>
EOF
cat >"$T/pages/own.html" <<'EOF'
<html><body>own page of {workload}: {status}</body></html>
EOF
chmod 0644 "$T/pages"/*.html
{
	conf_head
	cat <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
api allow process
wake timeout 3s
error page 503 "$T/pages/503.html"
error page 404 "$T/pages/404.html"
error page 502 "$T/pages/503.html"
workload "broken" {
	host "broken.test"
	command "/bin/false"
	port $DEAD
}
workload "mine" {
	host "mine.test"
	command "/bin/false"
	port $MINE
	error page 503 "$T/pages/own.html"
}
workload "web" {
	host "web.test"
	command "busybox httpd -f -p 127.0.0.1:$WEB -h $T/www"
	port $WEB
}
CONF
} >"$T/orchd.conf"
check "orchd -n takes the error pages" "$ORCHD" -n -f "$T/orchd.conf"
"$ORCHD" -nv -f "$T/orchd.conf" 2>/dev/null >"$T/nv.out"
check "... and -nv prints them" grep -q "^error page 503 \"$T/pages/503.html\"" \
    "$T/nv.out"
check "... a workload's too" grep -q "^	error page 503 \"$T/pages/own.html\"" \
    "$T/nv.out"
start_orchd_or_exit

# get HOST ACCEPT [METHOD]: status, type and body into $T/r.*
get() {
	curl -sS -m 20 ${3:+--head} -H "Host: $1" ${2:+-H "Accept: $2"} \
	    -D "$T/r.head" -o "$T/r.body" -w '%{http_code}' \
	    "http://127.0.0.1:$GW/" 2>/dev/null
}

code=$(get broken.test 'text/html,application/xhtml+xml,*/*;q=0.8')
check "a browser's failed wake gets the page ($code)" [ "$code" = 503 ]
check "... as HTML" sh -c \
    "tr -d '\r' <'$T/r.head' | grep -qi '^Content-Type: text/html'"
check "... with the status and workload put in" \
    grep -q '<h1>503</h1><p>broken is asleep: [0-9][0-9]*s</p>' "$T/r.body"
check "... unknown words and a lone brace left as they are" \
    grep -q '{unknown} {braces' "$T/r.body"
check "... and Retry-After kept" grep -qi '^Retry-After: ' "$T/r.head"
len=$(tr -d '\r' <"$T/r.head" | sed -n 's/^Content-Length: //Ip')
check "... its length the body's ($len)" \
    [ "$len" = "$(wc -c <"$T/r.body" | tr -d ' ')" ]

code=$(get broken.test 'application/json')
check "an API client gets JSON ($code)" [ "$code" = 503 ]
check "... typed application/json" sh -c \
    "tr -d '\r' <'$T/r.head' | grep -qi '^Content-Type: application/json'"
check "... with error, status, workload and retry_after" python3 -c "
import json, sys
o = json.load(open('$T/r.body'))
assert o['status'] == 503 and o['workload'] == 'broken'
assert o['error'] == 'Service Unavailable'
assert isinstance(o['retry_after'], int)
"

code=$(get broken.test '')
check "curl as ever gets the line of text ($code)" [ "$code" = 503 ]
check "... typed text/plain" sh -c \
    "tr -d '\r' <'$T/r.head' | grep -qi '^Content-Type: text/plain'"
check "... beginning with the status" grep -q '^503 Service Unavailable' \
    "$T/r.body"

code=$(get mine.test 'text/html')
check "a workload's own page wins ($code)" \
    grep -q 'own page of mine: 503' "$T/r.body"

code=$(get nowhere.test 'text/html')
check "a host routed nowhere gets the global 404 page ($code)" \
    sh -c "[ $code = 404 ] && grep -q 'no such site (404), workload \"\"' '$T/r.body'"
code=$(get nowhere.test 'application/json')
check "... and JSON with a null workload" python3 -c "
import json
o = json.load(open('$T/r.body'))
assert o['status'] == 404 and o['workload'] is None
"
check "a HEAD gets the head alone, read to the end" python3 -c "
import socket
s = socket.create_connection(('127.0.0.1', $GW), timeout=20)
s.sendall(b'HEAD / HTTP/1.1\\r\\nHost: broken.test\\r\\n'
    b'Accept: text/html\\r\\nConnection: close\\r\\n\\r\\n')
d = b''
while True:
    b = s.recv(65536)
    if not b:
        break
    d += b
assert d.startswith(b'HTTP/1.1 503'), d[:40]
assert b'<' not in d, d
"

code=$(get web.test 'text/html')
check "a sleeping workload's request is held and served, no page ($code)" \
    sh -c "[ $code = 200 ] && grep -q '^hi\$' '$T/r.body'"

# the API names no file for orchd to read: error_pages is orchd.conf's
code=$(curl -s -m 20 -o "$T/api.out" -w '%{http_code}' -X POST \
    -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \
    -d "{\"name\": \"evil\", \"hosts\": [\"evil.test\"], \"command\": \"/bin/true\", \"port\": $EVIL, \"error_pages\": [\"503 /etc/shadow\"]}" \
    "http://127.0.0.1:$API/v1/workloads")
check "the API refuses error_pages ($code)" [ "$code" = 403 ]
check "... saying it is orchd.conf's" grep -q 'error_pages.*orchd.conf only' \
    "$T/api.out"
code=$(get evil.test 'text/html')
check "... and nothing was made of it ($code)" [ "$code" = 404 ]

# an edited page is taken by a reload
echo '<p>edited {status}</p>' >"$T/pages/503.html"
"$ORCHCTL" -s "$SOCK" reload >/dev/null 2>&1
check "a reload is taken" [ $? = 0 ]
code=$(get broken.test 'text/html')
check "... and serves the edited page ($code)" grep -q 'edited 503' \
    "$T/r.body"
stop_orchd

# bad pages, at orchd -n, with the line
bad() {	# bad DESCRIPTION LINE PATTERN
	{
		conf_head
		echo "listen on 127.0.0.1 port $GW"
		echo "$2"
	} >"$T/bad.conf"
	"$ORCHD" -n -f "$T/bad.conf" >"$T/bad.out" 2>&1
	st=$?
	check "$1 is refused at -n (status $st)" [ "$st" = 1 ]
	check "... saying $3" grep -q "$3" "$T/bad.out"
}
ln -sf /etc/shadow "$T/pages/shadow.html"
bad "a symlink to /etc/shadow" "error page 503 \"$T/pages/shadow.html\"" \
    "shadow.html.*Too many levels of symbolic links"
dd if=/dev/zero bs=1024 count=10240 2>/dev/null | tr '\0' a \
    >"$T/pages/big.html"
bad "a 10 MB page" "error page 503 \"$T/pages/big.html\"" \
    "larger than 64 KiB"
bad "a missing page" "error page 503 \"$T/pages/none.html\"" \
    "No such file"
printf 'a\0b' >"$T/pages/nul.html"
bad "a page with a NUL" "error page 503 \"$T/pages/nul.html\"" \
    "not text"
bad "a status orchd never answers" "error page 200 \"$T/pages/404.html\"" \
    "STATUS one orchd answers itself"
bad "a relative path" "error page 503 \"pages/404.html\"" \
    "an absolute path"
bad "a directory" "error page 503 \"$T/pages\"" "not a regular file"
e2e_done
