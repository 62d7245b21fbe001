#!/bin/sh
# The status page's server side ("status page", orchd-api.7): its
# assets under hashed names with the security and cache headers, a login
# with the API key (full rights) or the status key (read-only), the
# session cookie's flags, CSRF tokens, a read-only session refused every
# action, a logout ending the session on every gateway ("prefork 2"), a
# session that outlives a reload and one that expires, a cookie ignored
# on the routes the page does not use, and the events' ids, retry and
# replay from Last-Event-ID (or a reset).  Every wait bounded.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports GW API P_APP SPORT TPORT
KEY=$(openssl rand -hex 16)
SKEY=$(openssl rand -hex 16)
mkdir -p "$T/log" "$T/bin"
testhttp_bin
printf '%s\n' "$KEY" >"$T/api.key"
printf '%s\n' "$SKEY" >"$T/status.key"
chmod 0600 "$T/api.key" "$T/status.key"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$T/ui.key" -out "$T/ui.crt" -days 2 -subj "/CN=ui.test" \
    -addext "subjectAltName=DNS:ui.test,IP:127.0.0.1" 2>/dev/null
chmod 0600 "$T/ui.key"

write_conf() {	# write_conf [LINE...]: the configuration, with LINEs
	{
		conf_head
		cat <<CONF
prefork 2
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
status page
status listen on 127.0.0.1 port $SPORT
status listen on 127.0.0.1 port $TPORT tls certificate "$T/ui.crt" key "$T/ui.key"
status key file "$T/status.key"
CONF
		for l in "$@"; do
			echo "$l"
		done
		printf 'workload "uiapp" {\n'
		conf_end 'host "uiapp.test"' \
		    "command \"$T/bin/testhttp serve $P_APP\"" \
		    "port $P_APP" 'idle timeout 1h'
	} >"$T/orchd.conf"
}

URL=http://127.0.0.1:$API
ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
# hdr FILE NAME: a header's value in a curl -D dump, without the CR
hdr() {
	awk -v n="$2" 'BEGIN { IGNORECASE = 1 }
	    tolower(substr($0, 1, length(n) + 1)) == tolower(n) ":" {
		sub(/^[^:]*: */, ""); sub(/\r$/, ""); print; exit }' "$1"
}
status() { head -n 1 "$1" | awk '{ print $2 }'; }
# login KEY: the cookie's id, or nothing; the head in $T/login.h
login() {
	curl -sS -m 10 -o /dev/null -D "$T/login.h" \
	    --data-urlencode "key=$1" "$URL/ui/login"
	hdr "$T/login.h" Set-Cookie | sed -n 's/^orchd_session=\([0-9a-f]*\);.*/\1/p'
}
# as ID [curl args...]: a request with the session's cookie
as() {
	_id=$1
	shift
	curl -sS -m 10 -H "Cookie: orchd_session=$_id" "$@"
}
code() { curl -sS -m 30 -o /dev/null -w '%{http_code}' "$@"; }
csrf_of() {	# csrf_of ID
	as "$1" "$URL/ui/session" | python3 -c \
	    'import json, sys; print(json.load(sys.stdin)["csrf"])' 2>/dev/null
}
ro_of() {
	as "$1" "$URL/ui/session" | python3 -c \
	    'import json, sys; print(json.load(sys.stdin)["readonly"])' 2>/dev/null
}
# every_time N CODE ARGS...: N requests (new connections, so both
# gateways are asked), each answered CODE
every_time() {
	_n=$1
	_want=$2
	shift 2
	_i=0
	while [ "$_i" -lt "$_n" ]; do
		[ "$(code "$@")" = "$_want" ] || return 1
		_i=$((_i + 1))
	done
}

# -- the configuration
write_conf
check "orchd -n takes status page, status key file" \
    "$ORCHD" -n -f "$T/orchd.conf"
