#!/bin/sh
# The freeze tier ("suspend freeze [for DURATION]", orchd-workload.7): an
# idle process workload is frozen by its cgroup's freezer rather than
# stopped (same pid, freezer state FROZEN, its memory kept: a counter in
# it goes on), a request thaws it and is served at once, a keep-alive
# connection held open across the freeze is served after the thaw, a
# TCP session straight to its port, used while it is frozen, is answered
# by the same process after the thaw, and
# after DURATION it is stopped; the memory budget stops a frozen one
# before an idle running one; orchctl, the API and /metrics say
# "frozen"; orchctl suspend stops a frozen one.  A docker workload is
# paused and unpaused (docker inspect State.Paused) where a docker daemon
# runs.  An orchd killed while workloads are frozen: the next start
# thaws and stops them (the process dies, the container is unpaused and
# stopped) and they are asleep.  Without a freezer (ORCHD_CGROUP=none)
# an idle workload is stopped, reason "no freezer", and the log says so
# once.  With ORCHD_CGROUP=v2 where cgroup2 is mounted beside v1, the
# same through v2's cgroup.freeze.  Loopback only, every wait bounded.
#
#	sh regress/e2e/freeze.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

if ! grep -q ' - cgroup2\? ' /proc/self/mountinfo; then
	skip "no cgroups mounted"
fi

port_base 31
ports GW API P_F P_A P_B P_C P_D
KEY=e2e-key-$$-0123456789abcdef
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
mkdir -p "$T/log" "$T/run"
chmod 1777 "$T/run"

# the app: its pid and a counter held in its memory, one per answer
cat >"$T/app.py" <<'EOF'
import http.server, os, sys
n = 0
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        global n
        n += 1
        b = ("pid=%d n=%d\n" % (os.getpid(), n)).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)
    def log_message(self, *a):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
EOF
chmod a+r "$T/app.py"
# a client that holds one keep-alive connection across freeze and thaw
cat >"$T/held.py" <<'EOF'
import http.client, os, sys, time
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=30)
def one():
    c.request("GET", "/", headers={"Host": "fzf.test"})
    return c.getresponse().read().decode().strip()
print("first", one(), flush=True)
for i in range(300):
    if os.path.exists(sys.argv[2]):
        break
    time.sleep(0.1)
print("second", one(), flush=True)
EOF

wl() {		# wl NAME PORT [LINE...]
	name=$1 wport=$2
	shift 2
	printf 'workload "%s" {\n\thost "%s.test"\n' "$name" "$name"
	printf '\tcommand "/usr/bin/python3 %s/app.py %s"\n\tport %s\n' \
	    "$T" "$wport" "$wport"
	conf_end "$@"
}
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
idle timeout 2s
reaper interval 1s
wake timeout 15s
memory budget 100M
memory estimate 40M
suspend freeze for 8s
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
CONF
wl fzf "$P_F" >>"$T/orchd.conf"
# the budget's three: a frozen, b idle and running, c wakes for room
wl fza "$P_A" "suspend freeze" >>"$T/orchd.conf"
wl fzb "$P_B" "idle timeout 5m" "suspend stop" >>"$T/orchd.conf"
wl fzc "$P_C" "idle timeout 5m" >>"$T/orchd.conf"
# a container, where a docker daemon runs
DOCKER=0
if have_docker; then
	DOCKER=1
	# a volume may not lie under orchd.conf's directory, $T
	WWW=$(mktemp -d /tmp/orchd-e2e-freeze-www.XXXXXX)
	echo "hello from a container" >"$WWW/index.html"
	chmod -R a+rX "$WWW"
	cat >>"$T/orchd.conf" <<CONF
workload "fzd" {
	host "fzd.test"
	driver docker
	image "orchd-test/busybox:latest"
	command "/bin/httpd -f -p 127.0.0.1:$P_D -h /www"
	network host
	volume "$WWW" "/www"
	port $P_D
	suspend freeze for 1m
}
CONF
	trap 'docker rm -f "$(cname fzd)" >/dev/null 2>&1; rm -rf "$WWW";
	    e2e_cleanup' EXIT
