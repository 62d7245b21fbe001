#!/bin/sh
# The gate, against the real daemons: "auth basic" with htpasswd -B
# (bcrypt) and yescrypt files, "auth request" to a forward-auth service
# speaking oauth2-proxy's protocol (gateauth.py), "allow from" and
# "deny from" for HTTP and a workload's own TCP listener.  A request
# that passes wakes the workload and reaches it without its
# Authorization (unless "pass authorization"), with the auth service's
# fields named in "headers { }" and none of the client's own of those
# names; one that fails is answered by orchd, wakes nothing and is
# logged with its reason.  HTTP/2 (curl --http2-prior-knowledge) and
# a WebSocket upgrade pass the same gate.  A reload rereads the file:
# a password changed there is the new one at once, the cache emptied.
# The configuration reads back (orchd -nv) as it was written, and the
# API may set "access", and a file or URL only where orchd.conf allows.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
command -v htpasswd >/dev/null 2>&1 || skip "no htpasswd (apache2-utils)"
command -v python3 >/dev/null 2>&1 || skip "no python3"

ports GW API P_BASIC P_PASS P_FWD P_FWDC P_NET P_TCPW L_TCPW P_AUTH P_H2
mkdir -p "$T/log" "$T/bin"
testhttp_bin
for w in basic pass fwd fwdc net tcpw; do
	: >"$T/$w.starts"
	: >"$T/$w.reqs"
	chmod 0666 "$T/$w.starts" "$T/$w.reqs"
done
serve() { echo "$T/bin/testhttp serve $2 $T/$1.starts $T/$1.reqs"; }
starts() { wc -l <"$T/$1.starts" | tr -d ' '; }

# the password file: alice in bcrypt, carol in yescrypt
htpasswd -cbB "$T/htpasswd" alice 'correct horse' 2>/dev/null
ycarol=$(python3 -W ignore -c 'import crypt
print(crypt.crypt("yes pass", "$y$j9T$F5Jx5fExrKuPp53xLKQ..1$"))' \
    2>/dev/null) || ycarol=
case "$ycarol" in '$y$'*) echo "carol:$ycarol" >>"$T/htpasswd" ;; esac
chmod 0644 "$T/htpasswd"
cp "$T/htpasswd" "$T/api.htpasswd"

python3 "$(dirname "$0")/gateauth.py" "$P_AUTH" ok "$T/auth.log" \
    2>"$T/auth.err" &
AUTHPID=$!
trap 'kill $AUTHPID 2>/dev/null; e2e_cleanup' EXIT
wait_for 10 sh -c "ss -ltn | grep -q ':$P_AUTH '" ||
    fail "the auth service did not start"

cat >"$T/orchd.conf" <<CONF
$(conf_head)
listen on 127.0.0.1 port $GW http2 prior knowledge
api listen on 127.0.0.1 port $API
api key file "$T/key"
api allow process
api allow auth basic "$T/api.htpasswd"
api allow auth request "http://127.0.0.1:$P_AUTH/oauth2/*"
reaper interval 1s
wake timeout 10s
access log "$T/log/access.log"

workload "basic" {
	host "basic.test"
	command "$(serve basic $P_BASIC)"
	port $P_BASIC
	auth basic "$T/htpasswd"
}
workload "pass" {
	host "pass.test"
	command "$(serve pass $P_PASS)"
	port $P_PASS
	auth basic "$T/htpasswd" pass authorization
}
workload "fwd" {
	host "fwd.test"
	command "$(serve fwd $P_FWD)"
	port $P_FWD
	auth request "http://127.0.0.1:$P_AUTH/oauth2/auth" headers { "X-Auth-Request-User" "X-Auth-Request-Email" } timeout 3s
}
workload "fwdc" {
	host "fwdc.test"
	command "$(serve fwdc $P_FWDC)"
	port $P_FWDC
	auth request "http://127.0.0.1:$P_AUTH/oauth2/auth" headers { "X-Auth-Request-User" } cache 30s
}
workload "net" {
	host "net.test"
	command "$(serve net $P_NET)"
	port $P_NET
	allow from "127.0.0.2"
	deny from "127.0.0.0/8"
}
workload "tcpw" {
	command "$T/bin/testhttp echo $P_TCPW $T/tcpw.starts"
	port $P_TCPW
	listen on "127.0.0.1" port $L_TCPW
	allow from "127.0.0.2"
	deny from "all"
}
CONF
head -c 32 /dev/urandom | base64 >"$T/key"
chmod 0600 "$T/key"
KEY=$(cat "$T/key")