cp "$T/api.key" "$T/same.key"
chmod 0600 "$T/same.key"
sed "s|$T/status.key|$T/same.key|" "$T/orchd.conf" >"$T/same.conf"
"$ORCHD" -n -f "$T/same.conf" >"$T/n.out" 2>&1
check "a status key that is the API key is refused" \
    grep -q "the same key as the API's" "$T/n.out"
grep -v '^status page' "$T/orchd.conf" >"$T/nopage.conf"
"$ORCHD" -n -f "$T/nopage.conf" >"$T/n.out" 2>&1
check "status listen on without status page is refused" \
    grep -q 'status listen on 127.0.0.1: without "status page"' "$T/n.out"
printf 'hunter2\n' >"$T/weak.key"
chmod 0600 "$T/weak.key"
sed "s|$T/status.key|$T/weak.key|" "$T/orchd.conf" >"$T/weak.conf"
"$ORCHD" -n -f "$T/weak.conf" >"$T/n.out" 2>&1
check "a weak status key is refused, its file named" \
    grep -q "status key file $T/weak.key: " "$T/n.out"
chmod 0644 "$T/weak.key"
"$ORCHD" -n -f "$T/weak.conf" >"$T/n.out" 2>&1
check "... one others may read too" \
    grep -q "status key file $T/weak.key is readable by others" "$T/n.out"
cp "$T/orchd.conf" "$T/zero.conf"
echo 'status session timeout 0s' >>"$T/zero.conf"
"$ORCHD" -n -f "$T/zero.conf" >"$T/n.out" 2>&1
check "a session timeout of 0 is refused" \
    grep -q "status session timeout: 1s to 30d" "$T/n.out"

start_orchd_or_exit -v

# -- the assets
curl -sS -m 10 -D "$T/index.h" -o "$T/index.html" "$URL/ui/"
check "GET /ui/: 200" [ "$(status "$T/index.h")" = 200 ]
check "... text/html" sh -c "grep -qi '^Content-Type: text/html' '$T/index.h'"
check "... not cached" [ "$(hdr "$T/index.h" Cache-Control)" = no-store ]
CSP="default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
check "... the Content-Security-Policy" \
    [ "$(hdr "$T/index.h" Content-Security-Policy)" = "$CSP" ]
check "... X-Content-Type-Options: nosniff" \
    [ "$(hdr "$T/index.h" X-Content-Type-Options)" = nosniff ]
check "... Referrer-Policy: no-referrer" \
    [ "$(hdr "$T/index.h" Referrer-Policy)" = no-referrer ]
check "... X-Frame-Options: DENY" [ "$(hdr "$T/index.h" X-Frame-Options)" = DENY ]
check "... Cross-Origin-Opener-Policy: same-origin" \
    [ "$(hdr "$T/index.h" Cross-Origin-Opener-Policy)" = same-origin ]
JS=$(grep -o 'app\.[0-9a-f]\{16\}\.js' "$T/index.html" | head -n 1)
CSS=$(grep -o 'app\.[0-9a-f]\{16\}\.css' "$T/index.html" | head -n 1)
check "index.html names app.js by its hash ($JS)" [ -n "$JS" ]
check "... and app.css ($CSS)" [ -n "$CSS" ]
check "... and never by its plain name" \
    sh -c "! grep -q '\"app\.js\"' '$T/index.html'"
curl -sS -m 10 -D "$T/js.h" -o "$T/app.js" "$URL/ui/$JS"
check "GET /ui/$JS: 200" [ "$(status "$T/js.h")" = 200 ]
check "... cached for a year, immutable" \
    [ "$(hdr "$T/js.h" Cache-Control)" = "public, max-age=31536000, immutable" ]
check "... text/javascript" sh -c "grep -qi '^Content-Type: text/javascript' '$T/js.h'"
check "... with the CSP too" \
    [ "$(hdr "$T/js.h" Content-Security-Policy)" = "$CSP" ]
h=$(echo "$JS" | cut -d. -f2)
check "... the bytes whose hash it is named by" \
    [ "$(sha256sum <"$T/app.js" | cut -c1-16)" = "$h" ]
