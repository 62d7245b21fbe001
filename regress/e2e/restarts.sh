#!/bin/sh
# Keep warm means kept running (issue 17), with process workloads:
#  - a workload kept warm whose process is killed runs again after about
#    1 s; killed 4 times, its restart delays grow (1 s, 2 s, 4 s, 8 s, in
#    the log and the history's times), each restart in the history and
#    counted in /metrics;
#  - a workload whose start always fails: the 4th request inside a
#    minute gets 503 at once with Retry-After, and no start happens;
#    orchctl show workloads, its JSON, the API and /metrics show the
#    backoff; once it is over a request tries again, and the next
#    backoff is twice as long; orchctl wake and the API's wake force an
#    attempt;
#  - one kept warm that always fails stops being restarted in backoff,
#    and is restarted once it is over;
#  - liveness: one kept warm that stops answering its health path (its
#    process stopped: the kernel still accepts) is found unhealthy after
#    health failures x health interval and restarted; one not kept warm
#    is suspended, and the next request wakes it; the checks are no
#    activity: a workload checked every second is still suspended when
#    idle;
#  - a process workload killed for memory in its cgroup (memory 32M,
#    where the host has a memory cgroup) is recorded as oom.
# Loopback only, every wait bounded; the 30 s backoff is waited out.
#
#	sh regress/e2e/restarts.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

port_base 13
ports GW API P_KW P_CRASH P_KWCRASH P_HANG P_SICK P_QUIET P_HOG
KEY=e2e-key-$$-0123456789abcdef

# the workloads run as uids of their own: programs readable, run/
# writable by any (sticky, as /tmp)
mkdir -p "$T/log" "$T/bin" "$T/run"
chmod 1777 "$T/run"
testhttp_bin
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
# starts and fails at once, each start a line
cat >"$T/bin/crash.sh" <<EOF
#!/bin/sh
echo start >>"$T/run/\$1.starts"
echo "crashing at start"
exit 3
EOF
chmod 0755 "$T/bin/crash.sh"
# listens, then takes far more memory than its limit
cat >"$T/bin/hog.py" <<EOF
import socket, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", $P_HOG))
s.listen(5)
time.sleep(1)
b = bytearray(512 << 20)
time.sleep(30)
EOF
chmod 0644 "$T/bin/hog.py"
# a memory cgroup for the workloads: v1's memory or v2's with +memory
MEMCG=
if grep -q ' - cgroup cgroup [^ ]*memory' /proc/self/mountinfo ||
    grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	MEMCG=yes
fi

conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
wake timeout 10s
reaper interval 1s

workload "kw" {
	host "kw.test"
	command "$T/bin/testhttp serve $P_KW $T/run/kw.starts"
	port $P_KW
	keep warm
}

workload "crash" {
	host "crash.test"
	command "$T/bin/crash.sh crash"
	port $P_CRASH
}

workload "kwcrash" {
	host "kwcrash.test"
	command "$T/bin/crash.sh kwcrash"
	port $P_KWCRASH
	keep warm
}

workload "hang" {
	host "hang.test"
	command "$T/bin/testhttp serve $P_HANG"
	port $P_HANG
	keep warm
	health path "/up"
	health interval 1s
	health timeout 1s
	health failures 3
	stop timeout 1s
}

workload "sick" {
	host "sick.test"
	command "$T/bin/testhttp serve $P_SICK"
	port $P_SICK
	health path "/up"
	health interval 1s
	health failures 2
	stop timeout 1s
}

workload "quiet" {
	host "quiet.test"
	command "$T/bin/testhttp serve $P_QUIET '' $T/run/quiet.requests"
	port $P_QUIET
	health path "/probe"
	health interval 1s
	idle timeout 3s
}

workload "hog" {
	host "hog.test"
	command "/usr/bin/python3 $T/bin/hog.py"
	port $P_HOG
	memory 32M
}
CONF