# -- the configuration reads back as written
"$ORCHD" -nv -f "$T/orchd.conf" >"$T/nv.out" 2>/dev/null
check "orchd -nv prints auth basic" \
    grep -q "auth basic \"$T/htpasswd\"\$" "$T/nv.out"
check "... with pass authorization" \
    grep -q "auth basic \"$T/htpasswd\" pass authorization" "$T/nv.out"
check "... auth request with its headers and timeout" \
    grep -q 'auth request ".*" headers { "X-Auth-Request-User" "X-Auth-Request-Email" } timeout 3s' \
    "$T/nv.out"
check "... allow from and deny from in their order" \
    sh -c "sed -n '/workload \"net\"/,/^}/p' '$T/nv.out' | grep 'from' |
    tr '\n' ' ' | grep -q 'allow from \"127.0.0.2\".*deny from \"127.0.0.0/8\"'"
sed -n '/^#/d;p' "$T/nv.out" >"$T/nv.conf"
check "... and that output is read again" "$ORCHD" -n -f "$T/nv.conf"

start_orchd_or_exit

get() {	# get HOST PATH [curl args...]
	h=$1
	p=$2
	shift 2
	curl -sS -i -m 20 -H "Host: $h" "$@" "http://127.0.0.1:$GW$p" |
	    tr -d '\r'
}
status() { head -n 1 | cut -d ' ' -f 2; }

# -- auth basic
get basic.test / >"$T/b1.out"
check "no credentials: 401" [ "$(status <"$T/b1.out")" = 401 ]
check "... with WWW-Authenticate: Basic and the workload as realm" \
    grep -q '^WWW-Authenticate: Basic realm="basic"' "$T/b1.out"
check "... and nothing started" [ "$(starts basic)" -eq 0 ]
get basic.test / -u 'alice:wrong horse' >"$T/b2.out"
check "a wrong password: 401" [ "$(status <"$T/b2.out")" = 401 ]
get basic.test / -u 'mallory:correct horse' >"$T/b3.out"
check "a user the file lacks: 401" [ "$(status <"$T/b3.out")" = 401 ]
check "... nothing started" [ "$(starts basic)" -eq 0 ]
get basic.test /headers -u 'alice:correct horse' >"$T/b4.out"
check "alice's bcrypt password: the workload wakes and answers 200" \
    [ "$(status <"$T/b4.out")" = 200 ]
check "... on one start" [ "$(starts basic)" -eq 1 ]
check "... without the Authorization field" \
    sh -c "! grep -qi '^authorization:' '$T/b4.out'"
if [ -n "$ycarol" ]; then
	get basic.test / -u 'carol:yes pass' >"$T/b5.out"
	check "carol's yescrypt password: 200" \
	    [ "$(status <"$T/b5.out")" = 200 ]
	get basic.test / -u 'carol:no pass' >"$T/b6.out"
	check "... and a wrong one: 401" [ "$(status <"$T/b6.out")" = 401 ]
else
	ok "# skip: no yescrypt hash from python3's crypt here"
fi
get pass.test /headers -u 'alice:correct horse' >"$T/p1.out"
check "pass authorization: the workload sees Authorization" \
    grep -qi '^authorization: Basic' "$T/p1.out"
get basic.test / -u 'alice:correct horse' --http2-prior-knowledge >"$T/b7.out"
check "HTTP/2 with the password: 200" \
    sh -c "head -n 1 '$T/b7.out' | grep -q '^HTTP/2 200'"
