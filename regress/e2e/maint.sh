#!/bin/sh
# Maintenance (orchd-workload.7): orchctl maintenance NAME on [--until
# TIME] [--message TEXT] | off, POST .../maintenance and a group's.  In
# maintenance a request gets 503 with Retry-After and the message (text,
# the operator's HTML page, JSON), and nothing wakes the workload: not a
# request, not a TCP connection (closed at once), not orchctl wake, not a
# workload that depends on it (its wake fails naming it), not keep warm.
# A running workload is suspended first, once its request in flight is
# answered; maintenance survives a restart of orchd; --until ends it by
# itself; off lets the next request wake it.  Loopback only, every wait
# bounded.
#
#	sh regress/e2e/maint.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

port_base 57
ports GW API P_WEB P_DB P_APP P_G1 P_G2 P_TCP L_TCP P_WARM
KEY=e2e-maint-$$-0123456789abcdef
mkdir -p "$T/log" "$T/pages"
testhttp_bin
for f in web db app g1 g2 tcp warm; do
	: >"$T/$f.starts"
	chmod 0666 "$T/$f.starts"
done
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
chmod 0755 "$T/pages"
cat >"$T/pages/503.html" <<'EOF2'
<html><body><h1>{status}</h1><p>{workload}: {message}</p></body></html>
EOF2
chmod 0644 "$T/pages/503.html"
{
	conf_head
	cat <<CONF
reaper interval 1s
wake timeout 10s
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
error page 503 "$T/pages/503.html"
workload "mt-web" {
	host "web.test"
	command "$T/bin/testhttp serve $P_WEB $T/web.starts"
	port $P_WEB
}
workload "mt-db" {
	host "db.test"
	command "$T/bin/testhttp serve $P_DB $T/db.starts"
	port $P_DB
}
workload "mt-app" {
	host "app.test"
	depends on "mt-db"
	command "$T/bin/testhttp serve $P_APP $T/app.starts"
	port $P_APP
}
workload "mt-g1" {
	host "g1.test"
	group "mtg"
	command "$T/bin/testhttp serve $P_G1 $T/g1.starts"
	port $P_G1
}
workload "mt-g2" {
	host "g2.test"
	group "mtg"
	command "$T/bin/testhttp serve $P_G2 $T/g2.starts"
	port $P_G2
}
workload "mt-tcp" {
	command "$T/bin/testhttp echo $P_TCP $T/tcp.starts"
	port $P_TCP
	listen on 127.0.0.1 port $L_TCP
}
workload "mt-warm" {
	host "warm.test"
	command "$T/bin/testhttp serve $P_WARM $T/warm.starts"
	port $P_WARM
	keep warm
}
CONF
} >"$T/orchd.conf"
start_orchd_or_exit

ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
starts() { wc -l <"$T/$1.starts" | tr -d ' '; }
# get HOST [ACCEPT] [PATH]: the status; head and body in $T/r.*
get() {
	curl -sS -m 20 -H "Host: $1" ${2:+-H "Accept: $2"} \
	    -D "$T/r.head" -o "$T/r.body" -w '%{http_code}' \
	    "http://127.0.0.1:$GW${3:-/}" 2>/dev/null
}
api() {	# api METHOD PATH [BODY]: the status, body in $T/a.body
	curl -sS -m 20 -X "$1" -H "Authorization: Bearer $KEY" \
	    ${3:+-H 'Content-Type: application/json' --data-binary "$3"} \
	    -o "$T/a.body" -w '%{http_code}' "http://127.0.0.1:$API$2" \
	    2>/dev/null
}
retry() { tr -d '\r' <"$T/r.head" | sed -n 's/^Retry-After: //Ip'; }
state() {
	ctl -j show workload "$1" 2>/dev/null | python3 -c '
import json, sys
o = json.load(sys.stdin)
o = o[0] if isinstance(o, list) else o
print(o["state"])' 2>/dev/null
}
is_state() { [ "$(state "$1")" = "$2" ]; }

