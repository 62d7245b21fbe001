#!/bin/sh
# CPU and process limits hold (orchd.conf.5 "cpu", "pids"; orchd-security.7):
#  1. orchd -n refuses cpu 0, cpu 1000, pids 0 and the like, naming them;
#  2. a process workload with "cpu 0.2" that spins on two loops uses at
#     most about 0.2 CPU, measured from its cgroup (v1 cpuacct.usage, v2
#     cpu.stat usage_usec) over a bounded interval; one without "cpu"
#     gets the global default; an "io weight" the host has no controller
#     for is said once in the log;
#  3. a fork bomb in a process workload with "pids 32" is held at 32
#     processes; orchd still answers; suspend ends it; the host forks;
#  4. the same for containers: docker inspect shows NanoCpus and
#     PidsLimit, the container's cgroup its usage and its processes.
# Loopback only, every wait bounded, every bomb killed within seconds.
#
#	sh regress/e2e/limits.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

grep -q ' - cgroup2\? ' /proc/self/mountinfo || skip "no cgroups mounted"

port_base 67
ports GW P_SPIN P_DFLT P_BOMB P_DKSPIN P_DKBOMB
testhttp_bin
HTTP=$T/bin/testhttp
TAG=lim$$
IMAGE=orchd-test/busybox:latest
DOCKER=0
have_docker && DOCKER=1
# what the containers mount lies outside $T, as no volume may lie under
# the directory of orchd.conf
V=$(mktemp -d /tmp/orchd-e2e-lim.XXXXXX)
chmod 0755 "$V"

lim_cleanup() {
	if [ -n "$ORCHD_PID" ] && kill -0 "$ORCHD_PID" 2>/dev/null; then
		kill -TERM "$ORCHD_PID" 2>/dev/null
		wait_gone "$ORCHD_PID" 15
	fi
	if [ "$DOCKER" = 1 ]; then
		for n in ${TAG}dkspin ${TAG}dkbomb; do
			docker rm -f "$(cname "$n")" >/dev/null 2>&1
		done
	fi
	rm -rf "$V"
	e2e_cleanup
}
trap lim_cleanup EXIT

# 1. bad values refused at -n, each named
mkdir -p "$T/log"
refused() {	# refused LINE WORDS: orchd -n fails and says WORDS
	printf '%s\n' "$1" >"$T/bad.conf"
	! "$ORCHD" -n -f "$T/bad.conf" >"$T/bad.out" 2>&1 &&
	    grep -q -- "$2" "$T/bad.out"
}
check "cpu 0 refused" refused "cpu 0" "cpu 0: below 0.01"
check "cpu 1000 refused" refused "cpu 1000" "cpu 1000: above 256"
check "cpu 0.0001 refused" refused "cpu 0.0001" "more than three decimals"
check "cpu abc refused" refused "cpu abc" "not a number of CPUs"
check "pids 0 refused" refused "pids 0" "pids 0: out of range"
check "cpu weight 20000 refused" refused "cpu weight 20000" "out of range"
check "io weight -1 refused" refused "io weight -1" "out of range"
check "api max pids 0 refused" refused "api max pids 0" "pids 0"
check "a workload's cpu 0 refused" refused \
    'workload "x" { 
	cpu 0
}' "cpu 0: below 0.01"

# the workloads: two busy loops, or a fork bomb, beside a server
mkdir -p "$T/run"
chmod 1777 "$T/run"
cat >"$T/spin.sh" <<'EOF'
#!/bin/sh
sh -c 'while :; do :; done' &
sh -c 'while :; do :; done' &
exec "$1" serve "$2"
EOF
# it forks until refused, and tries again, for ever
cat >"$T/bomb.sh" <<'EOF'
#!/bin/sh
sh -c 'while :; do sh -c "while :; do sleep 30 & done"; done' \
    >/dev/null 2>&1 &
exec "$1" serve "$2"
EOF
cp "$T/spin.sh" "$T/bomb.sh" "$V/"
# the containers' httpd instead of testhttp
sed -i 's|exec "$1" serve "$2"|exec /bin/httpd -f -p "127.0.0.1:$2" -h /|' \
    "$V/spin.sh" "$V/bomb.sh"
chmod -R a+rX "$T/spin.sh" "$T/bomb.sh" "$V"

conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
idle timeout 5m
reaper interval 1s
wake timeout 20s
cpu 0.5

listen on 127.0.0.1 port $GW

