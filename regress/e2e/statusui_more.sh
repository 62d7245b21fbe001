#!/bin/sh
# The status page's later routes (orchd-api.7), against a live orchd with
# "prefork 2": GET /v1/workloads/NAME/access (each workload's last
# access-log lines, kept by the reaper for every gateway, bounded to 100
# a workload), keep warm "until" a time, which lapses by itself, and
# POST .../restart (409 when asleep, 200 once it runs again, a new
# process).  Every wait bounded.
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
	printf 'workload "uiother" {\n'
	conf_end 'host "uiother.test"' 'group "uiteam"' \
	    "command \"$T/bin/testhttp serve $P_OTHER\"" \
	    "port $P_OTHER" 'idle timeout 1h'
} >"$T/orchd.conf"

URL=http://127.0.0.1:$API
AUTH="Authorization: Bearer $KEY"
ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
code() { curl -sS -m 30 -o /dev/null -w '%{http_code}' "$@"; }
api() { curl -sS -m 30 -H "$AUTH" "$@"; }
# py EXPR: a Python expression on the JSON of stdin, as j (a script,
# so that sh -c finds it too)
cat >"$T/bin/py" <<'PY'
#!/usr/bin/env python3
import json, sys
j = json.load(sys.stdin)
print(eval(sys.argv[1]))
PY
chmod 0755 "$T/bin/py"
PATH=$T/bin:$PATH
export PATH
login() {
	curl -sS -m 10 -o /dev/null -D "$T/login.h" \
	    --data-urlencode "key=$1" "$URL/ui/login"
	sed -n 's/^[Ss]et-[Cc]ookie: orchd_session=\([0-9a-f]*\);.*/\1/p' \
	    "$T/login.h"
}
# hits HOST N TAG: N requests, each a new connection (both gateways)
hits() {
	_i=0
	while [ "$_i" -lt "$2" ]; do
		curl -sS -m 10 -o /dev/null -H "Host: $1" \
		    "http://127.0.0.1:$GW/$3-$_i"
		_i=$((_i + 1))
	done
}

start_orchd_or_exit -v

# -- the access log's last lines
hits uiapp.test 5 mark-app
hits uiother.test 3 mark-other
sleep 1
api "$URL/v1/workloads/uiapp/access" >"$T/acc.json"
check "GET .../uiapp/access: 200, JSON" sh -c "py 'j[\"name\"]' \
    <'$T/acc.json' 2>/dev/null | grep -qx uiapp" || cat "$T/acc.json"
n=$(py 'len(j["lines"])' <"$T/acc.json")
check "... its 5 lines ($n)" [ "$n" = 5 ]
check "... each as the access log wrote it" sh -c "py '\"\\n\".join(j[\"lines\"])' \
    <'$T/acc.json' | grep -c 'GET /mark-app-' | grep -qx 5"
check "... in the file too" sh -c "grep -c 'GET /mark-app-' \
    '$T/log/access.log' | grep -qx 5"
check "... oldest first" sh -c "py 'j[\"lines\"][0]' <'$T/acc.json' |
    grep -q 'mark-app-0 '"
check "... none of uiother's" sh -c "! grep -q mark-other '$T/acc.json'"
check "... access_log true" [ "$(py 'j["access_log"]' <"$T/acc.json")" = True ]
check "uiother's: its 3" [ "$(api "$URL/v1/workloads/uiother/access" |
    py 'len(j["lines"])')" = 3 ]
check "GET .../uiother: wakes_today 1 (the store counts the day's)" \
    [ "$(api "$URL/v1/workloads/uiother" | py 'j["wakes_today"]')" = 1 ]
check "... in the list too" [ "$(api "$URL/v1/workloads" |
    py '[w["wakes_today"] for w in j["workloads"] if w["name"] == "uiother"][0]')" = 1 ]
# every gateway's lines, whichever answers: same answer 6 times
same=1
for i in 1 2 3 4 5 6; do
	[ "$(api "$URL/v1/workloads/uiapp/access" | py 'len(j["lines"])')" = 5 ] ||
	    same=0
