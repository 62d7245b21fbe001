#!/bin/sh
# What keeps a workload up and who woke it.  The busy veto: a workload
# whose busy path answers 200 outlives its idle timeout and is suspended
# once it answers 404; one that does not answer is suspended (fail-open),
# or kept with "busy fail safe"; busy max ends a veto that never ends.
# Wake attribution: the history keeps the request (host, method, path,
# client, User-Agent) or "orchctl" behind each wake, in text and JSON,
# and so does the API's history.  Events: orchctl monitor and GET
# /v1/events show a wake and a suspend as they happen; a reader that
# takes nothing is dropped and orchd stays responsive.  Every wait and
# every loop bounded.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports GW API P_BUSY P_SILENT P_SAFE P_CAPPED P_APP

KEY=0123456789abcdef0123456789abcdef$$
mkdir -p "$T/log" "$T/bin"
testhttp_bin
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
# what each workload's /busy answers; read by the workloads' own uids
busy_says() {	# busy_says NAME 200|404|hang
	echo "$2" >"$T/$1.busy"
	chmod 0644 "$T/$1.busy"
}
busy_says busy 200
busy_says silent hang
busy_says safe hang
busy_says capped 200

wl() {	# wl NAME PORT [LINE...]: a testhttp workload
	name=$1
	port=$2
	shift 2
	printf 'workload "%s" {\n' "$name"
	conf_end "host \"$name.test\"" \
	    "command \"$T/bin/testhttp serve $port\"" "port $port" \
	    "env \"TESTHTTP_BUSY=$T/$name.busy\"" "$@"
}

{
	conf_head
	cat <<CONF
idle timeout 1s
reaper interval 1s
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
CONF
	wl busy "$P_BUSY" 'busy path "/busy"'
	wl silent "$P_SILENT" 'busy path "/busy"'
	wl safe "$P_SAFE" 'busy path "/busy"' 'busy fail safe' 'busy max 6s'
	wl capped "$P_CAPPED" 'busy path "/busy"' 'busy max 3s'
	wl app "$P_APP" 'idle timeout 1h'
} >"$T/orchd.conf"

ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
get() {		# get HOST PATH [curl args...]
	h=$1
	p=$2
	shift 2
	curl -sS -m 30 -H "Host: $h" "$@" "http://127.0.0.1:$GW$p"
}
is_state() {	# is_state NAME STATE
	ctl show workloads | grep -Eq "^$1 +$2 "
}
logged() { grep -q "$1" "$T/orchd.log"; }

start_orchd_or_exit -v

# -- the busy veto

get busy.test / >/dev/null
t1=$(date +%s)
get silent.test / >/dev/null
get safe.test / >/dev/null
get capped.test / >/dev/null
check "a workload that says it is busy is kept past its idle timeout" \
    wait_for 10 logged "workload busy: idle but busy"
sleep 3
check "and still runs 3 s later, its idle timeout 1 s" is_state busy running
seen=$(ctl -j show workload busy | python3 -c 'import json, sys, time, calendar
w = json.load(sys.stdin)
print(calendar.timegm(time.strptime(w["last_seen"], "%Y-%m-%dT%H:%M:%SZ")))')
between() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }
# the gateway keeps it by the monotonic clock, the API gives it in wall
# seconds: a second's rounding either way
check "asking it is not use: its last request is still the one before $t1 ($seen)" \
    between "${seen:-0}" $((t1 - 30)) $((t1 + 1))
busy_says busy 404
check "once it answers 404, it is suspended" wait_for 10 is_state busy asleep
check "as idle" logged "workload busy: running -> suspending (idle)"

check "one that does not answer in 2 s is idle: suspended (fail-open)" \
    wait_for 15 is_state silent asleep
check "with busy fail safe, no answer is busy: kept" \
    logged "workload safe: idle but busy"
check "always busy, busy max 3s ends the veto" \
    wait_for 15 logged "workload capped: busy for longer than busy max 3s"