workload "${TAG}spin" {
	host "spin.test"
	command "/bin/sh $T/spin.sh $HTTP $P_SPIN"
	port $P_SPIN
	cpu 0.2
	io weight 50
}
workload "${TAG}dflt" {
	host "dflt.test"
	command "/bin/sh $T/spin.sh $HTTP $P_DFLT"
	port $P_DFLT
}
workload "${TAG}bomb" {
	host "bomb.test"
	command "/bin/sh $T/bomb.sh $HTTP $P_BOMB"
	port $P_BOMB
	pids 32
	stop timeout 1s
}
CONF
if [ "$DOCKER" = 1 ]; then
	cat >>"$T/orchd.conf" <<CONF
workload "${TAG}dkspin" {
	host "dkspin.test"
	driver docker
	image "$IMAGE"
	network host
	volume "$V" "/lim"
	command "/bin/sh /lim/spin.sh x $P_DKSPIN"
	port $P_DKSPIN
	cpu 0.2
	stop timeout 1s
}
workload "${TAG}dkbomb" {
	host "dkbomb.test"
	driver docker
	image "$IMAGE"
	network host
	volume "$V" "/lim"
	command "/bin/sh /lim/bomb.sh x $P_DKBOMB"
	port $P_DKBOMB
	pids 32
	stop timeout 1s
}
CONF
fi
check "orchd -n takes the limits" "$ORCHD" -n -f "$T/orchd.conf"

ctl() { "$ORCHCTL" -s "$SOCK" "$@" >/dev/null 2>&1; }
logged() { grep -q -- "$1" "$T/orchd.log"; }
served_pid() { pgrep -f "serve $1\$" | head -n 1; }
# cgdir PID CONTROLLER: the directory of its cgroup in that hierarchy
cgdir() {
	if grep -q "^0::/.*" "/proc/$1/cgroup" &&
	    ! grep -q ":$2[,:]\|,$2:" "/proc/$1/cgroup"; then
		m=$(grep ' - cgroup2 ' /proc/self/mountinfo | head -n 1 |
		    cut -d' ' -f5)
		echo "$m$(sed -n 's/^0:://p' "/proc/$1/cgroup")"
		return
	fi
	m=$(grep -E " - cgroup [^ ]+ [^ ]*\\b$2\\b" /proc/self/mountinfo |
	    head -n 1 | cut -d' ' -f5)
	echo "$m$(sed -n "s/^[0-9]*:[^:]*\\b$2\\b[^:]*://p" \
	    "/proc/$1/cgroup")"
}
# usage_ns DIR: the CPU time of the cgroup, nanoseconds
usage_ns() {
	if [ -f "$1/cpuacct.usage" ]; then
		cat "$1/cpuacct.usage"
	else
		echo $(($(sed -n 's/^usage_usec //p' "$1/cpu.stat") * 1000))
	fi
}
# cpu_share DIR SECONDS: thousandths of a CPU it used over SECONDS
cpu_share() {
	u0=$(usage_ns "$1")
	t0=$(date +%s%N)
	sleep "$2"
	u1=$(usage_ns "$1")
	t1=$(date +%s%N)
	echo $(((u1 - u0) * 1000 / (t1 - t0)))
}
quota_of() {	# quota_of DIR: v1 cfs_quota_us, or v2 cpu.max's first
	if [ -f "$1/cpu.cfs_quota_us" ]; then
		cat "$1/cpu.cfs_quota_us"
	else
		cut -d' ' -f1 "$1/cpu.max"
	fi
}
between() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }
pids_current() { cat "$1/pids.current" 2>/dev/null || echo 0; }
pids_bounded() {	# pids_bounded DIR MAX SECONDS: never above MAX
	_pb=0
	while [ $_pb -lt $(($3 * 5)) ]; do
		[ "$(pids_current "$1")" -le "$2" ] || return 1
		sleep 0.2
		_pb=$((_pb + 1))
	done
}
filled() { [ "$(pids_current "$1")" -ge 30 ]; }
stopped() {
	[ "$(docker inspect -f '{{.State.Running}}' "$1")" = false ]
}
host_forks() { [ "$(sh -c 'echo ok')" = ok ]; }

start_orchd_or_exit
if ! logged 'cgroup limits: cpu'; then
	echo "no cpu controller orchd can use here: the rest skipped"
	e2e_done
	exit 0
fi

# 2. the CPU limit of a process workload
check "wake ${TAG}spin" ctl wake "${TAG}spin"
leader=$(served_pid "$P_SPIN")
if [ -f /sys/fs/cgroup/cpuacct/cpuacct.usage ] ||
    [ -d /sys/fs/cgroup/cpu,cpuacct ]; then acct=cpuacct; else acct=cpu; fi
