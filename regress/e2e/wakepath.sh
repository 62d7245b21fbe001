#!/bin/sh
# The v1 wake path (issue 33): a process workload's new process joins its
# freezer and memory cgroups by v1's tasks files, moving its one thread,
# not by cgroup.procs.  What must hold: every thread and every process
# the workload makes afterwards is in both cgroups (a Python program
# that starts threads, forks a child that starts threads of its own, and
# a grandchild that leaves the session with setsid), in each hierarchy;
# a suspend leaves none of them; a wake still answers the held request,
# woken again and again.  On a host
# without v1 hierarchies this checks the v2 cgroup alike.  Loopback only,
# every wait bounded.
#
#	sh regress/e2e/wakepath.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

if ! grep -q ' - cgroup2\? ' /proc/self/mountinfo; then
	skip "no cgroups mounted"
fi
command -v python3 >/dev/null 2>&1 || skip "no python3"

port_base 29
ports GW P_THR

mkdir -p "$T/log" "$T/run"
chmod 1777 "$T/run"
# threads, a child with threads, a grandchild in its own session; each
# writes its pid; the leader serves HTTP once all are up
cat >"$T/thr.py" <<EOF
import http.server, os, sys, threading, time

def spin():
    while True:
        time.sleep(1)

def threads(n):
    for _ in range(n):
        threading.Thread(target=spin, daemon=True).start()

run = "$T/run"
threads(3)
if os.fork() == 0:
    threads(2)
    if os.fork() == 0:
        os.setsid()
        open(run + "/grand", "w").write(str(os.getpid()))
        spin()
    open(run + "/child", "w").write(str(os.getpid()))
    spin()
open(run + "/leader", "w").write(str(os.getpid()))

class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", "6")
        self.end_headers()
        self.wfile.write(b"awake\n")
    def log_message(self, *a):
        pass

http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
EOF
chmod a+r "$T/thr.py"

conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
idle timeout 5m
wake timeout 20s

listen on 127.0.0.1 port $GW

workload "thr" {
	host "thr.test"
	command "/usr/bin/python3 $T/thr.py $P_THR"
	port $P_THR
	memory 256M
	stop timeout 1s
}
CONF

ctl() { "$ORCHCTL" -s "$SOCK" "$@" >/dev/null 2>&1; }
logged() { grep -q -- "$1" "$T/orchd.log"; }
has_file() { [ -s "$T/run/$1" ]; }
pid_of() { cat "$T/run/$1" 2>/dev/null; }
get() {
	curl -s -m 20 -o /dev/null -w '%{http_code}' -H "Host: thr.test" \
	    "http://127.0.0.1:$GW/"
}
# cg TID-PATH CONTROLLER: a task's cgroup in that v1 hierarchy, or v2's
cg() {
	if [ "$2" = v2 ]; then
		sed -n 's/^0:://p' "$1/cgroup" 2>/dev/null
	else
		sed -n "s/^[0-9]*:[^:]*\\b$2\\b[^:]*://p" "$1/cgroup" 2>/dev/null
	fi
}
# all_in PID CONTROLLER: every thread of PID in the workload's cgroup
all_in() {
	_n=0
	for _t in /proc/"$1"/task/*; do
		_c=$(cg "$_t" "$2")
		[ "${_c%/orchd/$ORCHD_PID/thr}" != "$_c" ] || return 1
		_n=$((_n + 1))
	done
	[ "$_n" -ge 1 ]
}
threads() { ls "/proc/$1/task" 2>/dev/null | wc -l; }
gone() { [ -n "$1" ] && dead "$1"; }
clean_run() { rm -f "$T/run/leader" "$T/run/child" "$T/run/grand"; }

start_orchd_or_exit -v
kind=v1
logged 'in cgroups under .* (v2' && kind=v2
if logged 'no cgroups'; then
	stop_orchd
	skip "cgroups are mounted but orchd cannot use them here"
fi
if [ "$kind" = v1 ]; then
	ctls="freezer"
	grep -qE ' - cgroup [^ ]+ [^ ]*\bmemory\b' /proc/self/mountinfo &&
	    ctls="freezer memory"
else
	ctls=v2
fi

check "a request wakes thr ($kind)" test "$(get)" = 200
check "its leader, child and grandchild started" wait_for 10 sh -c \
    "test -s '$T/run/leader' && test -s '$T/run/child' && test -s '$T/run/grand'"
leader=$(pid_of leader)
child=$(pid_of child)
grand=$(pid_of grand)
check "the leader has its threads ($(threads "$leader"))" \
    test "$(threads "$leader")" -ge 4
check "the child has its threads ($(threads "$child"))" \
    test "$(threads "$child")" -ge 3
for c in $ctls; do
	check "every thread of the leader in thr's $c cgroup" all_in "$leader" "$c"
	check "every thread of the child in thr's $c cgroup" all_in "$child" "$c"
	check "the grandchild, in a session of its own, in thr's $c cgroup" \
	    all_in "$grand" "$c"
done
check "the grandchild left the leader's session" \
    test "$(ps -o sid= -p "$grand" | tr -d ' ')" != \
    "$(ps -o sid= -p "$leader" | tr -d ' ')"
if [ "$kind" = v1 ]; then
	# the move was of one thread: the tasks file, not cgroup.procs
	check "no cgroup step failed" sh -c "! grep -q 'cgroup' '$T/log/thr.log'"
fi
check "suspend thr" ctl suspend thr
check "the leader is gone" wait_for 10 gone "$leader"
check "the child is gone" wait_for 10 gone "$child"
check "the grandchild is gone" wait_for 10 gone "$grand"

# wakes again and again: each answers, each in its cgroups
i=0
bad=0
while [ "$i" -lt 5 ]; do
	clean_run
	[ "$(get)" = 200 ] || bad=$((bad + 1))
	wait_for 10 has_file grand || bad=$((bad + 1))
	for c in $ctls; do
		all_in "$(pid_of leader)" "$c" || bad=$((bad + 1))
		all_in "$(pid_of grand)" "$c" || bad=$((bad + 1))
	done
	ctl suspend thr || bad=$((bad + 1))
	wait_for 10 gone "$(pid_of grand)" || bad=$((bad + 1))
	i=$((i + 1))
done
check "5 more wakes: each answered, in its cgroups, suspended clean" \
    test "$bad" = 0
[ "$bad" = 0 ] || echo "# $bad wrong"

stop_orchd
check "orchd exits 0 ($STATUS)" test "$STATUS" = 0
e2e_done