check "and it is suspended" wait_for 10 is_state capped asleep
check "busy fail safe, busy max 6s: suspended in the end too" \
    wait_for 15 is_state safe asleep
check "after its veto ran out" \
    logged "workload safe: busy for longer than busy max 6s"

# -- wake attribution

URL=http://127.0.0.1:$API
api() { curl -sS -m 30 -H "Authorization: Bearer $KEY" "$@"; }
get app.test '/hello?x=1' -A "events-test/1.0" >/dev/null
ctl show workload app >"$T/show.out"
check "the history says which request woke it" grep -q \
    'asleep *waking *request *by GET app.test/hello?x=1 from 127.0.0.1 "events-test/1.0"' \
    "$T/show.out"
ctl suspend app >/dev/null
ctl wake app >/dev/null
ctl show workload app >"$T/show.out"
check "and that orchctl woke it next" \
    grep -q 'asleep *waking *operator *by orchctl$' "$T/show.out"
ctl suspend app >/dev/null
api -X POST "$URL/v1/workloads/app/wake" >/dev/null
ctl -j show workload app >"$T/show.json"
causes=$(python3 -c 'import json, sys
w = json.load(open(sys.argv[1]))
print(" ".join((t["cause"] or {}).get("kind", "-") for t in w["history"]
    if t["to"] == "waking"))' "$T/show.json")
check "orchctl -j: a request, orchctl, the API ($causes)" \
    [ "$causes" = "request orchctl api" ]
agent=$(python3 -c 'import json, sys
w = json.load(open(sys.argv[1]))
c = [t for t in w["history"] if t["to"] == "waking"][0]["cause"]
print(c["method"], c["host"], c["path"], c["client"], c["agent"])' \
    "$T/show.json")
check "with the request's method, host, path, client, agent ($agent)" \
    [ "$agent" = "GET app.test /hello?x=1 127.0.0.1 events-test/1.0" ]
api "$URL/v1/workloads/app/history" >"$T/history.json"
causes=$(python3 -c 'import json, sys
h = json.load(open(sys.argv[1]))["history"]
print(" ".join(t.get("cause", {}).get("kind", "-") for t in h
    if t["to"] == "waking"))' "$T/history.json")
check "the API's history says the same ($causes)" \
    [ "$causes" = "request orchctl api" ]
check "the log says it too" \
    logged 'workload app: asleep -> waking (request) by GET app.test/hello?x=1 from 127.0.0.1 "events-test/1.0"'

# -- events: orchctl monitor and GET /v1/events, as it happens

# each started as itself, so that $! is its own pid
"$ORCHCTL" -s "$SOCK" monitor >"$T/monitor.out" 2>&1 &
MON=$!
"$ORCHCTL" -s "$SOCK" -j monitor >"$T/monitor.json" 2>&1 &
MONJ=$!
curl -sS -N -m 180 -H "Authorization: Bearer $KEY" "$URL/v1/events" \
    >"$T/events.out" 2>"$T/events.err" &
SSE=$!
check "GET /v1/events answers with a stream" \
    wait_for 10 grep -q '^retry:' "$T/events.out"
# the monitors say nothing when they start: a reload says they listen
subscribed() {
	ctl reload >/dev/null 2>&1
	grep -q 'reload: loaded' "$T/monitor.out" &&
	    grep -q '"type":"reload"' "$T/monitor.json"
}
check "orchctl monitor shows a reload" wait_for 10 subscribed
check "and so does the stream" grep -q '^event: reload' "$T/events.out"
ctl suspend app >/dev/null
get app.test /live -A "live/1" >/dev/null
in_stream() {	# in_stream FILE WORKLOAD TO
	grep -q "\"workload\":\"$2\",\"from\":\"[a-z]*\",\"to\":\"$3\"" "$1"
}
check "the wake is in the stream as it happens" \
    wait_for 10 in_stream "$T/events.out" app running
check "with its cause" grep -q \
    '"to":"waking","reason":"request","message":null,"cause":{"kind":"request","method":"GET","host":"app.test","path":"/live","client":"127.0.0.1","agent":"live/1"}' \
    "$T/events.out"
check "orchctl monitor shows it too" grep -q \
    'app: asleep -> waking (request) by GET app.test/live from 127.0.0.1 "live/1"' \
    "$T/monitor.out"
check "and its ready" \
    wait_for 10 grep -q 'app: waking -> running (ready)' "$T/monitor.out"
ctl suspend app >/dev/null
check "the suspend, in the stream" \
    wait_for 10 in_stream "$T/events.out" app asleep
check "in orchctl monitor" \
    grep -q 'app: running -> suspending (operator)' "$T/monitor.out"
check "as it ended" wait_for 10 \
    grep -q 'app: suspending -> asleep (operator)' "$T/monitor.out"
check "orchctl -j monitor: the same, a JSON object a line" \
    wait_for 10 in_stream "$T/monitor.json" app asleep
check "every line of it JSON" python3 -c 'import json, sys
for line in open(sys.argv[1]):
	json.loads(line)' "$T/monitor.json"
order=$(grep '"workload":"app"' "$T/events.out" | tail -n 4 |
    sed 's/.*"to":"\([a-z]*\)".*/\1/' | tr '\n' ' ')
check "the stream's events in order ($order)" \
    [ "$order" = "waking running suspending asleep " ]

# a reader that takes nothing, its receive buffer tiny: dropped, never
# waited for, while orchd goes on; and a monitor that stops reading
cat >"$T/slow.py" <<'PY'
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
s.connect(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"GET /v1/events HTTP/1.1\r\nHost: api\r\n"
    b"Authorization: Bearer " + sys.argv[2].encode() + b"\r\n\r\n")
time.sleep(int(sys.argv[3]))
PY
python3 "$T/slow.py" "$API" "$KEY" 150 &
SLOW=$!
monitors() { [ "$(grep -c 'control: connection .* monitors' "$T/orchd.log")" -ge "$1" ]; }
"$ORCHCTL" -s "$SOCK" monitor >/dev/null 2>&1 &
STOPPED=$!
check "a monitor that will stop reading listens first" wait_for 10 monitors 3
kill -STOP "$STOPPED"
long=$(printf '/%0250d' 0)
agent=$(printf 'agent-%0120d' 0)
n=0
t_end=$(($(date +%s) + 120))
while [ $n -lt 400 ] && [ "$(date +%s)" -lt "$t_end" ]; do
	n=$((n + 1))
	get app.test "$long" -A "$agent" >/dev/null 2>&1
	ctl suspend app >/dev/null 2>&1
	if logged "events stream dropped" &&
	    logged "control: a monitor left .* events unread: dropped"; then
		break
	fi
done
check "a stream that is not read is dropped ($n wakes and suspends)" \
    logged "api: events stream dropped: it reads too slowly"
check "so is a monitor that stops reading" \
    logged "control: a monitor left .* events unread: dropped"
check "and only they: the stream that keeps up is not dropped" \
    [ "$(grep -c 'events stream dropped' "$T/orchd.log")" -eq 1 ]
wakes=$(grep -c '"to":"waking"' "$T/events.out")
check "it has every wake ($wakes)" [ "$wakes" -ge $((n + 1)) ]
check "orchd answers orchctl" sh -c "ctl() { \"$ORCHCTL\" -s \"$SOCK\" \"\$@\"; };
    ctl show summary >/dev/null"
check "and requests" [ "$(get app.test /)" = "hello from testhttp" ]
kill -CONT "$STOPPED" 2>/dev/null
kill "$SLOW" "$STOPPED" "$MON" "$MONJ" "$SSE" 2>/dev/null
wait "$SLOW" "$STOPPED" "$MON" "$MONJ" "$SSE" 2>/dev/null

stop_orchd
ORCHD_PID=
e2e_done
