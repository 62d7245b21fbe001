#!/bin/sh
# Attacks on the status page's server side (orchd-security.7): a
# cross-site form POST that carries the victim's cookie but no CSRF
# token; a cookie replayed after its logout; /ui/../ and its
# percent-encoded forms; session fixation (a client-chosen
# orchd_session never becomes valid, even sent with a right login);
# wrong logins capped per address as wrong API keys are (429); a huge
# key field; a cookie on a route the page does not use; one session's
# CSRF token with another's cookie.  Each replayed against a live orchd,
# failing if it works.  Every wait bounded.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports GW API P_APP
KEY=$(openssl rand -hex 16)
SKEY=$(openssl rand -hex 16)
CAP=10		# AUTHLIM_CAP, reaperd/authlim.h
mkdir -p "$T/log" "$T/bin"
testhttp_bin
printf '%s\n' "$KEY" >"$T/api.key"
printf '%s\n' "$SKEY" >"$T/status.key"
chmod 0600 "$T/api.key" "$T/status.key"
{
	conf_head
	cat <<CONF
prefork 2
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
status page
status key file "$T/status.key"
CONF
	printf 'workload "uiatk" {\n'
	conf_end 'host "uiatk.test"' \
	    "command \"$T/bin/testhttp serve $P_APP\"" \
	    "port $P_APP" 'idle timeout 1h'
} >"$T/orchd.conf"

URL=http://127.0.0.1:$API
ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
code() { curl -sS -m 30 -o /dev/null -w '%{http_code}' "$@"; }
login() {	# login KEY [curl args...]: the cookie's id, or nothing
	_k=$1
	shift
	curl -sS -m 10 -o /dev/null -D "$T/login.h" "$@" \
	    --data-urlencode "key=$_k" "$URL/ui/login"
	tr -d '\r' <"$T/login.h" |
	    sed -n 's/^[Ss]et-[Cc]ookie: orchd_session=\([0-9a-f]*\);.*/\1/p'
}
csrf_of() {
	curl -sS -m 10 -H "Cookie: orchd_session=$1" "$URL/ui/session" |
	    python3 -c 'import json, sys; print(json.load(sys.stdin)["csrf"])' \
	    2>/dev/null
}
asleep() { ctl show workloads | grep -Eq '^uiatk +asleep '; }
raw() {	# raw PATH: the status of GET PATH, sent as is
	code --path-as-is "$URL$1"
}

# an orchd without the status page (today's main, to show these checks
# fail there) is started without its lines, and attacked all the same
if "$ORCHD" -n -f "$T/orchd.conf" 2>&1 | grep -q 'unknown keyword "status"'; then
	echo "# this orchd has no status page: replayed without its lines"
	sed -i '/^status /d' "$T/orchd.conf"
fi
start_orchd_or_exit -v

SID=$(login "$KEY")
check "a login gives a session" [ -n "$SID" ]
TOK=$(csrf_of "$SID")
check "... and its CSRF token" [ -n "$TOK" ]

# -- a cross-site form POST: the browser sends the cookie, no token
check "a cross-site form POST to wake, no CSRF token: 403" [ "$(code \
    -X POST -H "Cookie: orchd_session=$SID" \
    -H 'Origin: http://evil.example' \
    -H 'Content-Type: application/x-www-form-urlencoded' -d 'x=1' \
    "$URL/v1/workloads/uiatk/wake")" = 403 ]
check "... a DELETE with the cookie, no token: 403" [ "$(code -X DELETE \
    -H "Cookie: orchd_session=$SID" "$URL/v1/workloads/uiatk")" = 403 ]
check "... the workload was neither woken nor deleted" asleep

# -- another session's token
SID2=$(login "$KEY")
TOK2=$(csrf_of "$SID2")
check "one session's token with another's cookie: 403" [ -n "$TOK2" ] &&
    check "... (403)" [ "$(code -X POST -H "Cookie: orchd_session=$SID" \
    -H "X-CSRF-Token: $TOK2" "$URL/v1/workloads/uiatk/wake")" = 403 ]
check "... still asleep" asleep

# -- a cookie on a route the page does not use
check "a cookie and its token on POST /v1/workloads: 401" [ "$(code \
    -X POST -H "Cookie: orchd_session=$SID" -H "X-CSRF-Token: $TOK" \
    -H 'Content-Type: application/json' \
    -d '{"name":"uiatkx","image":"busybox"}' "$URL/v1/workloads")" = 401 ]
check "... on PUT /v1/workloads/uiatk: 401" [ "$(code -X PUT \
    -H "Cookie: orchd_session=$SID" -H "X-CSRF-Token: $TOK" \
    -H 'Content-Type: application/json' -d '{}' \
    "$URL/v1/workloads/uiatk")" = 401 ]
check "... on PATCH /v1/workloads/uiatk: 401" [ "$(code -X PATCH \
    -H "Cookie: orchd_session=$SID" -H "X-CSRF-Token: $TOK" \
    -H 'Content-Type: application/json' -d '{"idle_timeout":"1s"}' \
    "$URL/v1/workloads/uiatk")" = 401 ]
