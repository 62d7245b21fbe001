#!/bin/sh
# Attacks on the status page's later routes (orchd-security.7), replayed
# against a live orchd with "prefork 2": GET .../NAME/access asked for
# another workload's lines, through "../" and encoded dots, with a huge,
# negative, empty or garbage limit, with no key, with the read-only key
# as a bearer key, and as a forged POST; keep warm "until" a time in the
# past, too far ahead, impossible, or garbage (numbers, objects, a NUL,
# 100 KB); a restart by a read-only session, without the CSRF token, or
# as a cross-site form.  Each must be refused and lose nothing.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports GW API P_APP P_OTHER
KEY=$(openssl rand -hex 16)
SKEY=$(openssl rand -hex 16)
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
access log "$T/log/access.log"
status page
status key file "$T/status.key"
CONF
	printf 'workload "uiapp" {\n'
	conf_end 'host "uiapp.test"' \
	    "command \"$T/bin/testhttp serve $P_APP\"" \
	    "port $P_APP" 'idle timeout 1h'
	printf 'workload "secret" {\n'
	conf_end 'host "secret.test"' \
	    "command \"$T/bin/testhttp serve $P_OTHER\"" \
	    "port $P_OTHER" 'idle timeout 1h'
} >"$T/orchd.conf"

URL=http://127.0.0.1:$API
AUTH="Authorization: Bearer $KEY"
code() { curl -sS -m 30 -o /dev/null -w '%{http_code}' "$@"; }
login() {
	curl -sS -m 10 -o /dev/null -D "$T/login.h" \
	    --data-urlencode "key=$1" "$URL/ui/login"
	sed -n 's/^[Ss]et-[Cc]ookie: orchd_session=\([0-9a-f]*\);.*/\1/p' \
	    "$T/login.h"
}

start_orchd_or_exit -v

i=0
while [ "$i" -lt 4 ]; do
	curl -sS -m 10 -o /dev/null -H 'Host: secret.test' \
	    "http://127.0.0.1:$GW/token-SECRET-$i"
	curl -sS -m 10 -o /dev/null -H 'Host: uiapp.test' \
	    "http://127.0.0.1:$GW/app-$i"
	i=$((i + 1))
done
sleep 1

# -- the access-log route
curl -sS -m 10 -H "$AUTH" "$URL/v1/workloads/uiapp/access" >"$T/a.json"
check "uiapp's lines: its own (4)" [ "$(grep -o 'GET /app-' "$T/a.json" |
    wc -l)" = 4 ]
check "... and none of another workload's" \
    sh -c "! grep -q SECRET '$T/a.json'"
for p in 'uiapp/../secret/access' 'uiapp%2f..%2fsecret/access' \
    '..%2fsecret/access' '%2e%2e/secret/access' 'uiapp/access/../../secret' \
    'uiapp%00secret/access' 'ui*/access'; do
	curl -sS -m 10 --path-as-is -o "$T/p.out" -w '%{http_code}' \
	    -H "$AUTH" "$URL/v1/workloads/$p" >"$T/p.code"
	check "GET /v1/workloads/$p: refused ($(cat "$T/p.code"))" \
	    sh -c "grep -Eq '^(400|404)\$' '$T/p.code' &&
	    ! grep -q SECRET '$T/p.out'"
done
for l in 101 1000000 99999999999999999999 -1 0 '' abc 1e3 '100%00' \
    '%31%30%31'; do
	check "limit=$l: 400" [ "$(code -H "$AUTH" \
	    "$URL/v1/workloads/uiapp/access?limit=$l")" = 400 ]
done
check "limit=100: 200" [ "$(code -H "$AUTH" \
    "$URL/v1/workloads/uiapp/access?limit=100")" = 200 ]
check "no key: 401" [ "$(code "$URL/v1/workloads/uiapp/access")" = 401 ]
check "the read-only key as a bearer key: 401" [ "$(code \
    -H "Authorization: Bearer $SKEY" "$URL/v1/workloads/uiapp/access")" = 401 ]
RO=$(login "$SKEY")
check "a read-only session reads it (as it reads logs): 200" [ "$(code \
    -H "Cookie: orchd_session=$RO" "$URL/v1/workloads/uiapp/access")" = 200 ]
check "... but not another's through ../: refused" sh -c "! curl -sS -m 10 \
    --path-as-is -H 'Cookie: orchd_session=$RO' \
    '$URL/v1/workloads/uiapp/../secret/access' | grep -q SECRET"
check "a forged POST to it: refused" [ "$(code -X POST \
    -H "Cookie: orchd_session=$RO" "$URL/v1/workloads/uiapp/access")" -ge 400 ]