fi

ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
logged() { grep -q -- "$1" "$T/orchd.log"; }
is_state() { ctl show workloads 2>/dev/null | grep -Eq "^$1 +$2 "; }
get() { curl -sS -m 20 -H "Host: $1.test" "http://127.0.0.1:$GW/"; }
answers() { get "$1" | grep -q "$2"; }	# answers NAME REGEX
served_pid() { pgrep -f "app.py $1\$" | head -n 1; }
freezer_state() {	# freezer_state PID: v1 freezer.state or v2's frozen
	cg=$(sed -n 's/^[0-9]*:freezer://p' "/proc/$1/cgroup")
	if [ -n "$cg" ] && [ -f "/sys/fs/cgroup/freezer$cg/freezer.state" ]
	then
		cat "/sys/fs/cgroup/freezer$cg/freezer.state"
		return
	fi
	cg=$(sed -n 's/^0:://p' "/proc/$1/cgroup")
	m=$(grep ' - cgroup2 ' /proc/self/mountinfo | head -n 1 | cut -d' ' -f5)
	grep -q '^frozen 1' "$m$cg/cgroup.events" 2>/dev/null &&
	    echo FROZEN || echo THAWED
}
proc_state() { awk '/^State:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }
api_state() {
	curl -s -m 10 -H "Authorization: Bearer $KEY" \
	    "http://127.0.0.1:$API/v1/workloads/$1" |
	    python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])'
}
metric() {
	curl -s -m 10 -H "Authorization: Bearer $KEY" \
	    "http://127.0.0.1:$API/metrics" 2>/dev/null | grep -q "$1"
}

start_orchd_or_exit
if logged 'no cgroups'; then
	stop_orchd
	skip "cgroups mounted but not usable by orchd here"
fi

# 1. idle: frozen, not stopped
check "a request wakes fzf" answers fzf 'n=1$'
pid=$(served_pid "$P_F")
# a keep-alive connection, held open across the freeze and the thaw
python3 "$T/held.py" "$GW" "$T/go" >"$T/held.out" 2>&1 &
HELD=$!
check "held: its first answer" wait_for 5 grep -q '^first' "$T/held.out"
# and a TCP session straight to the workload's port, not through orchd
python3 "$T/held.py" "$P_F" "$T/go2" >"$T/direct.out" 2>&1 &
DIRECT=$!
check "direct: its first answer" wait_for 5 grep -q '^first' "$T/direct.out"
check "fzf is frozen after its idle timeout" wait_for 15 is_state fzf frozen
check "same pid, its cgroup's freezer says FROZEN" \
    test "$(freezer_state "$pid")" = FROZEN
check "the API says frozen" test "$(api_state fzf)" = frozen
check "/metrics says frozen" \
    metric "orchd_workload_state{workload=\"fzf\".*state=\"frozen\"} 1"
not() { ! "$@"; }
in_history() { ctl show workload "$1" 2>/dev/null | grep -Eq "$2"; }
check "the history says running -> frozen (idle)" \
    in_history fzf ' frozen +idle'
# a request on the direct session while frozen: the kernel takes it,
# the frozen process answers nothing
touch "$T/go2"
sleep 1
check "direct: no answer while frozen" not grep -q '^second' "$T/direct.out"
check "a request thaws it and is served by the same process, its counter kept" \
    answers fzf "^pid=$pid n=[45]\$"
check "direct: the session survived the thaw, answered by the same pid" \
    wait_for 10 grep -q "^second pid=$pid n=[45]" "$T/direct.out"
wait "$DIRECT"
check "running again" is_state fzf running
touch "$T/go"
wait "$HELD"
check "the held keep-alive connection was served before and after" \
    sh -c "grep -q '^first pid=$pid n=2' '$T/held.out' &&
    grep -q '^second pid=$pid n=[0-9]*' '$T/held.out'"
check "frozen again" wait_for 15 is_state fzf frozen
check "stopped after its 8s frozen" wait_for 20 is_state fzf asleep
check "its process is gone" wait_for 5 dead "$pid"

# 2. the budget: the frozen one goes before the idle running one
check "wake fzb" answers fzb 'n=1'
sleep 1
check "wake fza" answers fza 'n=1'
check "fza frozen" wait_for 15 is_state fza frozen
check "fzb runs on, idle (suspend stop, 5m)" is_state fzb running
check "wake fzc: room is made" answers fzc 'n=1'
check "by stopping the frozen fza" is_state fza asleep
check "not the least recently used, idle, running fzb" is_state fzb running
check "the log says why" logged 'workload fza: suspending it for room'