check "... on POST /metrics (GET only): not 200" [ "$(code -X POST \
    -H "Cookie: orchd_session=$SID" -H "X-CSRF-Token: $TOK" \
    "$URL/metrics")" != 200 ]
check "... nothing was created" sh -c "! '$ORCHCTL' -s '$SOCK' show workloads |
    grep -q '^uiatkx '"

# -- a wrong bearer key beside a live cookie is a wrong key, not a session
check "a wrong bearer key with a live cookie: 401, not the session's 200" \
    [ "$(code -H "Cookie: orchd_session=$SID" \
    -H "Authorization: Bearer wrong$KEY" "$URL/v1/workloads")" = 401 ]

# -- the path: nothing outside the compiled-in assets
for p in '/ui/../' '/ui/../v1/workloads' '/ui/%2e%2e/' '/ui/%2E%2E/etc/passwd' \
    '/ui/..%2f..%2fetc%2fpasswd' '/ui/app.js%00' '/ui//etc/passwd' \
    '/ui/.%2e/'; do
	st=$(raw "$p")
	check "GET $p: 404 ($st)" [ "$st" = 404 ]
done

# -- session fixation
FIX=0123456789abcdef0123456789abcdef
check "a client-chosen orchd_session is not a session: 401" [ "$(code \
    -H "Cookie: orchd_session=$FIX" "$URL/ui/session")" = 401 ]
NEW=$(login "$KEY" -H "Cookie: orchd_session=$FIX")
check "a login that sends it gets a fresh id" [ -n "$NEW" -a "$NEW" != "$FIX" ]
check "... and the chosen one is still no session, on every gateway" \
    sh -c "for i in 1 2 3 4 5 6; do
	[ \"\$(curl -sS -m 10 -o /dev/null -w '%{http_code}' \
	    -H 'Cookie: orchd_session=$FIX' '$URL/v1/workloads')\" = 401 ] ||
	    exit 1
    done"

# -- a cookie replayed after logout
check "logout" [ "$(code -X POST -H "Cookie: orchd_session=$SID" \
    -H "X-CSRF-Token: $TOK" "$URL/ui/logout")" = 303 ]
check "the cookie replayed after logout: 401, on every gateway" \
    sh -c "for i in 1 2 3 4 5 6 7 8; do
	[ \"\$(curl -sS -m 10 -o /dev/null -w '%{http_code}' \
	    -H 'Cookie: orchd_session=$SID' '$URL/v1/workloads')\" = 401 ] ||
	    exit 1
    done"
check "... and its token with it: 401, nothing done" [ "$(code -X POST \
    -H "Cookie: orchd_session=$SID" -H "X-CSRF-Token: $TOK" \
    "$URL/v1/workloads/uiatk/wake")" = 401 ]
check "... still asleep" asleep

# -- a huge key field
{ printf 'key='; head -c 1048576 /dev/zero | tr '\0' a; } >"$T/huge"
st=$(curl -sS -m 20 -o /dev/null -w '%{http_code}' \
    --data-binary "@$T/huge" "$URL/ui/login" 2>/dev/null || echo fail)
check "a login of 1 MiB: 413 ($st)" [ "$st" = 413 ]
st=$(curl -sS -m 20 -o /dev/null -w '%{http_code}' -H 'Transfer-Encoding: chunked' \
    --data-binary "@$T/huge" "$URL/ui/login" 2>/dev/null || echo fail)
check "... chunked: 413 ($st)" [ "$st" = 413 ]
{ printf 'key='; head -c 3000 /dev/zero | tr '\0' a; } >"$T/long"
check "a key of 3000 bytes: a failed login" [ "$(curl -sS -m 10 -o /dev/null \
    -w '%{redirect_url}' --data-binary "@$T/long" "$URL/ui/login")" = \
    "$URL/ui/?login=failed" ]
check "orchd still answers" [ "$(code "$URL/ui/")" = 200 ]

# -- wrong logins: the per-address cap of wrong API keys (from 127.0.0.2)
A2="--interface 127.0.0.2"
n=0
got429=0
while [ "$n" -lt $((CAP + 4)) ]; do
	st=$(code $A2 --data-urlencode "key=wrong$n$KEY" "$URL/ui/login")
	[ "$st" = 429 ] && got429=1
	n=$((n + 1))
done
check "$((CAP + 4)) wrong logins from one address: 429 past the cap" \
    [ "$got429" -eq 1 ]
check "... then even the right key is 429 from it" [ "$(code $A2 \
    --data-urlencode "key=$KEY" "$URL/ui/login")" = 429 ]
check "... and as a bearer key" [ "$(code $A2 \
    -H "Authorization: Bearer $KEY" "$URL/v1/workloads")" = 429 ]
check "another address logs in" [ -n "$(login "$KEY")" ]

check "orchd is still running" alive "$ORCHD_PID"
e2e_done
