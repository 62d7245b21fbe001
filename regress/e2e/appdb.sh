#!/bin/sh
# An app and its database: the test backend as an HTTP app that
# "depends on" a real Redis, a process workload behind a TCP listener of
# its own ("listen on", no host).  Ten requests at once to the sleeping
# app wake the database first, then the app, which starts only once
# Redis answers on its own port: one start each.  The app's handler
# reaches Redis through the listener, and Redis keeps what it is given
# between requests.  The database outlives its own idle timeout while
# the app runs, then sleeps by it, counted from the app's sleep.
# redis-cli through the listener wakes the database alone.  A cycle
# between two TCP workloads fails orchd -n at its line.  Skipped only
# where Redis is not installed (tools/deps.sh installs it).  Every wait
# bounded.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

REDIS_SERVER=$(command -v redis-server)
REDIS_CLI=$(command -v redis-cli)
if [ -z "$REDIS_SERVER" ] || [ -z "$REDIS_CLI" ]; then
	skip "Redis (redis-server, redis-cli) is not installed"
fi

ports GW API P_RD L_RD P_APP
DB_IDLE=4
APP_IDLE=9

mkdir -p "$T/log" "$T/bin"
cp "$BUILD/regress/testhttp" "$T/bin/testhttp"
# the database: says when it starts; no dump, so each start is empty
cat >"$T/bin/redis.sh" <<EOF
#!/bin/sh
echo "db start" >>"$T/order"
exec $REDIS_SERVER --port $P_RD --bind 127.0.0.1 --save '' --appendonly no
EOF
# the app: says whether Redis answered on its own port when it started
# (not through the listener, which would wake it)
cat >"$T/bin/app.sh" <<EOF
#!/bin/sh
if [ "\$($REDIS_CLI -h 127.0.0.1 -p $P_RD ping 2>/dev/null)" = PONG ]; then
	echo "app start, db up" >>"$T/order"
else
	echo "app start, db down" >>"$T/order"
fi
exec $T/bin/testhttp serve $P_APP $T/app.starts
EOF
: >"$T/order"
: >"$T/app.starts"
chmod 0755 "$T/bin" "$T/bin/testhttp" "$T/bin/redis.sh" "$T/bin/app.sh"
chmod 0666 "$T/order" "$T/app.starts"

{
	conf_head
	cat <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api metrics public
reaper interval 1s
wake timeout 20s

workload "ad-app" {
	host "app.test"
	depends on "ad-redis"
	command "$T/bin/app.sh"
	port $P_APP
	idle timeout ${APP_IDLE}s
}
workload "ad-redis" {
	listen on 127.0.0.1 port $L_RD
	command "$T/bin/redis.sh"
	port $P_RD
	idle timeout ${DB_IDLE}s
}
CONF
} >"$T/orchd.conf"

ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
is_state() {	# is_state NAME STATE
	ctl show workloads | grep -Eq "^$1 +$2 "
}
lines() { wc -l <"$1" | tr -d ' '; }
db_starts() { grep -c '^db start$' "$T/order"; }
ask() {		# ask LINE: the app's handler sends it to Redis
	curl -sS -m 60 -H 'Host: app.test' --data-binary "$1" \
	    "http://127.0.0.1:$GW/tcp?$L_RD" | tr -d '\r'
}
# when (epoch seconds) NAME last went from state FROM to TO, from the store
went() {	# went NAME FROM TO
	ctl -j show workload "$1" | python3 -c 'import json, sys, datetime
h = json.load(sys.stdin)["history"]
t = [x["time"] for x in h
    if x["from"] == sys.argv[1] and x["to"] == sys.argv[2]]
if not t:
	print(0)
	sys.exit(0)
d = datetime.datetime.fromisoformat(t[-1].replace("Z", "+00:00"))
print(int(d.timestamp()))' "$2" "$3"
}

start_orchd_or_exit

check "both asleep at start" sh -c "$ORCHCTL -s $SOCK show workloads |
    grep -Eq '^ad-app +asleep ' && $ORCHCTL -s $SOCK show workloads |
    grep -Eq '^ad-redis +asleep '"