check "GET /ui/app.js (no hash): 404" [ "$(code "$URL/ui/app.js")" = 404 ]
check "GET /ui/nosuch: 404" [ "$(code "$URL/ui/nosuch")" = 404 ]
check "GET /ui/index.html: 404 (only as /ui/)" \
    [ "$(code "$URL/ui/index.html")" = 404 ]
check "HEAD /ui/: 200" [ "$(code -I "$URL/ui/")" = 200 ]

# -- logging in
FULL=$(login "$KEY")
check "login with the API key: 303" [ "$(status "$T/login.h")" = 303 ]
check "... to /ui/" [ "$(hdr "$T/login.h" Location)" = /ui/ ]
check "... a cookie of 32 hex digits ($FULL)" \
    sh -c "echo '$FULL' | grep -Eqx '[0-9a-f]{32}'"
SC=$(hdr "$T/login.h" Set-Cookie)
for flag in 'Path=/' HttpOnly 'SameSite=Strict' 'Max-Age=43[0-9][0-9][0-9]'; do
	check "... $flag" sh -c "echo '$SC' | grep -Eq '; $flag(;|\$)'"
done
check "... not Secure without TLS" sh -c "! echo '$SC' | grep -q Secure"
check "GET /ui/session: readonly false" [ "$(ro_of "$FULL")" = False ]
TOK=$(csrf_of "$FULL")
check "... and a CSRF token ($TOK)" sh -c "echo '$TOK' | grep -Eqx '[0-9a-f]{32}'"
check "GET /ui/session without a cookie: 401" \
    [ "$(code "$URL/ui/session")" = 401 ]
check "the cookie opens GET /v1/workloads on every gateway (8 connections)" \
    every_time 8 200 -H "Cookie: orchd_session=$FULL" "$URL/v1/workloads"
check "... GET /v1/workloads/uiapp" \
    [ "$(code -H "Cookie: orchd_session=$FULL" "$URL/v1/workloads/uiapp")" = 200 ]
check "... its history" [ "$(code -H "Cookie: orchd_session=$FULL" \
    "$URL/v1/workloads/uiapp/history")" = 200 ]
check "a wake without the CSRF token: 403" [ "$(code -X POST \
    -H "Cookie: orchd_session=$FULL" "$URL/v1/workloads/uiapp/wake")" = 403 ]
check "... with a wrong one: 403" [ "$(code -X POST \
    -H "Cookie: orchd_session=$FULL" -H "X-CSRF-Token: $SKEY" \
    "$URL/v1/workloads/uiapp/wake")" = 403 ]
check "... it did not wake" sh -c "'$ORCHCTL' -s '$SOCK' show workloads |
    grep -Eq '^uiapp +asleep '"
check "with it: 200" [ "$(code -X POST -H "Cookie: orchd_session=$FULL" \
    -H "X-CSRF-Token: $TOK" "$URL/v1/workloads/uiapp/wake")" = 200 ]
check "... and it runs" wait_for 10 sh -c "'$ORCHCTL' -s '$SOCK' \
    show workloads | grep -Eq '^uiapp +running '"

# -- the read-only key
RO=$(login "$SKEY")
check "login with the status key: 303 and a cookie" \
    [ "$(status "$T/login.h")" = 303 -a -n "$RO" ]
check "... a fresh id, not the other session's" [ "$RO" != "$FULL" ]
check "... readonly true" [ "$(ro_of "$RO")" = True ]
RTOK=$(csrf_of "$RO")
check "... it reads GET /v1/workloads" \
    every_time 4 200 -H "Cookie: orchd_session=$RO" "$URL/v1/workloads"
for a in suspend wake keepwarm; do
	check "... POST $a with its CSRF token: 403" [ "$(code -X POST \
	    -H "Cookie: orchd_session=$RO" -H "X-CSRF-Token: $RTOK" \
	    -H 'Content-Type: application/json' -d '{"on":true}' \
	    "$URL/v1/workloads/uiapp/$a")" = 403 ]
