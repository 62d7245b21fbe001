#!/bin/sh
# Everything a process workload started goes when it stops (orchd-security.7,
# SECURITY CONSIDERATIONS): each process workload runs in a cgroup of its
# own, named for it, so that a process that leaves its group with setsid
# and ignores SIGTERM is still killed on suspend and on orchd's shutdown;
# `memory 64M` is that cgroup's limit; the measured memory reaches show
# stats; an orchd that died leaves escapees that the next start kills.
# Then without cgroups (ORCHD_CGROUP=none) a workload's memory is still
# measured (its group's PSS, by the spawner), the group members that
# ignore SIGTERM still go at shutdown, and with ORCHD_CGROUP=v2 where a
# controllerless cgroup2 is mounted (v1 hosts), suspend kills through
# cgroup.kill.  Loopback only, every wait bounded.
#
#	sh regress/e2e/cgroup.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

if ! grep -q ' - cgroup2\? ' /proc/self/mountinfo; then
	skip "no cgroups mounted"
fi

HTTP=$BUILD/regress/testhttp
port_base 17
ports GW P_ESC P_GRAND P_MEM

# the workloads run as uids of their own: their scripts readable, run/
# writable by any (sticky, as /tmp)
mkdir -p "$T/log" "$T/run"
chmod 1777 "$T/run"
# escapee: leaves the group with setsid and ignores SIGTERM
cat >"$T/esc.sh" <<EOF
#!/bin/sh
setsid sh -c 'trap "" TERM; echo \$\$ >"$T/run/\$0.esc"; \
    while :; do sleep 1; done' "\$1" &
exec "$HTTP" serve "\$2"
EOF
# grand: also a grandchild in the group that ignores SIGTERM
cat >"$T/grand.sh" <<EOF
#!/bin/sh
sh -c 'trap "" TERM; echo \$\$ >"$T/run/\$0.grand"; \
    while :; do sleep 1; done' "\$1" &
exec /bin/sh "$T/esc.sh" "\$1" "\$2"
EOF
chmod a+rx "$T/esc.sh" "$T/grand.sh"

conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
idle timeout 5m
reaper interval 1s
wake timeout 10s

listen on 127.0.0.1 port $GW

workload "cgesc" {
	host "esc.test"
	command "/bin/sh $T/esc.sh cgesc $P_ESC"
	port $P_ESC
}
workload "cggrand" {
	host "grand.test"
	command "/bin/sh $T/grand.sh cggrand $P_GRAND"
	port $P_GRAND
	stop timeout 1s
}
workload "cgmem" {
	host "mem.test"
	command "$HTTP serve $P_MEM"
	port $P_MEM
	memory 64M
}
CONF