done
check "the same 5 lines from either gateway (prefork 2, 6 asks)" [ "$same" = 1 ]
check "?limit=2: the last 2" sh -c "curl -sS -m 10 -H '$AUTH' \
    '$URL/v1/workloads/uiapp/access?limit=2' | py '\" \".join(j[\"lines\"])' |
    grep 'mark-app-3 ' | grep -q 'mark-app-4 '"
hits uiapp.test 110 many
sleep 1
n=$(api "$URL/v1/workloads/uiapp/access" | py 'len(j["lines"])')
check "after 115 requests: the last 100 ($n)" [ "$n" = 100 ]
check "... the newest last" sh -c "curl -sS -m 10 -H '$AUTH' \
    '$URL/v1/workloads/uiapp/access' | py 'j[\"lines\"][-1]' |
    grep -q 'many-109 '"
check "a cookie opens it (the page's route)" [ "$(code -H \
    "Cookie: orchd_session=$(login "$KEY")" \
    "$URL/v1/workloads/uiapp/access")" = 200 ]
check "... a read-only one too, as logs" [ "$(code -H \
    "Cookie: orchd_session=$(login "$SKEY")" \
    "$URL/v1/workloads/uiapp/access")" = 200 ]
check "no such workload: 404" \
    [ "$(code -H "$AUTH" "$URL/v1/workloads/nosuch/access")" = 404 ]
check "POST: 405" \
    [ "$(code -X POST -H "$AUTH" "$URL/v1/workloads/uiapp/access")" = 405 ]

# -- restart
api -X POST "$URL/v1/workloads/uiapp/suspend" >/dev/null
check "POST .../restart of one asleep: 409" [ "$(code -X POST -H "$AUTH" \
    "$URL/v1/workloads/uiapp/restart")" = 409 ]
api -X POST "$URL/v1/workloads/uiapp/wake" >/dev/null
pid1=$(pgrep -f "testhttp serve $P_APP" | head -n 1)
curl -sS -m 60 -D "$T/rs.h" -o "$T/rs.json" -X POST -H "$AUTH" \
    "$URL/v1/workloads/uiapp/restart"
check "POST .../restart of one running: 200 once it runs again" \
    sh -c "head -n 1 '$T/rs.h' | grep -q ' 200' &&
    py 'j[\"state\"]' <'$T/rs.json' | grep -qx running"
pid2=$(pgrep -f "testhttp serve $P_APP" | head -n 1)
check "... a new process ($pid1 -> $pid2)" \
    [ -n "$pid1" -a -n "$pid2" -a "$pid1" != "$pid2" ]
check "... its history says so" sh -c "curl -sS -m 10 -H '$AUTH' \
    '$URL/v1/workloads/uiapp/history' | grep -q 'restarted through the API'"
S=$(login "$KEY")
TOK=$(curl -sS -m 10 -H "Cookie: orchd_session=$S" "$URL/ui/session" |
    py 'j["csrf"]')
check "... a session with its CSRF token restarts it too" [ "$(code -X POST \
    -H "Cookie: orchd_session=$S" -H "X-CSRF-Token: $TOK" \
    "$URL/v1/workloads/uiapp/restart")" = 200 ]
check "no such workload: 404" [ "$(code -X POST -H "$AUTH" \
    "$URL/v1/workloads/nosuch/restart")" = 404 ]