get basic.test / --http2-prior-knowledge >"$T/b8.out"
check "HTTP/2 without: 401" \
    sh -c "head -n 1 '$T/b8.out' | grep -q '^HTTP/2 401'"
printf 'GET /ws HTTP/1.1\r\nHost: basic.test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nAuthorization: Basic %s\r\n\r\nping' \
    "$(printf 'alice:correct horse' | base64)" |
    "$T/bin/testhttp" raw "$GW" 3 | tr -d '\r' >"$T/ws.out"
check "a WebSocket upgrade with the password: 101" \
    grep -q '^HTTP/1.1 101' "$T/ws.out"

# the verifier is off the event loop: 20 passwords at once, answered
# while a plain request is served at once
n=0
pids=
while [ $n -lt 20 ]; do
	get basic.test / -u "alice:guess$n" --interface 127.0.0.3 \
	    >/dev/null 2>&1 &
	pids="$pids $!"
	n=$((n + 1))
done
t0=$(now_ms)
get pass.test / -u 'alice:correct horse' >"$T/fast.out"
t1=$(now_ms)
wait $pids
check "while 20 bcrypts wait, a cached one is answered ($((t1 - t0)) ms)" \
    sh -c "[ '$(status <"$T/fast.out")' = 200 ] && [ $((t1 - t0)) -lt 2000 ]"

# -- the access log says why
check "the access log carries gate=basic-missing" \
    wait_for 5 grep -q ' 401 .* gate=basic-missing$' "$T/log/access.log"
check "... and gate=basic-wrong" \
    grep -q ' gate=basic-wrong$' "$T/log/access.log"

# -- a reload rereads the file: the password changed there is the one
htpasswd -bB "$T/htpasswd" alice 'new horse' 2>/dev/null
"$ORCHCTL" -s "$SOCK" reload >/dev/null 2>&1
sleep 1
check "after a reload, the old password (cached before) is refused" \
    sh -c "[ \"\$(curl -s -o /dev/null -w '%{http_code}' -m 20 -H 'Host: basic.test' -u 'alice:correct horse' http://127.0.0.1:$GW/)\" = 401 ]"
check "... and the new one passes" \
    sh -c "[ \"\$(curl -s -o /dev/null -w '%{http_code}' -m 20 -H 'Host: basic.test' -u 'alice:new horse' http://127.0.0.1:$GW/)\" = 200 ]"
printf 'eve:plaintext\n' >>"$T/htpasswd"
"$ORCHCTL" -s "$SOCK" reload >"$T/reload.out" 2>&1
check "a plain-text line makes the reload fail, naming file and line" \
    grep -q "htpasswd:3: not a bcrypt" "$T/reload.out"
check "... and the old users still pass" \
    sh -c "[ \"\$(curl -s -o /dev/null -w '%{http_code}' -m 20 -H 'Host: basic.test' -u 'alice:new horse' http://127.0.0.1:$GW/)\" = 200 ]"

# -- auth request
get fwd.test /app?x=1 >"$T/f1.out"
check "no session: the auth service's 401 goes to the client" \
    [ "$(status <"$T/f1.out")" = 401 ]
check "... with its WWW-Authenticate and body" \
    sh -c "grep -q '^WWW-Authenticate: Bearer realm=\"sso\"' '$T/f1.out' &&
    grep -q 'sign in' '$T/f1.out'"
check "... nothing started" [ "$(starts fwd)" -eq 0 ]
get fwd.test /app -b 'session=login' >"$T/f2.out"
check "a login to do: its 302 with Location and Set-Cookie" \
    sh -c "[ '$(status <"$T/f2.out")' = 302 ] &&
    grep -q '^Location: https://login.example/oauth2/start?rd=/app' '$T/f2.out' &&
    grep -q '^Set-Cookie: csrf=abc' '$T/f2.out'"
get fwd.test /headers?q=2 -b 'session=good' \
    -H 'X-Auth-Request-User: root' -A 'gate-test' >"$T/f3.out"