# ctl ARGS...: orchctl's status in $rc, stdout in $T/out
ctl() {
	"$ORCHCTL" -s "$SOCK" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	return $rc
}
lines() { [ -f "$1" ] && wc -l <"$1" | tr -d ' ' || echo 0; }
starts() { lines "$T/run/$1.starts"; }
starts_are() { [ "$(starts "$1")" -eq "$2" ]; }
# the pid listening for a testhttp workload: the oldest of its processes
pid_of() { pgrep -o -f "testhttp serve $1( |\$)"; }
listed_as() {	# listed_as NAME STATE: in orchctl show workloads
	ctl show workloads && grep -Eq "^$1 +$2 " "$T/out"
}
# runs_again NAME PORT OLDPID: running, by a process that is not OLDPID
runs_again() {
	p=$(pid_of "$2") && [ "$p" != "$3" ] && listed_as "$1" running
}
code() {	# code CURL-ARGS...: the status alone
	curl -s -m 30 -o /dev/null -w '%{http_code}' "$@"
}
metric() {	# metric NAME-AND-LABELS: its value in a fresh /metrics
	curl -sS -m 30 -H "Authorization: Bearer $KEY" -o "$T/metrics" \
	    "http://127.0.0.1:$API/metrics"
	awk -v m="$1" 'index($0, m " ") == 1 { print $2 }' "$T/metrics"
}
between() {	# between N LOW HIGH, integers
	[ -n "$1" ] && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]
}
RFC3339='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z'
backoff_json() {	# backoff_json NAME: -j show workload has a backoff end
	ctl -j show workload "$1" &&
	    grep -Eq "\"backoff_until\": \"$RFC3339\"" "$T/out"
}
no_backoff_json() {
	ctl -j show workload "$1" && grep -q '"backoff_until": null' "$T/out"
}
retry_after() {	# retry_after HEADERS-FILE: its Retry-After, a number
	tr -d '\r' <"$1" | awk 'tolower($1) == "retry-after:" { print $2 }'
}
epoch() { date -u -d "$(echo "$1" | sed 's/T/ /; s/Z$//')" +%s; }

check "orchd -n accepts the configuration" "$ORCHD" -n -f "$T/orchd.conf"
start_orchd_or_exit
check "kw, kept warm, runs" wait_for 15 listed_as kw running

# 1. a start that always fails: three failed wakes within a minute
for i in 1 2 3; do
	c=$(code -H 'Host: crash.test' "http://127.0.0.1:$GW/")
	check "crash: request $i gets 503 ($c)" [ "$c" = 503 ]
done
check "three starts ($(starts crash))" starts_are crash 3
t0=$(now_ms)
curl -s -m 30 -D "$T/h4" -o /dev/null -H 'Host: crash.test' \
    "http://127.0.0.1:$GW/"
t=$(($(now_ms) - t0))
check "the 4th request gets 503" grep -q '^HTTP/1.1 503' "$T/h4"
check "at once (${t} ms)" [ "$t" -lt 1000 ]
ra=$(retry_after "$T/h4")
check "with Retry-After the backoff left ($ra s of 30)" between "$ra" 1 30
sleep 1
check "and no start happened ($(starts crash))" starts_are crash 3
check "the log says it is in a crash loop" grep -q \
    'workload crash: crash loop: in backoff for 30s' "$T/orchd.log"
check "show workloads shows the backoff left" sh -c "
    \"$ORCHCTL\" -s \"$SOCK\" show workloads |
    grep -Eq '^crash +failed +process +[^ ]+ +no +[0-9a-z]+ +.* +[0-9]+s +crash.test +'"
check "show workload shows its end" sh -c "
    \"$ORCHCTL\" -s \"$SOCK\" show workload crash |
    grep -Eq '^backoff: +until $RFC3339 \([0-9]+s left\)$'"
check "-j show workload: backoff_until" backoff_json crash
check "-j show workload kw: backoff_until null" no_backoff_json kw
curl -s -m 10 -H "Authorization: Bearer $KEY" -o "$T/api.json" \
    "http://127.0.0.1:$API/v1/workloads/crash"
check "the API says backoff_until" \
    grep -Eq "\"backoff_until\": *\"$RFC3339\"" "$T/api.json"
m=$(metric 'orchd_workload_backoff_seconds{workload="crash"}')
check "/metrics: orchd_workload_backoff_seconds ($m)" between "$m" 1 30
m=$(metric 'orchd_wake_failures_total{workload="crash"}')
check "/metrics: 3 wake failures ($m)" [ "$m" = 3 ]