done
check "... DELETE: 403" [ "$(code -X DELETE -H "Cookie: orchd_session=$RO" \
    -H "X-CSRF-Token: $RTOK" "$URL/v1/workloads/uiapp")" = 403 ]
check "... still running" sh -c "'$ORCHCTL' -s '$SOCK' show workloads |
    grep -Eq '^uiapp +running '"
check "the status key as a bearer key: 401" [ "$(code \
    -H "Authorization: Bearer $SKEY" "$URL/v1/workloads")" = 401 ]
check "the bearer key works as before" [ "$(code \
    -H "Authorization: Bearer $KEY" "$URL/v1/workloads")" = 200 ]

# -- the status page's own listener: the page and its routes, cookies only
SURL=http://127.0.0.1:$SPORT
check "status listen on: GET /ui/ 200" [ "$(code "$SURL/ui/")" = 200 ]
check "... the session of a login on the API's listener works there" \
    [ "$(code -H "Cookie: orchd_session=$FULL" "$SURL/v1/workloads")" = 200 ]
check "... events too" [ "$(code -m 1 -H "Cookie: orchd_session=$FULL" \
    "$SURL/v1/events" 2>/dev/null)" = 200 ]
check "... a bearer key is not taken there: 401" [ "$(code \
    -H "Authorization: Bearer $KEY" "$SURL/v1/workloads")" = 401 ]
check "... POST /v1/workloads: 404" [ "$(code -X POST \
    -H "Authorization: Bearer $KEY" -H "Cookie: orchd_session=$FULL" \
    -H "X-CSRF-Token: $TOK" -d '{}' "$SURL/v1/workloads")" = 404 ]
check "... /healthz: 404" [ "$(code "$SURL/healthz")" = 404 ]
curl -sS -m 10 -o /dev/null -D "$T/slogin.h" --data-urlencode "key=$SKEY" \
    "$SURL/ui/login"
check "... a login there: 303 and a cookie" [ "$(status "$T/slogin.h")" = 303 ] &&
    check "... (the cookie)" grep -qi '^Set-Cookie: orchd_session=[0-9a-f]' \
    "$T/slogin.h"

# -- under TLS the cookie is Secure, over HTTP/1.1 and HTTP/2 alike
for v in http1.1 http2; do
	curl -sS -k -m 30 --$v -o /dev/null -D "$T/tlogin.h" \
	    --data-urlencode "key=$KEY" "https://127.0.0.1:$TPORT/ui/login"
	check "TLS ($v): the login's cookie is Secure" sh -c "grep -i \
	    '^Set-Cookie: orchd_session=' '$T/tlogin.h' | tr -d '\r' |
	    grep -q '; Secure\$'"
done

# -- a wrong login
NONE=$(login "$SKEY-not")
check "a wrong key: 303 to /ui/?login=failed" \
    [ "$(hdr "$T/login.h" Location)" = "/ui/?login=failed" ]
check "... and no cookie" [ -z "$NONE" ]

# -- cookies on the routes the page does not use
check "GET /metrics with a cookie (the page's charts): 200" \
    [ "$(code -H "Cookie: orchd_session=$FULL" "$URL/metrics")" = 200 ]
check "... with a read-only one too" \
    [ "$(code -H "Cookie: orchd_session=$RO" "$URL/metrics")" = 200 ]
check "GET /healthz with a cookie: as without" \
    [ "$(code -H "Cookie: orchd_session=$FULL" "$URL/healthz")" = 200 ]
check "PUT /v1/workloads/uiapp with a cookie and its token: 401" [ "$(code \
    -X PUT -H "Cookie: orchd_session=$FULL" -H "X-CSRF-Token: $TOK" \
    -H 'Content-Type: application/json' -d '{}' \
    "$URL/v1/workloads/uiapp")" = 401 ]
check "POST /v1/workloads with a cookie and its token: 401" [ "$(code \
    -X POST -H "Cookie: orchd_session=$FULL" -H "X-CSRF-Token: $TOK" \
    -H 'Content-Type: application/json' -d '{"name":"x"}' \
    "$URL/v1/workloads")" = 401 ]