check "a good session: 202 from the service, 200 from the workload" \
    [ "$(status <"$T/f3.out")" = 200 ]
check "... on one start" [ "$(starts fwd)" -eq 1 ]
check "... X-Auth-Request-User copied, the client's own left out" \
    sh -c "grep -i '^x-auth-request-user:' '$T/f3.out' | tr -d '\n' |
    grep -qx 'X-Auth-Request-User: alice'"
check "... X-Auth-Request-Email copied" \
    grep -q '^X-Auth-Request-Email: alice@example.com' "$T/f3.out"
check "... a field not named is not" \
    sh -c "! grep -qi '^x-other:' '$T/f3.out'"
check "the service saw method, host, URI, proto, client and cookie" \
    grep -q 'cookie=session=good .*x-forwarded-for=127.0.0.1 x-forwarded-host=fwd.test x-forwarded-method=GET x-forwarded-proto=http x-forwarded-uri=/headers?q=2' \
    "$T/auth.log"
get fwd.test / -b 'session=good' --http2-prior-knowledge >"$T/f4.out"
check "HTTP/2 with a good session: 200" \
    sh -c "head -n 1 '$T/f4.out' | grep -q '^HTTP/2 200'"
check "the access log carries gate=request-401" \
    wait_for 5 grep -q ' gate=request-401$' "$T/log/access.log"

# -- auth request ... cache: a 2xx remembered, with the fields it set
n0=$(cat "$T/auth.log.count")
get fwdc.test /headers -b 'session=good' >"$T/c1.out"
get fwdc.test /headers -b 'session=good' >"$T/c2.out"
n1=$(cat "$T/auth.log.count")
check "with cache 30s, two requests of one session: one question ($n0 -> $n1)" \
    [ $((n1 - n0)) -eq 1 ]
check "... and the second still carries X-Auth-Request-User" \
    grep -q '^X-Auth-Request-User: alice' "$T/c2.out"
get fwdc.test /headers -b 'session=other' >"$T/c3.out"
n2=$(cat "$T/auth.log.count")
check "... another cookie is asked again, and refused" \
    sh -c "[ $((n2 - n1)) -eq 1 ] && [ '$(status <"$T/c3.out")' = 401 ]"
# two Cookie fields, the second a session: never a key for the first
get fwdc.test /headers -H 'Cookie: x=1' -H 'Cookie: session=good' \
    >"$T/c4.out"
get fwdc.test /headers -H 'Cookie: x=1' >"$T/c5.out"
check "a second Cookie field's pass is not cached under the first ($(status <"$T/c5.out"))" \
    [ "$(status <"$T/c5.out")" = 401 ]

# -- allow from, deny from
get net.test / >"$T/n1.out"
check "deny from 127.0.0.0/8: 403 from 127.0.0.1" \
    [ "$(status <"$T/n1.out")" = 403 ]
check "... nothing started" [ "$(starts net)" -eq 0 ]
get net.test / --interface 127.0.0.2 >"$T/n2.out"
check "allow from 127.0.0.2, first: 200" [ "$(status <"$T/n2.out")" = 200 ]
check "the access log carries gate=deny" \
    wait_for 5 grep -q ' 403 .* gate=deny$' "$T/log/access.log"

tcp_from() {	# tcp_from SOURCE: a line sent, what comes back
	python3 - "$1" "$L_TCPW" <<'PY'
import socket, sys
s = socket.socket()
s.settimeout(10)
s.bind((sys.argv[1], 0))
s.connect(("127.0.0.1", int(sys.argv[2])))
out = b""
try:
    s.sendall(b"hello\n")
    s.shutdown(socket.SHUT_WR)
    while True:
        b = s.recv(4096)
        if not b:
            break
        out += b
except Exception:
    pass
print(out.decode(errors="replace").strip() or "closed")
PY
}
out=$(tcp_from 127.0.0.1)
check "TCP from 127.0.0.1, denied: closed without an echo ($out)" \
    [ "$out" = closed ]