cg=$(cgdir "$leader" cpu)
acg=$(cgdir "$leader" "$acct")
check "its cpu cgroup is its own ($cg)" \
    test "${cg%/orchd/$ORCHD_PID/${TAG}spin}" != "$cg"
check "its quota is 0.2 of a 100 ms period ($(quota_of "$cg"))" \
    test "$(quota_of "$cg")" = 20000
share=$(cpu_share "$acg" 3)
figure limits.process_cpu_thousandths "$share" "cpu 0.2, two busy loops"
# at most the limit (and a little for the interval's edges); at least
# some: the host's other load may leave it less than its quota
check "two busy loops used 0.2 CPU, not 2 ($share thousandths)" \
    between "$share" 20 260
check "suspend ${TAG}spin" ctl suspend "${TAG}spin"
# io weight where the host has no such controller (v1 blkio without CFQ
# or BFQ): said once, the workload runs anyway
if logged 'cgroup limits:.* io'; then
	echo "# this host has an io weight controller: its absence not tested"
else
	check "no io weight controller: said in the log" \
	    logged "io weight: no such cgroup controller"
	check "... once" test "$(grep -c 'io weight: no such cgroup' \
	    "$T/orchd.log")" = 1
fi

# one without "cpu": the global default, 0.5
check "wake ${TAG}dflt" ctl wake "${TAG}dflt"
leader=$(served_pid "$P_DFLT")
check "the global cpu 0.5 applies ($(quota_of "$(cgdir "$leader" cpu)"))" \
    test "$(quota_of "$(cgdir "$leader" cpu)")" = 50000
check "suspend ${TAG}dflt" ctl suspend "${TAG}dflt"

# 3. a fork bomb held by pids
check "wake ${TAG}bomb" ctl wake "${TAG}bomb"
leader=$(served_pid "$P_BOMB")
pcg=$(cgdir "$leader" pids)
check "its pids.max is 32 ($(cat "$pcg/pids.max" 2>/dev/null))" \
    test "$(cat "$pcg/pids.max" 2>/dev/null)" = 32
check "the bomb fills it" wait_for 5 filled "$pcg"
check "never above 32 for 3 s ($(pids_current "$pcg"))" \
    pids_bounded "$pcg" 32 3
check "orchd still answers" "$ORCHCTL" -s "$SOCK" show summary
check "the host still forks" host_forks
check "suspend ends the bomb" ctl suspend "${TAG}bomb"
check "nothing of it is left" wait_for 10 test ! -d "$pcg"

# 4. containers
if [ "$DOCKER" = 1 ]; then
	c=$(cname "${TAG}dkspin")
	check "wake ${TAG}dkspin" ctl wake "${TAG}dkspin"
	check "NanoCpus 200000000" test "$(docker inspect -f \
	    '{{.HostConfig.NanoCpus}}' "$c")" = 200000000
	pid=$(docker inspect -f '{{.State.Pid}}' "$c")
	share=$(cpu_share "$(cgdir "$pid" "$acct")" 3)
	figure limits.container_cpu_thousandths "$share" \
	    "cpu 0.2, two busy loops"
	check "the container's two loops used 0.2 CPU ($share thousandths)" \
	    between "$share" 20 260
	check "suspend ${TAG}dkspin" ctl suspend "${TAG}dkspin"

	c=$(cname "${TAG}dkbomb")
	check "wake ${TAG}dkbomb" ctl wake "${TAG}dkbomb"
	check "PidsLimit 32" test "$(docker inspect -f \
	    '{{.HostConfig.PidsLimit}}' "$c")" = 32
	pid=$(docker inspect -f '{{.State.Pid}}' "$c")
	pcg=$(cgdir "$pid" pids)
	check "the bomb fills the container" \
	    wait_for 5 filled "$pcg"
	check "never above 32 for 3 s ($(pids_current "$pcg"))" \
	    pids_bounded "$pcg" 32 3
	check "orchd still answers" "$ORCHCTL" -s "$SOCK" show summary
	check "the host still forks" host_forks
	check "suspend ends the container's bomb" ctl suspend "${TAG}dkbomb"
	check "it is stopped" wait_for 15 stopped "$c"
else
	echo "# no Docker: the containers' part skipped"
fi

stop_orchd
check "orchd exits 0" test "$STATUS" = 0
e2e_done