check "PATCH /v1/workloads/uiapp with a cookie and its token: 401" [ "$(code \
    -X PATCH -H "Cookie: orchd_session=$FULL" -H "X-CSRF-Token: $TOK" \
    -H 'Content-Type: application/json' -d '{}' \
    "$URL/v1/workloads/uiapp")" = 401 ]

# -- events: ids, retry, replay
as "$FULL" -N -m 4 "$URL/v1/events" >"$T/ev1.out" 2>/dev/null &
EVP=$!
sleep 1
curl -sS -m 10 -X POST -H "Authorization: Bearer $KEY" \
    "$URL/v1/workloads/uiapp/suspend" >/dev/null
curl -sS -m 10 -o /dev/null -H 'Host: uiapp.test' "http://127.0.0.1:$GW/"
wait "$EVP"
check "events with the cookie: retry: 2000 first" \
    [ "$(head -n 1 "$T/ev1.out")" = "retry: 2000" ]
check "... every event has an id" [ "$(grep -c '^event: ' "$T/ev1.out")" -ge 2 \
    -a "$(grep -c '^event: ' "$T/ev1.out")" = "$(grep -c '^id: ' "$T/ev1.out")" ]
check "... of the form EPOCH-R-P" sh -c "! grep '^id: ' '$T/ev1.out' |
    grep -Evq '^id: [0-9a-f]{8}-[0-9]+-[0-9]+\$'"
FIRST=$(grep -m 1 '^id: ' "$T/ev1.out" | cut -c5-)
sed -n "/^id: $FIRST\$/,\$p" "$T/ev1.out" | grep '^id: ' | sed 1d >"$T/want"
nafter=$(wc -l <"$T/want")
# ids are the same in every gateway ("prefork 2"): a reconnect gets the
# events after FIRST again, whichever gateway it lands on, every time
replayed=0
i=0
while [ "$i" -lt 10 ]; do
	as "$FULL" -N -m 1 -H "Last-Event-ID: $FIRST" "$URL/v1/events" \
	    >"$T/ev2.out" 2>/dev/null
	grep '^id: ' "$T/ev2.out" >"$T/got"
	cmp -s "$T/want" "$T/got" && replayed=$((replayed + 1))
	i=$((i + 1))
done
check "Last-Event-ID: the $nafter events missed, the same ids, on 10 of 10 reconnects" \
    [ "$replayed" -eq 10 -a "$nafter" -ge 1 ]
check "... after retry: 2000" [ "$(head -n 1 "$T/ev2.out")" = "retry: 2000" ]
check "... never a reset" sh -c "! grep -q '^event: reset' '$T/ev2.out'"
# events while no client listens are kept too
LAST=$(grep '^id: ' "$T/ev1.out" | tail -n 1 | cut -c5-)
curl -sS -m 30 -o /dev/null -X POST -H "Authorization: Bearer $KEY" \
    "$URL/v1/workloads/uiapp/suspend"
ok_all=1
i=0
while [ "$i" -lt 6 ]; do
	as "$FULL" -N -m 1 -H "Last-Event-ID: $LAST" "$URL/v1/events" \
	    >"$T/ev5.out" 2>/dev/null
	grep -q '"to":"asleep"' "$T/ev5.out" &&
	    ! grep -q '^event: reset' "$T/ev5.out" || ok_all=0
	i=$((i + 1))
done
check "events while no stream was open: replayed on 6 of 6 reconnects" \
    [ "$ok_all" -eq 1 ]
as "$FULL" -N -m 1 -H "Last-Event-ID: 00000000-1" "$URL/v1/events" \
    >"$T/ev3.out" 2>/dev/null
check "an id no gateway gave: event: reset" grep -q '^event: reset' "$T/ev3.out"
as "$FULL" -N -m 1 -H "Last-Event-ID: garbage" "$URL/v1/events" \
    >"$T/ev4.out" 2>/dev/null