check "... nothing started" [ "$(starts tcpw)" -eq 0 ]
out=$(tcp_from 127.0.0.2)
check "TCP from 127.0.0.2, allowed: woken and echoed ($out)" \
    sh -c "echo '$out' | grep -q '^hello'"

# -- the API: access always, a file or URL only as orchd.conf allows
api() {	# api METHOD PATH [BODY]
	if [ -n "${3:-}" ]; then
		printf '%s' "$3" >"$T/api.req"
	else
		: >"$T/api.req"
	fi
	curl -sS -o "$T/api.body" -w '%{http_code}' -m 20 -X "$1" \
	    -H "Authorization: Bearer $KEY" \
	    -H 'Content-Type: application/json' \
	    --data-binary "@$T/api.req" "http://127.0.0.1:$API$2"
	cat "$T/api.body" >>"$T/api.log"
}
def() {	# def NAME EXTRA-JSON
	printf '{"name":"%s","driver":"process","hosts":["%s.api.test"],"command":"%s","port":%d%s}' \
	    "$1" "$1" "$T/bin/testhttp serve $P_H2" "$P_H2" "$2"
}
check "API: access [\"deny all\"] is taken" \
    [ "$(api POST /v1/workloads "$(def a1 ',"access":["deny all"]')")" = 201 ]
check "... and refuses everyone: 403" \
    [ "$(get a1.api.test / | status)" = 403 ]
check "API: a file orchd.conf allows is taken" \
    [ "$(api POST /v1/workloads "$(def a2 ",\"auth_basic\":\"$T/api.htpasswd\"")")" = 201 ]
check "... and asks a password: 401" \
    [ "$(get a2.api.test / | status)" = 401 ]
check "API: any other file is refused (403)" \
    [ "$(api POST /v1/workloads "$(def a3 ",\"auth_basic\":\"$T/htpasswd\"")")" = 403 ]
check "API: a URL under the allowed prefix is taken" \
    [ "$(api POST /v1/workloads "$(def a4 ",\"auth_request\":\"http://127.0.0.1:$P_AUTH/oauth2/auth\"")")" = 201 ]
check "API: a URL outside it is refused (403)" \
    [ "$(api POST /v1/workloads "$(def a5 ",\"auth_request\":\"http://127.0.0.1:$P_AUTH/other\"")")" = 403 ]
check "API: a bad access entry is refused (400)" \
    [ "$(api POST /v1/workloads "$(def a6 ',"access":["permit 10.0.0.0/8"]')")" = 400 ]
api GET /v1/workloads/a2 >/dev/null
check "GET shows auth_basic" grep -q '"auth_basic"' "$T/api.body"
"$ORCHCTL" -s "$SOCK" show workload a1 >"$T/show.out" 2>&1
check "orchctl show workload shows access" grep -q 'deny all' "$T/show.out"

# -- each keyword, written wrong in orchd.conf: refused, naming its line
badconf() {	# badconf NAME LINE: orchd -n refuses a workload with LINE
	{
		conf_head
		printf 'workload "%s" {\n\thost "%s.bad.test"\n' "$1" "$1"
		printf '\tcommand "%s"\n\tport 9\n\t%s\n}\n' \
		    "$T/bin/testhttp serve 9 /dev/null /dev/null" "$2"
	} >"$T/bad-$1.conf"
	! "$ORCHD" -n -f "$T/bad-$1.conf" >"$T/bad-$1.out" 2>&1 &&
	    grep -q "bad-$1.conf:[0-9]" "$T/bad-$1.out"
}
check "allow from a non-CIDR is refused at its line" \
    badconf cidr 'allow from "10.0.0.0/33"'
check "auth basic of a file that does not exist is refused at its line" \
    badconf nofile "auth basic \"$T/nosuch\""
check "auth request of a non-http URL is refused at its line" \
    badconf url 'auth request "ftp://127.0.0.1/x"'

e2e_done