# 2. kept warm and always failing: 1 s, 2 s, then the backoff stops it
check "kwcrash: three starts" wait_for 15 starts_are kwcrash 3
sleep 2
check "no fourth while in backoff ($(starts kwcrash))" starts_are kwcrash 3
check "kwcrash is in backoff too" backoff_json kwcrash

# 3. kill kw four times: running again each time, later each time
for i in 1 2 3 4; do
	pid=$(pid_of "$P_KW")
	if [ -z "$pid" ]; then
		fail "kw: no process to kill"
		break
	fi
	kill -KILL "$pid"
	check "kw: killed ($i), running again" \
	    wait_for 20 runs_again kw "$P_KW" "$pid"
done
check "kw: five starts in all ($(starts kw))" starts_are kw 5
delays=$(grep -o 'workload kw: kept warm, restart in [0-9a-z]*' \
    "$T/orchd.log" | awk '{ print $NF }' | tr '\n' ' ')
check "the restart delays grow: 1 s, 2 s, 4 s, 8 s ($delays)" \
    [ "$delays" = "1s 2s 4s 8s " ]
ctl show workload kw
check "each exit in the history, with its signal" sh -c "[ \$(grep -Ec \
    '^$RFC3339 +running +failed +exited +killed by signal 9$' \
    '$T/out') -eq 4 ]"
check "each restart in the history, with its delay" sh -c "
    grep -Eq '^$RFC3339 +failed +waking +restart +after 1s$' '$T/out' &&
    grep -Eq '^$RFC3339 +failed +waking +restart +after 8s$' '$T/out'"
# the history's times: from each exit to its restart, in whole seconds
awk '$2 == "running" && $3 == "failed" { f = $1 }
    $2 == "failed" && $3 == "waking" && $4 == "restart" { print f, $1 }' \
    "$T/out" >"$T/kw.pairs"
d=
while read -r a b; do
	d="$d $(($(epoch "$b") - $(epoch "$a")))"