# --- on, while asleep: nothing wakes it
check "maintenance on" ctl maintenance mt-web on --message \
    'Restoring the database, back at 18:00'
check "... show workload says so" sh -c "$ORCHCTL -s $SOCK show workload \
    mt-web | grep -q '^maintenance: *yes: Restoring the database'"
check "... show workloads marks it" sh -c "$ORCHCTL -s $SOCK show \
    workloads | grep -q '^mt-web *asleep/maint'"
code=$(get web.test)
check "a request gets 503 ($code)" [ "$code" = 503 ]
check "... with Retry-After, the default ($(retry))" [ "$(retry)" = 300 ]
check "... and the message in the text" \
    grep -q '^in maintenance: Restoring the database, back at 18:00$' \
    "$T/r.body"
check "... never in a header" sh -c "! grep -qi 'Restoring' '$T/r.head'"
code=$(get web.test 'text/html')
check "a browser gets the page ($code)" grep -q \
    '<h1>503</h1><p>mt-web: in maintenance: Restoring the database' \
    "$T/r.body"
code=$(get web.test 'application/json')
check "an API client gets JSON ($code)" python3 -c "
import json
o = json.load(open('$T/r.body'))
assert o['workload'] == 'mt-web' and o['retry_after'] == 300, o
assert o['error'] == 'Service Unavailable', o
assert 'Restoring the database' in o['detail'], o
"
check "nothing started it" [ "$(starts web)" = 0 ]
check "orchctl wake is refused" sh -c "! $ORCHCTL -s $SOCK wake mt-web \
    2>$T/wake.err"
check "... saying why" grep -q 'in maintenance' "$T/wake.err"
check "... and still nothing started" [ "$(starts web)" = 0 ]
code=$(api POST /v1/workloads/mt-web/wake)
check "the API's wake is refused: 409 ($code)" [ "$code" = 409 ]
check "... saying why" grep -q 'in maintenance' "$T/a.body"
check "... still nothing started" [ "$(starts web)" = 0 ]
code=$(api GET /v1/workloads/mt-web)
check "the API shows it ($code)" python3 -c "
import json
o = json.load(open('$T/a.body'))
assert o['maintenance']['message'].startswith('Restoring'), o
assert o['maintenance']['until'] is None, o
"

# --- survives a restart of orchd
stop_orchd
check "orchd stopped" [ "$STATUS" = 0 ]
start_orchd_or_exit
code=$(get web.test)
check "after a restart: still 503 ($code)" [ "$code" = 503 ]
check "... with its message" grep -q 'Restoring the database' "$T/r.body"
check "... and nothing started it" [ "$(starts web)" = 0 ]

# --- off: the next request wakes it
check "maintenance off" ctl maintenance mt-web off
code=$(get web.test)
check "the next request wakes it ($code)" [ "$code" = 200 ]
check "... started once" [ "$(starts web)" = 1 ]
check "... show workload says no" sh -c "$ORCHCTL -s $SOCK show workload \
    mt-web | grep -q '^maintenance: *no'"

# --- a running one: suspended once its request in flight is answered
curl -sS -m 20 -H "Host: web.test" -o "$T/slow.body" -w '%{http_code}' \
    "http://127.0.0.1:$GW/slow?3000" >"$T/slow.code" 2>/dev/null &
SLOW=$!
sleep 1
code=$(api POST /v1/workloads/mt-web/maintenance \
    '{"enabled": true, "message": "upgrading"}')
check "the API turns it on while a request is in flight ($code)" \
    [ "$code" = 200 ]
check "... and says so" grep -q '"maintenance": *true' "$T/a.body"
code=$(get web.test)
check "a new request gets 503 at once ($code)" [ "$code" = 503 ]
check "... still running meanwhile" is_state mt-web running
wait "$SLOW"
check "the request in flight was answered ($(cat "$T/slow.code"))" \
    [ "$(cat "$T/slow.code")" = 200 ]