# ten requests at once to the sleeping app, each asking Redis
HEAD=$(printf 'POST /tcp?%s HTTP/1.1\r\nHost: app.test\r\nContent-Length: 4\r\nConnection: close\r\n\r\nPINGx' "$L_RD")
HEAD=${HEAD%x}
"$T/bin/testhttp" burst "$GW" 10 60 "$HEAD" >"$T/burst.out"
n200=$(grep -c '^200 ' "$T/burst.out")
check "10 requests at once to the sleeping app: all 200 ($n200)" \
    [ "$n200" -eq 10 ]
check "one start of the app ($(lines "$T/app.starts"))" \
    [ "$(lines "$T/app.starts")" -eq 1 ]
check "one start of the database ($(db_starts))" [ "$(db_starts)" -eq 1 ]
check "the database first, answering before the app started: \
$(tr '\n' ';' <"$T/order")" \
    [ "$(cat "$T/order")" = "db start
app start, db up" ]
ctl -j show workload ad-redis >"$T/db.json"
check "the database's history says it woke for the app" python3 -c '
import json, sys
h = json.load(open(sys.argv[1]))["history"]
sys.exit(not any(x["to"] == "waking" and x["reason"] == "dependency" and
    x["message"] == "for ad-app" for x in h))' "$T/db.json"

# the handler reaches Redis through its listener
out=$(ask PING)
check "the app's handler asks Redis through its TCP listener: $out" \
    [ "$out" = +PONG ]
out1=$(ask 'INCR hits')
out2=$(ask 'INCR hits')
check "and Redis keeps what it is given between requests: $out1 $out2" \
    sh -c "[ '$out1' = :1 ] && [ '$out2' = :2 ]"
curl -sS -m 30 -o "$T/metrics" "http://127.0.0.1:$API/metrics"
acc=$(awk 'index($0, "orchd_tcp_connections_total{workload=\"ad-redis\"} ") == 1 {
    print $2 }' "$T/metrics")
check "/metrics counts the handler's connections to the listener ($acc)" \
    [ "${acc:-0}" -ge 13 ]

# the database outlives its idle timeout under the running app, then
# sleeps by it, counted from the app's sleep, not from its own last use
sleep $((DB_IDLE + 2))
check "past its own idle timeout, the database runs while the app does" \
    is_state ad-redis running
check "the app sleeps after its idle timeout" \
    wait_for $((APP_IDLE + 10)) is_state ad-app asleep
check "then the database, by its own" \
    wait_for $((DB_IDLE + 10)) is_state ad-redis asleep
t_app=$(went ad-app suspending asleep)
t_db=$(went ad-redis running suspending)
check "counted from the app's sleep: $((t_db - t_app)) s >= $((DB_IDLE - 1))" \
    [ "$t_app" -gt 0 -a $((t_db - t_app)) -ge $((DB_IDLE - 1)) ]

# a client of the database's own wakes it alone
out=$("$REDIS_CLI" -h 127.0.0.1 -p "$L_RD" ping 2>&1)
check "redis-cli through the listener wakes the database: $out" \
    [ "$out" = PONG ]
check "... alone: the app sleeps on" is_state ad-app asleep
check "a second start of the database, none of the app" \
    [ "$(db_starts)" -eq 2 -a "$(lines "$T/app.starts")" -eq 1 ]
check "its history says the listener woke it" sh -c "\"$ORCHCTL\" -s \
    \"$SOCK\" show workload ad-redis | grep -q 'by TCP 127.0.0.1:$L_RD from'"
check "asleep again by its own idle timeout" \
    wait_for $((DB_IDLE + 10)) is_state ad-redis asleep
stop_orchd
st=$STATUS
check "orchd stops cleanly (status $st)" [ "$st" -eq 0 ]
ORCHD_PID=

# orchd -n: a cycle between two TCP workloads, at the line closing it
cat >"$T/cycle.conf" <<CONF
workload "a" {
	listen on 127.0.0.1 port $L_RD
	command "/bin/true"
	port $P_RD
	depends on "b"
}
workload "b" {
	listen on 127.0.0.1 port $GW
	command "/bin/true"
	depends on "a"
	port $P_APP
}
CONF
out=$("$ORCHD" -n -f "$T/cycle.conf" 2>&1)
rc=$?
check "orchd -n refuses a cycle ($rc)" [ "$rc" -ne 0 ]
check "at its line: $out" sh -c "echo \"\$1\" | grep -q \
    'cycle.conf:10: workload \"b\": depends on \"a\": a cycle: a -> b -> a'" \
    sh "$out"

e2e_done