# 3. a container: docker pause, docker unpause
paused() {
	[ "$(docker inspect -f '{{.State.Paused}}' "$(cname fzd)" \
	    2>/dev/null)" = "$1" ]
}
dstate() {	# dstate "PAUSED RUNNING"
	[ "$(docker inspect -f '{{.State.Paused}} {{.State.Running}}' \
	    "$(cname fzd)" 2>/dev/null)" = "$1" ]
}
cid() { docker inspect -f '{{.Id}}' "$(cname fzd)" 2>/dev/null; }
dget() { curl -s -m 30 -H "Host: fzd.test" "http://127.0.0.1:$GW/"; }
if [ "$DOCKER" = 1 ]; then
	check "a request wakes the container fzd" \
	    sh -c "curl -s -m 30 -H 'Host: fzd.test' http://127.0.0.1:$GW/ |
	    grep -q 'hello from a container'"
	id=$(cid)
	check "fzd is frozen after its idle timeout" \
	    wait_for 15 is_state fzd frozen
	check "docker inspect: State.Paused true" paused true
	check "a request thaws it, served" \
	    sh -c "curl -s -m 30 -H 'Host: fzd.test' http://127.0.0.1:$GW/ |
	    grep -q 'hello from a container'"
	check "the same container, State.Paused false" \
	    sh -c "[ \"$id\" = \"\$(docker inspect -f '{{.Id}}' $(cname fzd))\" ]"
	check "unpaused" paused false
	check "frozen again" wait_for 15 is_state fzd frozen
	check "orchctl suspend stops a frozen container (unpaused first)" \
	    quiet ctl suspend fzd
	check "asleep" wait_for 30 is_state fzd asleep
	check "its container unpaused and stopped" dstate 'false false'
else
	echo "# no docker daemon: the container part is skipped"
fi

# 4. orchctl suspend of a frozen process stops it
check "wake fza" answers fza 'n=1'
check "fza frozen again" wait_for 15 is_state fza frozen
check "orchctl suspend fza" quiet ctl suspend fza
check "fza asleep" is_state fza asleep

# 5. orchd dies while workloads are frozen: at the next start they are
# thawed and stopped, not adopted (orchd-workload.7, The freeze tier)
check "wake fzf" answers fzf 'n=1'
pid=$(served_pid "$P_F")
check "fzf frozen" wait_for 15 is_state fzf frozen
if [ "$DOCKER" = 1 ]; then
	check "wake fzd" sh -c "curl -s -m 30 -H 'Host: fzd.test' \
	    http://127.0.0.1:$GW/ | grep -q 'hello from a container'"
	check "fzd frozen" wait_for 15 is_state fzd frozen
	check "its container paused" paused true
fi
old=$ORCHD_PID
kill -KILL "$old"
wait "$old" 2>/dev/null
check "the frozen process outlives an orchd killed with SIGKILL, frozen" \
    test "$(freezer_state "$pid")" = FROZEN
start_orchd_or_exit
check "the next orchd thaws and kills it" wait_for 10 dead "$pid"
check "fzf is asleep after the restart" wait_for 10 is_state fzf asleep
if [ "$DOCKER" = 1 ]; then
	check "the paused container is thawed and stopped" \
	    wait_for 30 dstate 'false false'
	check "and the log says so" logged 'found paused: thawed and stopped'
	check "fzd asleep" wait_for 10 is_state fzd asleep
	check "a request wakes it again" sh -c "curl -s -m 30 \
	    -H 'Host: fzd.test' http://127.0.0.1:$GW/ |
	    grep -q 'hello from a container'"
fi
check "a request wakes fzf afresh" answers fzf 'n=1$'

# 6. a host without a freezer (ORCHD_CGROUP=none): stopped instead,
# said once
stop_orchd
ORCHD_CGROUP=none
export ORCHD_CGROUP
start_orchd_or_exit
check "wake fzf" answers fzf 'n=1$'
check "idle, it is stopped, not frozen" wait_for 15 is_state fzf asleep
check "with reason no freezer" in_history fzf 'frozen +suspending +no freezer'
check "wake fzf again" answers fzf 'n=1$'
check "stopped again" wait_for 15 is_state fzf asleep
check "the log says so once" \
    test "$(grep -c 'could not be frozen' "$T/orchd.log")" -eq 1
unset ORCHD_CGROUP
stop_orchd

# 7. v2's cgroup.freeze, where cgroup2 is mounted beside v1
if grep -q 'cgroups under .* (v1' "$T/orchd.log" &&
    grep -q ' - cgroup2 ' /proc/self/mountinfo; then
	ORCHD_CGROUP=v2
	export ORCHD_CGROUP
	start_orchd_or_exit
	check "ORCHD_CGROUP=v2 is used" logged 'in cgroups under .* (v2'
	check "wake fzf" answers fzf 'n=1$'
	pid=$(served_pid "$P_F")
	check "v2: fzf frozen" wait_for 15 is_state fzf frozen
	check "v2: its cgroup.events says frozen 1" \
	    test "$(freezer_state "$pid")" = FROZEN
	check "v2: a request thaws it, the same process answers" \
	    answers fzf "^pid=$pid n=2\$"
	check "v2: cgroup.events says frozen 0" \
	    test "$(freezer_state "$pid")" = THAWED
	stop_orchd
	unset ORCHD_CGROUP
fi

e2e_done