# -- keep warm until a time
iso() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
warm() {	# warm NAME BODY: the status of POST .../keepwarm
	curl -sS -m 30 -o "$T/kw.json" -w '%{http_code}' -X POST -H "$AUTH" \
	    -H 'Content-Type: application/json' -d "$2" \
	    "$URL/v1/workloads/$1/keepwarm"
}
U=$(($(date +%s) + 4))
check "keepwarm until 4 s from now: 200" \
    [ "$(warm uiother "{\"enabled\":true,\"until\":\"$(iso "$U")\"}")" = 200 ]
api "$URL/v1/workloads/uiother" >"$T/w.json"
check "... GET says keep_warm true" [ "$(py 'j["keep_warm"]' <"$T/w.json")" = True ]
check "... and keep_warm_until $(iso "$U")" \
    [ "$(py 'j["keep_warm_until"]' <"$T/w.json")" = "$(iso "$U")" ]
check "... it woke (keep warm wakes it)" wait_for 10 sh -c "curl -sS -m 5 \
    -H '$AUTH' '$URL/v1/workloads/uiother' | py 'j[\"state\"]' |
    grep -qx running"
check "... and lapses by itself: keep_warm false within 10 s" wait_for 10 \
    sh -c "curl -sS -m 5 -H '$AUTH' '$URL/v1/workloads/uiother' |
    py 'j[\"keep_warm\"], j[\"keep_warm_until\"]' | grep -qx '(False, None)'"
check "... the log says so" grep -q 'workload uiother: keep warm lapsed' \
    "$T/orchd.log"
check "keepwarm on without until: no until" sh -c "[ \"\$(curl -sS -m 10 \
    -X POST -H '$AUTH' -d '{\"enabled\":true}' \
    '$URL/v1/workloads/uiother/keepwarm' >/dev/null; curl -sS -m 5 \
    -H '$AUTH' '$URL/v1/workloads/uiother' |
    py 'j[\"keep_warm\"], j[\"keep_warm_until\"]')\" = \"(True, None)\" ]"
# a group's keepwarm takes the same body: its until is kept too
U=$(($(date +%s) + 3600))
check "group keepwarm until an hour from now: 200" [ "$(curl -sS -m 30 \
    -o /dev/null -w '%{http_code}' -X POST -H "$AUTH" \
    -d "{\"enabled\":true,\"until\":\"$(iso "$U")\"}" \
    "$URL/v1/groups/uiteam/keepwarm")" = 200 ]
check "... and its member's keep_warm_until is $(iso "$U")" \
    [ "$(api "$URL/v1/workloads/uiother" | py 'j["keep_warm_until"]')" = \
    "$(iso "$U")" ]
check "group keepwarm until the past: 400" [ "$(curl -sS -m 30 \
    -o /dev/null -w '%{http_code}' -X POST -H "$AUTH" \
    -d '{"enabled":true,"until":"2001-01-01T00:00:00Z"}' \
    "$URL/v1/groups/uiteam/keepwarm")" = 400 ]
# kept by the store: it lapses after a restart of orchd too
U=$(($(date +%s) + 5))
warm uiapp "{\"enabled\":true,\"until\":\"$(iso "$U")\"}" >/dev/null
stop_orchd
sleep 6
start_orchd -v
check "restarted after its time: keep warm lapsed at once" wait_for 10 \
    sh -c "curl -sS -m 5 -H '$AUTH' '$URL/v1/workloads/uiapp' |
    py 'j[\"keep_warm\"]' | grep -qx False"
U=$(($(date +%s) + 3600))
warm uiapp "{\"enabled\":true,\"until\":\"$(iso "$U")\"}" >/dev/null
stop_orchd
start_orchd -v
check "restarted before its time: still kept warm, until $(iso "$U")" \
    sh -c "curl -sS -m 5 -H '$AUTH' '$URL/v1/workloads/uiapp' |
    py 'j[\"keep_warm\"], j[\"keep_warm_until\"]' |
    grep -qx \"(True, '$(iso "$U")')\""
"$ORCHCTL" -s "$SOCK" show workload uiapp >"$T/show.out" 2>&1
check "... orchctl show workload says until $(iso "$U")" \
    grep -Eq "^keep warm: +until $(iso "$U")\$" "$T/show.out"
check "... and the wakes of today" \
    grep -Eq '^wakes: +[0-9]+, [0-9]+ today \(UTC\)$' "$T/show.out"
"$ORCHCTL" -s "$SOCK" -j show workload uiapp >"$T/show.json" 2>&1
check "... orchctl -j gives keep_warm_until" \
    [ "$(py 'j["keep_warm_until"]' <"$T/show.json")" = "$(iso "$U")" ]

check "orchd is still running" alive "$ORCHD_PID"
check "no sanitizer report" sh -c "! grep -q 'Sanitizer' '$T/orchd.log'"
e2e_done