ctl() { "$ORCHCTL" -s "$SOCK" "$@" >/dev/null 2>&1; }
logged() { grep -q -- "$1" "$T/orchd.log"; }
pidof_file() { cat "$T/run/$1" 2>/dev/null; }
has_file() { [ -s "$T/run/$1" ]; }
gone() { [ -n "$1" ] && dead "$1"; }
# cgroup_of PID CONTROLLER: its cgroup path in that v1 hierarchy, or v2's
cgroup_of() {
	if [ "$2" = v2 ]; then
		sed -n 's/^0:://p' "/proc/$1/cgroup"
	else
		sed -n "s/^[0-9]*:[^:]*\\b$2\\b[^:]*://p" "/proc/$1/cgroup"
	fi
}
# mount_of TYPE [CONTROLLER]: where that hierarchy is mounted
mount_of() {
	if [ "$1" = cgroup2 ]; then
		grep ' - cgroup2 ' /proc/self/mountinfo | head -n 1 |
		    cut -d' ' -f5
	else
		grep -E " - cgroup [^ ]+ [^ ]*\\b$2\\b" /proc/self/mountinfo |
		    head -n 1 | cut -d' ' -f5
	fi
}
served_pid() { pgrep -f "testhttp serve $1\$" | head -n 1; }
stats_memory() {
	"$ORCHCTL" -s "$SOCK" -j show stats 2>/dev/null | tr -d ' \n' |
	    tr '}' '\n' | grep "\"name\":\"$1\"" |
	    sed -n 's/.*"memory":\([0-9]*\).*/\1/p'
}
memory_measured() { m=$(stats_memory "$1"); [ "${m:-0}" -gt 0 ]; }
cleanup_pids() {
	for f in "$T"/run/*; do
		[ -s "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null
		rm -f "$f"
	done
}

start_orchd_or_exit
kind=v1
logged 'in cgroups under .* (v2' && kind=v2
# mounted but not ours to write (a container's read-only cgroup file
# system): orchd says so and keeps to process groups, which part 5 tests
usable=1
if logged 'no cgroups'; then
	usable=0
	echo "cgroups are mounted but orchd cannot use them here:" \
	    "parts 1 to 4 and 6 skipped"
	stop_orchd
fi
if [ "$usable" = 1 ]; then
check "orchd says where the cgroups are" logged 'process workloads in cgroups under'

# 1. suspend kills the escapee in its own session
check "wake cgesc" ctl wake cgesc
check "its escapee started" wait_for 5 has_file cgesc.esc
esc=$(pidof_file cgesc.esc)
leader=$(served_pid "$P_ESC")
check "the escapee left the leader's session" \
    test "$(ps -o sid= -p "$esc" | tr -d ' ')" != \
    "$(ps -o sid= -p "$leader" | tr -d ' ')"
if [ "$kind" = v1 ]; then c=freezer; else c=v2; fi
cg=$(cgroup_of "$esc" "$c")
check "the escapee is in a cgroup named for the workload ($cg)" \
    test "${cg%/orchd/$ORCHD_PID/cgesc}" != "$cg"
check "and the leader too" test "$(cgroup_of "$leader" "$c")" = "$cg"
check "suspend cgesc" ctl suspend cgesc
check "the escapee is gone after suspend" wait_for 5 gone "$esc"
if [ "$kind" = v1 ]; then m=$(mount_of cgroup freezer); else m=$(mount_of cgroup2); fi
check "its cgroup is removed" wait_for 5 test ! -d "$m$cg"
check "its measured memory reaches show stats" wait_for 5 memory_measured cgesc

# 2. the memory limit of a process workload
check "wake cgmem" ctl wake cgmem
pid=$(served_pid "$P_MEM")
if [ "$kind" = v1 ]; then
	f="$(mount_of cgroup memory)$(cgroup_of "$pid" memory)/memory.limit_in_bytes"
else
	f="$(mount_of cgroup2)$(cgroup_of "$pid" v2)/memory.max"
fi
check "memory 64M is its cgroup's limit ($f)" \
    test "$(cat "$f" 2>/dev/null)" = 67108864

# 3. shutdown kills a grandchild that ignores SIGTERM and an escapee
check "wake cggrand" ctl wake cggrand
check "its grandchild and escapee started" \
    wait_for 5 sh -c "[ -s '$T/run/cggrand.grand' ] && [ -s '$T/run/cggrand.esc' ]"
grand=$(pidof_file cggrand.grand)
esc=$(pidof_file cggrand.esc)
stop_orchd
check "orchd stops" test "$STATUS" -eq 0
check "the grandchild that ignores SIGTERM is gone" wait_for 5 gone "$grand"
check "the escapee is gone" wait_for 5 gone "$esc"
check "orchd's cgroup is removed" test ! -d "$m$(dirname "$cg")"
cleanup_pids

# 4. an orchd that dies: the next start kills what escaped it
start_orchd_or_exit
old=$ORCHD_PID
check "wake cgesc" ctl wake cgesc
check "its escapee started" wait_for 5 has_file cgesc.esc
esc=$(pidof_file cgesc.esc)
kill -KILL "$old"
wait "$old" 2>/dev/null
check "the escapee outlives an orchd killed with SIGKILL" alive "$esc"
start_orchd_or_exit
check "the next orchd kills it" wait_for 5 gone "$esc"
check "and says so" logged 'workload cgesc: killing what an orchd that died left'
check "and removes the dead orchd's cgroups" test ! -d "$m${cg%/orchd/*}/orchd/$old"
stop_orchd
cleanup_pids

fi	# usable

# 5. without cgroups: the group still goes at shutdown
ORCHD_CGROUP=none
export ORCHD_CGROUP
start_orchd_or_exit
check "orchd warns that there are no cgroups" logged 'no cgroups: process workloads'
# its memory, measured by the spawner from its group's PSS as it stops
check "wake cgmem without a cgroup" ctl wake cgmem
check "suspend cgmem" ctl suspend cgmem
check "its group's measured memory reaches show stats" \
    wait_for 5 memory_measured cgmem
check "wake cggrand" ctl wake cggrand
check "its grandchild started" wait_for 5 has_file cggrand.grand
grand=$(pidof_file cggrand.grand)
stop_orchd
check "the grandchild that ignores SIGTERM is gone at shutdown" \
    wait_for 5 gone "$grand"
cleanup_pids

# 6. v2's cgroup.kill, where cgroup2 is mounted beside v1
if [ "$usable" = 1 ] && [ "$kind" = v1 ] && [ -n "$(mount_of cgroup2)" ]; then
	ORCHD_CGROUP=v2
	start_orchd_or_exit -v
	check "ORCHD_CGROUP=v2 is used" logged 'in cgroups under .* (v2'
	check "wake cgesc" ctl wake cgesc
	# the spawner makes it there (clone3), it does not move itself in
	check "made in its cgroup, not moved: no fallback logged" \
	    sh -c "! grep -q 'clone3 into its cgroup' '$T/orchd.log'"
	check "its escapee started" wait_for 5 has_file cgesc.esc
	esc=$(pidof_file cgesc.esc)
	cg=$(cgroup_of "$esc" v2)
	check "in a v2 cgroup named for it ($cg)" \
	    test "${cg%/orchd/$ORCHD_PID/cgesc}" != "$cg"
	check "suspend cgesc" ctl suspend cgesc
	check "the escapee is gone after suspend" wait_for 5 gone "$esc"
	stop_orchd
	cleanup_pids
fi
unset ORCHD_CGROUP

e2e_done