# -- keep warm until: the past, the far future, garbage; nothing changes
kw() {	# kw BODY: the status of POST .../uiapp/keepwarm
	curl -sS -m 30 -o "$T/kw.out" -w '%{http_code}' -X POST -H "$AUTH" \
	    -H 'Content-Type: application/json' --data-binary "$1" \
	    "$URL/v1/workloads/uiapp/keepwarm"
}
iso() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
now=$(date +%s)
LONG=$(head -c 100000 /dev/zero | tr '\0' 9)
for u in "\"$(iso $((now - 60)))\"" "\"$(iso "$now")\"" \
    "\"$(iso $((now + 31 * 86400)))\"" '"9999-12-31T23:59:59Z"' \
    '"garbage"' '""' '"2026-02-30T10:00:00Z"' '"2026-13-01T00:00:00Z"' \
    '"2030-01-01T00:00:00"' '"2030-01-01 00:00:00Z"' \
    '"2030-01-01T00:00:00+25:00"' '"1e9"' '1' '-1' '99999999999999999999' \
    'true' '{}' '[]' '"\u0000"' "\"$LONG\""; do
	c=$(kw "{\"enabled\":true,\"until\":$u}")
	check "keepwarm until $(printf '%.40s' "$u"): 400 ($c)" [ "$c" = 400 ]
done
check "until with enabled false: 400" \
    [ "$(kw "{\"enabled\":false,\"until\":\"$(iso $((now + 60)))\"}")" = 400 ]
check "... saying so" grep -qF '"field \"until\": only with \"enabled\": true"' \
    "$T/kw.out"
# the exact text of each kind of bad until reaches the client
kw "{\"enabled\":true,\"until\":\"$(iso $((now - 60)))\"}" >/dev/null
check "an until in the past: its text" grep -qF \
    '"field \"until\": that time has passed"' "$T/kw.out"
kw "{\"enabled\":true,\"until\":\"$(iso $((now + 31 * 86400)))\"}" >/dev/null
check "an until too far: its text" grep -qF \
    '"field \"until\": at most 30 days ahead"' "$T/kw.out"
kw '{"enabled":true,"until":"garbage"}' >/dev/null
check "an until that is no time: its text" grep -qF \
    '"field \"until\": must be a time as RFC 3339 has it, \"2026-01-31T18:00:00Z\""' \
    "$T/kw.out"
check "... and keep warm never changed" sh -c "curl -sS -m 10 -H '$AUTH' \
    '$URL/v1/workloads/uiapp' | grep -q '\"keep_warm\": *false'"
check "... nor was anything logged as set" \
    sh -c "! grep -q 'uiapp: keep warm on' '$T/orchd.log'"

# -- restart: a read-only session, no CSRF token, a cross-site form
curl -sS -m 30 -o /dev/null -X POST -H "$AUTH" \
    "$URL/v1/workloads/uiapp/wake"
pid1=$(pgrep -f "testhttp serve $P_APP" | head -n 1)
RTOK=$(curl -sS -m 10 -H "Cookie: orchd_session=$RO" "$URL/ui/session" |
    sed -n 's/.*"csrf": *"\([0-9a-f]*\)".*/\1/p')
check "restart by a read-only session with its token: 403" [ "$(code \
    -X POST -H "Cookie: orchd_session=$RO" -H "X-CSRF-Token: $RTOK" \
    "$URL/v1/workloads/uiapp/restart")" = 403 ]
FULL=$(login "$KEY")
check "restart by a full session without the CSRF token: 403" [ "$(code \
    -X POST -H "Cookie: orchd_session=$FULL" \
    "$URL/v1/workloads/uiapp/restart")" = 403 ]
check "... a cross-site form POST (no token, text/plain): 403" [ "$(code \
    -X POST -H "Cookie: orchd_session=$FULL" -H 'Origin: http://evil.test' \
    -H 'Content-Type: application/x-www-form-urlencoded' -d 'x=1' \
    "$URL/v1/workloads/uiapp/restart")" = 403 ]
check "restart with no key: 401" [ "$(code -X POST \
    "$URL/v1/workloads/uiapp/restart")" = 401 ]
check "... and it was never restarted" \
    [ -n "$pid1" -a "$(pgrep -f "testhttp serve $P_APP" | head -n 1)" = "$pid1" ]

check "orchd is still running" alive "$ORCHD_PID"
check "uiapp's lines still served" [ "$(code -H "$AUTH" \
    "$URL/v1/workloads/uiapp/access")" = 200 ]
check "no sanitizer report" sh -c "! grep -q 'Sanitizer' '$T/orchd.log'"
e2e_done