check "... and for garbage" grep -q '^event: reset' "$T/ev4.out"
check "... the reset has an id" sh -c "grep -B1 '^event: reset' '$T/ev4.out' |
    grep -Eq '^id: [0-9a-f]{8}-[0-9]+-[0-9]+\$'"
E=$(echo "$FIRST" | cut -d- -f1)
for bad in "$E-99999999-0" "$E-0-99999" "$E-1" "$E-1-1-1" "$E--1-0" \
    "$E-184467440737095516160-0" "$E-0x1-0"; do
	as "$FULL" -N -m 1 -H "Last-Event-ID: $bad" "$URL/v1/events" \
	    >"$T/ev6.out" 2>/dev/null
	check "Last-Event-ID $bad: a reset" grep -q '^event: reset' "$T/ev6.out"
done

# -- a reload keeps the sessions, but not a changed key's; a short
# timeout ends them
check "before the reload, the read-only session works" \
    [ "$(code -H "Cookie: orchd_session=$RO" "$URL/ui/session")" = 200 ]
OTHER=$(login "$KEY")
SKEY2=$(openssl rand -hex 16)
printf '%s\n' "$SKEY2" >"$T/status.key"
write_conf 'status session timeout 3s'
ctl reload >/dev/null
check "after a reload, the session still opens /v1/workloads" \
    every_time 4 200 -H "Cookie: orchd_session=$FULL" "$URL/v1/workloads"
check "... but the status key changed: its session is over, everywhere" \
    every_time 6 401 -H "Cookie: orchd_session=$RO" "$URL/ui/session"
check "... the old status key no longer logs in" [ -z "$(login "$SKEY")" ]
RO2=$(login "$SKEY2")
check "... the new one does" [ -n "$RO2" ]
SHORT=$(login "$KEY")
check "a login after the reload" [ -n "$SHORT" ]
check "... Max-Age=3" sh -c "grep -i '^Set-Cookie:' '$T/login.h' | tr -d '\r' |
    grep -Eq 'Max-Age=[23](;|\$)'"
check "... works at once" [ "$(code -H "Cookie: orchd_session=$SHORT" \
    "$URL/ui/session")" = 200 ]
sleep 4
check "... and is refused once expired, by every gateway" \
    every_time 6 401 -H "Cookie: orchd_session=$SHORT" "$URL/ui/session"
check "... on /v1/workloads too" \
    every_time 4 401 -H "Cookie: orchd_session=$SHORT" "$URL/v1/workloads"

# -- logging out
check "logout without the CSRF token: 403" [ "$(code -X POST \
    -H "Cookie: orchd_session=$FULL" "$URL/ui/logout")" = 403 ]
check "... the session still works" \
    [ "$(code -H "Cookie: orchd_session=$FULL" "$URL/ui/session")" = 200 ]
curl -sS -m 10 -o /dev/null -D "$T/logout.h" -X POST \
    -H "Cookie: orchd_session=$FULL" -H "X-CSRF-Token: $TOK" "$URL/ui/logout"
check "logout: 303 to /ui/" [ "$(status "$T/logout.h")" = 303 -a \
    "$(hdr "$T/logout.h" Location)" = /ui/ ]
check "... the cookie cleared" sh -c "grep -i '^Set-Cookie: orchd_session=;' \
    '$T/logout.h' | grep -q 'Max-Age=0'"
check "... and the session is over on every gateway" \
    every_time 8 401 -H "Cookie: orchd_session=$FULL" "$URL/v1/workloads"
check "... /ui/session: 401" \
    [ "$(code -H "Cookie: orchd_session=$FULL" "$URL/ui/session")" = 401 ]
check "another session is still there" [ -n "$OTHER" -a "$(code \
    -H "Cookie: orchd_session=$OTHER" "$URL/ui/session")" = 200 ]

check "orchd is still running" alive "$ORCHD_PID"
check "no sanitizer report" sh -c "! grep -q 'Sanitizer' '$T/orchd.log'"
e2e_done