check "... then it was suspended" wait_for 10 is_state mt-web asleep
check "... and no start since" [ "$(starts web)" = 1 ]

# --- --until: it ends by itself
check "maintenance on for 3 s" ctl maintenance mt-web on --until 3s
code=$(get web.test)
r=$(retry)
check "503 ($code) with Retry-After its end ($r)" sh -c \
    "[ '$code' = 503 ] && [ '$r' -ge 1 ] && [ '$r' -le 3 ]"
ended() { [ "$(get web.test)" = 200 ]; }
check "... then it ended by itself and a request wakes it" \
    wait_for 10 ended
check "... started a second time" [ "$(starts web)" = 2 ]

# --- a TCP listener: closed at once, no wake
check "maintenance on mt-tcp" ctl maintenance mt-tcp on
t0=$(now_ms)
out=$(printf 'ping\n' | timeout 10 "$T/bin/testhttp" raw "$L_TCP" 5 2>&1)
t1=$(now_ms)
check "a TCP connection is closed unanswered ($out)" [ "$out" = closed ]
check "... at once ($((t1 - t0)) ms)" [ $((t1 - t0)) -lt 2000 ]
check "... nothing started" [ "$(starts tcp)" = 0 ]

# --- a dependency in maintenance: the dependent's wake fails naming it
check "maintenance on mt-db" ctl maintenance mt-db on
code=$(get app.test)
check "the dependent's request fails ($code)" [ "$code" = 503 ]
check "... naming the one in maintenance" \
    grep -q 'mt-db did not wake: it is in maintenance' "$T/r.body"
check "... nothing started" sh -c \
    "[ $(starts db) = 0 ] && [ $(starts app) = 0 ]"

# --- keep warm: stopped and kept down, then woken again once off
wait_for 10 is_state mt-warm running
check "maintenance on a kept-warm one" ctl maintenance mt-warm on
check "... it is suspended" wait_for 10 is_state mt-warm asleep
sleep 2
check "... and stays asleep" is_state mt-warm asleep
check "off: keep warm wakes it again" ctl maintenance mt-warm off
check "... running" wait_for 10 is_state mt-warm running

# --- a group, through orchctl and the API; its events
timeout 8 "$ORCHCTL" -s "$SOCK" monitor >"$T/monitor.out" 2>&1 &
MON=$!
curl -sS -N -m 8 -H "Authorization: Bearer $KEY" -o "$T/events.out" \
    "http://127.0.0.1:$API/v1/events" 2>/dev/null &
EVS=$!
sleep 1
check "group maintenance on" quiet ctl group mtg maintenance on \
    --message 'g down'
c1=$(get g1.test)
c2=$(get g2.test)
check "both members answer 503 ($c1 $c2)" sh -c \
    "[ $c1 = 503 ] && [ $c2 = 503 ]"
check "... nothing started" sh -c "[ $(starts g1) = 0 ] && [ $(starts g2) = 0 ]"
code=$(api GET /metrics)
check "/metrics: orchd_workload_maintenance 1 ($code)" grep -q \
    '^orchd_workload_maintenance{workload="mt-g1"} 1$' "$T/a.body"
check "... and 0 for one not in it" grep -q \
    '^orchd_workload_maintenance{workload="mt-web"} 0$' "$T/a.body"
code=$(api POST /v1/groups/mtg/maintenance '{"enabled": false}')
check "the API's group route turns it off ($code)" [ "$code" = 200 ]
check "... and the next request wakes a member" [ "$(get g1.test)" = 200 ]
wait "$MON" "$EVS"
check "orchctl monitor shows maintenance on" \
    grep -q ' mt-g2: maintenance on: g down$' "$T/monitor.out"
check "... and off" grep -q ' mt-g1: maintenance off$' "$T/monitor.out"
check "GET /v1/events shows it" grep -q \
    '"type": *"maintenance".*"workload": *"mt-g1".*"on": *true' \
    "$T/events.out"

e2e_done