done <"$T/kw.pairs"
set -- $d
check "the history's times: the delays grow ($d)" \
    [ $# -eq 4 ] && [ "$1" -le 3 ] && [ "$1" -le "$2" ] &&
    [ "$2" -le "$3" ] && [ "$3" -le "$4" ] && [ "$4" -ge 6 ]
m=$(metric 'orchd_workload_restarts_total{workload="kw"}')
check "/metrics: 4 restarts of kw ($m)" [ "$m" = 4 ]

# 4. liveness: kept warm, it stops answering; restarted
check "hang runs" wait_for 15 listed_as hang running
pid=$(pid_of "$P_HANG")
kill -STOP "$pid"
t0=$(now_ms)
check "hang: stopped answering, found unhealthy" wait_for 20 grep -q \
    'workload hang: running -> suspending (unhealthy' "$T/orchd.log"
t=$(($(now_ms) - t0))
check "after about health failures x health interval, 3 s (${t} ms)" \
    [ "$t" -ge 2000 ] && [ "$t" -lt 15000 ]
check "and runs again, another process" \
    wait_for 20 runs_again hang "$P_HANG" "$pid"
check "the stopped one is gone" wait_gone "$pid" 10
ctl show workload hang
check "the history says why: unhealthy, no answer in time" grep -Eq \
    "^$RFC3339 +running +suspending +unhealthy +3 health checks failed: no answer in 900 ms$" \
    "$T/out"
check "then a restart" \
    grep -Eq "^$RFC3339 +asleep +waking +restart +after 1s$" "$T/out"
grep -q 'health check failed (1 of 3)' "$T/orchd.log"
check "each failed check is logged" \
    grep -q 'workload hang: health check failed (3 of 3)' "$T/orchd.log"

# not kept warm: suspended, and the next request wakes it
c=$(code -H 'Host: sick.test' "http://127.0.0.1:$GW/")
check "sick: a request wakes it ($c)" [ "$c" = 200 ]
pid=$(pid_of "$P_SICK")
kill -STOP "$pid"
check "it stops answering: suspended" wait_for 20 listed_as sick asleep
check "its process is gone" wait_gone "$pid" 10
ctl show workload sick
check "the history says why" grep -Eq \
    "^$RFC3339 +running +suspending +unhealthy +2 health checks failed: " \
    "$T/out"
check "asleep, as unhealthy" \
    grep -Eq "^$RFC3339 +suspending +asleep +unhealthy" "$T/out"
sleep 2
check "not kept warm: not restarted" [ -z "$(pid_of "$P_SICK")" ]
c=$(code -H 'Host: sick.test' "http://127.0.0.1:$GW/")
check "the next request wakes it ($c)" [ "$c" = 200 ]

# the checks are not activity: checked every second, idle, suspended
c=$(code -H 'Host: quiet.test' "http://127.0.0.1:$GW/")
check "quiet: a request wakes it ($c)" [ "$c" = 200 ]
check "idle 3 s, it is suspended all the same" \
    wait_for 20 listed_as quiet asleep
ctl show workload quiet
check "by the reaper: idle" \
    grep -Eq "^$RFC3339 +running +suspending +idle" "$T/out"
n=$(grep -c '^GET /probe$' "$T/run/quiet.requests")
check "while it was checked meanwhile ($n checks)" [ "$n" -ge 2 ]

# killed for memory: the history says oom
if [ -n "$MEMCG" ] && [ "${ORCHD_CGROUP:-}" != none ] &&
    ! grep -q "no cgroups" "$T/orchd.log"; then
	check "hog: orchctl wake starts it" ctl wake hog
	check "it takes too much memory: failed" \
	    wait_for 20 listed_as hog failed
	ctl show workload hog
	check "the history says oom, and the signal" grep -Eq \
	    "^$RFC3339 +running +failed +oom +killed by signal 9, out of memory$" \
	    "$T/out"
	check "so does the log" grep -q \
	    'workload hog: pid [0-9]* killed by signal 9, out of memory' \
	    "$T/orchd.log"
	ctl -j show workload hog
	check "and the JSON: reason oom" grep -q '"reason": "oom"' "$T/out"
else
	echo "# no memory cgroup orchd can use: the oom case skipped"
fi

# 5. the backoff over, a request tries again, and the next is longer
check "crash: the backoff ends" wait_for 40 no_backoff_json crash
sleep 1		# the gateway's own count ends within the same second
curl -s -m 30 -D "$T/h5" -o /dev/null -H 'Host: crash.test' \
    "http://127.0.0.1:$GW/"
check "a request then starts it again ($(starts crash))" \
    starts_are crash 4
check "it fails: 503" grep -q '^HTTP/1.1 503' "$T/h5"
ra=$(retry_after "$T/h5")
check "and backs off again, twice as long ($ra s of 60)" \
    between "$ra" 31 60
c=$(code -H 'Host: crash.test' "http://127.0.0.1:$GW/")
check "a request now: 503 ($c), no start ($(starts crash))" \
    sh -c "[ '$c' = 503 ] && [ $(starts crash) -eq 4 ]"
ctl wake crash
check "orchctl wake forces an attempt: it fails (exit $rc)" [ "$rc" -ne 0 ]
check "with the reason ($(cat "$T/err"))" \
    grep -q 'crash failed: exited with status 3' "$T/err"
check "one start more ($(starts crash))" starts_are crash 5
c=$(code -X POST -H "Authorization: Bearer $KEY" \
    "http://127.0.0.1:$API/v1/workloads/crash/wake")
check "the API's wake forces one too: 503 ($c)" [ "$c" = 503 ]
check "one start more ($(starts crash))" starts_are crash 6
c=$(code -H 'Host: crash.test' "http://127.0.0.1:$GW/")
check "a request still gets 503 ($c), no start ($(starts crash))" \
    sh -c "[ '$c' = 503 ] && [ $(starts crash) -eq 6 ]"

# 6. kwcrash: its backoff over, kept warm, it is restarted
check "kwcrash is restarted after its backoff" \
    wait_for 40 starts_are kwcrash 4
ctl show workload kwcrash
check "by a restart, in its history" \
    grep -Eq "^$RFC3339 +failed +waking +restart +after 3[0-9]s$" "$T/out"

stop_orchd
check "SIGTERM: orchd exits 0 ($STATUS)" [ "$STATUS" -eq 0 ]
e2e_done
