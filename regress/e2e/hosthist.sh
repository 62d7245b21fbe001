#!/bin/sh
# GET /v1/host/history (orchd-api.7): the host's last day a minute at a
# time, kept by the reaper from what every gateway of "prefork 2" tells
# it each minute: the requests of both gateways summed, a wake counted
# once (every gateway sees it), the memory charged and the budget; the
# route takes the page's cookie, refuses a POST and a missing key.  It
# waits for the gateways' first minute (at most 75 s).
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports GW API P_APP
KEY=$(openssl rand -hex 16)
mkdir -p "$T/log" "$T/bin"
testhttp_bin
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
{
	conf_head
	cat <<CONF
prefork 2
memory budget 1G
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
status page
CONF
	printf 'workload "hhapp" {\n'
	conf_end 'host "hhapp.test"' \
	    "command \"$T/bin/testhttp serve $P_APP\"" \
	    "port $P_APP" 'idle timeout 1h' 'memory 64M'
} >"$T/orchd.conf"
cat >"$T/bin/py" <<'PY'
#!/usr/bin/env python3
import json, sys
j = json.load(sys.stdin)
print(eval(sys.argv[1]))
PY
chmod 0755 "$T/bin/py"
PATH=$T/bin:$PATH
URL=http://127.0.0.1:$API
AUTH="Authorization: Bearer $KEY"
code() { curl -sS -m 30 -o /dev/null -w '%{http_code}' "$@"; }
hist() { curl -sS -m 10 -H "$AUTH" "$URL/v1/host/history"; }

start_orchd_or_exit -v
hist >"$T/h0.json"
check "GET /v1/host/history: interval 60" \
    [ "$(py 'j["interval"]' <"$T/h0.json")" = 60 ]
check "... no minute yet" [ "$(py 'len(j["samples"])' <"$T/h0.json")" = 0 ]
# 20 requests, each a new connection: both gateways answer some
i=0
while [ "$i" -lt 20 ]; do
	curl -sS -m 20 -o /dev/null -H 'Host: hhapp.test' \
	    "http://127.0.0.1:$GW/r$i"
	i=$((i + 1))
done
check "a minute later, the requests of both gateways, summed: 20" \
    wait_for 75 sh -c "curl -sS -m 10 -H '$AUTH' '$URL/v1/host/history' |
    py 'sum(s[\"requests\"] for s in j[\"samples\"])' | grep -qx 20"
sleep 2
hist >"$T/h1.json"
check "... the wake once, not once a gateway" \
    [ "$(py 'sum(s["wakes"] for s in j["samples"])' <"$T/h1.json")" = 1 ]
check "... the budget, 1G" [ "$(py 'j["samples"][-1]["memory_budget"]' \
    <"$T/h1.json")" = 1073741824 ]
check "... the memory charged, 64M" [ "$(py \
    'j["samples"][-1]["memory_in_use"]' <"$T/h1.json")" = 67108864 ]
check "... each minute's time in RFC 3339" sh -c "py 'j[\"samples\"][0][\"time\"]' \
    <'$T/h1.json' | grep -Eqx '[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:00Z'"
check "the same from either gateway (6 asks)" sh -c "for i in 1 2 3 4 5 6; do
    curl -sS -m 10 -H '$AUTH' '$URL/v1/host/history' |
    py 'sum(s[\"requests\"] for s in j[\"samples\"])' | grep -qx 20 || exit 1
    done"
check "POST: 405" [ "$(code -X POST -H "$AUTH" "$URL/v1/host/history")" = 405 ]
check "no key: 401" [ "$(code "$URL/v1/host/history")" = 401 ]
check "/v1/host/history/x: 404" \
    [ "$(code -H "$AUTH" "$URL/v1/host/history/x")" = 404 ]
curl -sS -m 10 -o /dev/null -D "$T/login.h" --data-urlencode "key=$KEY" \
    "$URL/ui/login"
S=$(sed -n 's/^[Ss]et-[Cc]ookie: orchd_session=\([0-9a-f]*\);.*/\1/p' \
    "$T/login.h")
check "the page's cookie opens it" [ "$(code \
    -H "Cookie: orchd_session=$S" "$URL/v1/host/history")" = 200 ]
check "orchd is still running" alive "$ORCHD_PID"
check "no sanitizer report" sh -c "! grep -q 'Sanitizer' '$T/orchd.log'"
e2e_done
