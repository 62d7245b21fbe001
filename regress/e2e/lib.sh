# Shared by the end-to-end scripts: counters, bounded waits, a scratch
# directory, and starting and stopping a real orchd.
#
#	. regress/e2e/lib.sh; e2e_init "$1"; ...; e2e_done

PASSED=0
FAILED=0
ORCHD_PID=

# One case alone: E2E_CASE=PATTERN in the environment, or -k PATTERN
# after the build directory (sh regress/e2e/wake.sh build/check -k 503).
# The script still runs every command, since a later check stands on
# what earlier ones set up; only the checks whose description matches
# PATTERN (a shell pattern, anywhere in the description) are printed
# and counted, with the checks after each whose description begins with
# "..." (they go on with the same case).  A check left out that fails is
# still shown, as a comment: it may be why a selected one fails.
E2E_CASE=${E2E_CASE:-}
[ "${2:-}" != -k ] || E2E_CASE=${3:-}
OTHERS=0
OTHERS_FAILED=0
CASE_ON=0

e2e_init() {
	BUILD=${1:-build}
	case "$BUILD" in /*) ;; *) BUILD=$(pwd)/$BUILD ;; esac
	ORCHD=$BUILD/orchd
	ORCHCTL=$BUILD/orchctl
	T=$(mktemp -d /tmp/orchd-e2e.XXXXXX)
	chmod 0755 "$T"
	SOCK=$T/orchd.sock
	# chrooted children cannot read /proc: no leak check there, but any
	# sanitizer report is in the log and fails the script
	ASAN_OPTIONS=detect_leaks=0:abort_on_error=0
	UBSAN_OPTIONS=print_stacktrace=1
	export ASAN_OPTIONS UBSAN_OPTIONS
	trap e2e_cleanup EXIT
}

e2e_cleanup() {
	if [ -n "$ORCHD_PID" ] && kill -0 "$ORCHD_PID" 2>/dev/null; then
		kill -TERM "$ORCHD_PID" 2>/dev/null
		wait_gone "$ORCHD_PID" 10
		kill -KILL "$ORCHD_PID" 2>/dev/null
	fi
	[ -z "${E2E_REG_PID:-}" ] || kill "$E2E_REG_PID" 2>/dev/null
	for _m in ${E2E_MOUNTS:-}; do
		mountpoint -q "$_m" 2>/dev/null || continue
		umount "$_m" 2>/dev/null || umount -l "$_m"
	done
	[ -n "${E2E_KEEP:-}" ] || rm -rf "$T"
}

# registry_start ADDRESS:PORT: Debian's docker-registry on loopback, no
# login, its storage in $T/registry, stopped by e2e_cleanup; the script
# is skipped without it
registry_start() {
	command -v docker-registry >/dev/null 2>&1 ||
	    skip "needs docker-registry (tools/deps.sh test)"
	mkdir -p "$T/registry"
	printf '%s\n' 'version: 0.1' 'log:' '  level: error' '  accesslog:' \
	    '    disabled: true' 'storage:' '  filesystem:' \
	    "    rootdirectory: $T/registry" 'http:' "  addr: $1" \
	    >"$T/registry.yml"
	docker-registry serve "$T/registry.yml" >"$T/registry.log" 2>&1 &
	E2E_REG_PID=$!
	check "the registry answers on $1" wait_for 10 sh -c \
	    "curl -s -o /dev/null -w '%{http_code}' http://$1/v2/ | grep -q 200"
}

# registry_push LOCAL REMOTE: LOCAL pushed as REMOTE, which is then removed
# here, so a wake pulls it
registry_push() {
	docker tag "$1" "$2" && docker push "$2" >"$T/push.out" 2>&1 &&
	    docker rmi "$2" >/dev/null 2>&1 && return 0
	fail "cannot push $2: $(tail -n 1 "$T/push.out")"
	return 1
}

# tmpfs_mount DIR SIZE MODE: a small disk of the test's own at DIR (a
# disk to fill), undone by e2e_cleanup; the script is skipped where no
# tmpfs can be mounted
tmpfs_mount() {
	mkdir -p "$1"
	mount -t tmpfs -o "size=$2,mode=$3" tmpfs "$1" ||
	    skip "cannot mount a tmpfs"
	E2E_MOUNTS="${E2E_MOUNTS:-} $1"
}

selected() {	# selected DESCRIPTION: no E2E_CASE, or it matches
	[ -z "$E2E_CASE" ] && return 0
	case "$1" in "..."*) ;; *) CASE_ON=0 ;; esac
	case "$1" in *$E2E_CASE*) CASE_ON=1 ;; esac
	[ "$CASE_ON" -eq 1 ] && return 0
	OTHERS=$((OTHERS + 1))
	return 1
}

ok() {
	selected "$*" || return 0
	PASSED=$((PASSED + 1))
	echo "ok - $*"
}

fail() {
	if ! selected "$*"; then
		OTHERS_FAILED=$((OTHERS_FAILED + 1))
		echo "# not ok - $* (not counted: E2E_CASE)"
		return 0
	fi
	fail_always "$*"
}

fail_always() {	# a failure counted whatever E2E_CASE selects
	FAILED=$((FAILED + 1))
	echo "not ok - $*"
}

check() {	# check DESCRIPTION COMMAND...
	desc=$1
	shift
	if "$@"; then ok "$desc"; else fail "$desc"; fi
}

e2e_done() {
	if [ -f "$T/orchd.log" ] &&
	    grep -E 'AddressSanitizer|runtime error:|LeakSanitizer' \
	    "$T/orchd.log" >/dev/null; then
		fail_always "sanitizer report in the daemon's log"
		grep -E -A20 'AddressSanitizer|runtime error:' "$T/orchd.log" | head -60
	fi
	if [ -z "$E2E_CASE" ]; then
		echo "$PASSED passed, $FAILED failed"
	else
		[ $((PASSED + FAILED)) -gt 0 ] ||
		    fail_always "no check's description matches E2E_CASE=$E2E_CASE"
		echo "$PASSED passed, $FAILED failed (E2E_CASE=$E2E_CASE;" \
		    "$OTHERS others not counted, $OTHERS_FAILED of them failed)"
	fi
	[ "$FAILED" -eq 0 ]
}

# skip WHY: the end of a script that cannot run here, counted as nothing
skip() {
	echo "skipped: $*"
	echo "0 passed, 0 failed"
	exit 0
}

need_root() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (chroot, setuid)"
}

# need_docker: a Docker daemon that answers and the test image
# (regress/docker-image.sh), or the script is skipped
need_docker() {
	docker info >/dev/null 2>&1 ||
	    skip "no Docker daemon answers (docker info failed)"
	sh "$(dirname "$0")/../docker-image.sh" ||
	    skip "cannot make the test image (regress/docker-image.sh)"
}

# need_swarm [init]: this machine's daemon a swarm manager, or skip; with
# init, a one-node swarm made where it is in none, and left so (swarm.sh
# says why)
need_swarm() {
	if [ "$1" = init ] && [ "$(docker info --format \
	    '{{.Swarm.LocalNodeState}}' 2>/dev/null)" != active ]; then
		_ns_out=$(timeout 60 docker swarm init \
		    --advertise-addr 127.0.0.1 2>&1) ||
		    skip "docker swarm init failed: $(echo "$_ns_out" |
		    head -n 1)"
		echo "# swarm initialised on this daemon (left so: see" \
		    "swarm.sh)"
	fi
	[ "$(docker info --format '{{.Swarm.LocalNodeState}}' \
	    2>/dev/null)" = active ] ||
	    skip "this daemon is in no swarm (regress/e2e/swarm.sh makes one)"
	[ "$(docker info --format '{{.Swarm.ControlAvailable}}')" = true ] ||
	    skip "this daemon is a swarm worker, not a manager"
}

# dockerd_start VAR DIR ARG...: a dockerd of the test's own, its data,
# exec root, socket DIR/d.sock, pid file and log in DIR, no bridge and no
# iptables, with the ARGs; its pid in VAR at once, for the script's
# cleanup (dockerd_stop).  Skipped, saying why, where it does not answer
# within 60 s.
dockerd_start() {
	_dd=$2
	_dv=$1
	shift 2
	dockerd --data-root "$_dd/data" --exec-root "$_dd/exec" \
	    -H "unix://$_dd/d.sock" "$@" --pidfile "$_dd/d.pid" \
	    --bridge=none --iptables=false --ip6tables=false \
	    >"$_dd/log" 2>&1 &
	eval "$_dv=\$!"
	wait_for 60 quiet docker -H "unix://$_dd/d.sock" info ||
	    skip "a dockerd of the test's own does not start: $(grep -m 1 \
	    -i 'level=\(error\|fatal\)' "$_dd/log")"
}

# dockerd_stop PID DIR: that dockerd stopped, the mounts it left under
# DIR undone and DIR removed
dockerd_stop() {
	if [ -n "$1" ]; then
		kill -TERM "$1" 2>/dev/null
		wait_gone "$1" 20 || kill -KILL "$1" 2>/dev/null
	fi
	if [ -d "$2" ]; then
		grep " $2/" /proc/self/mounts | awk '{ print $2 }' |
		    sort -r | while read -r m; do umount "$m"; done
		rm -rf "$2"
	fi
}

# have_docker: the same, quietly, for a script's optional Docker part
have_docker() {
	docker info >/dev/null 2>&1 &&
	    sh "$(dirname "$0")/../docker-image.sh" >/dev/null 2>&1
}

# quiet COMMAND...: its output and its errors dropped
quiet() { "$@" >/dev/null 2>&1; }

# the unprivileged user and the empty chroot of the children
ensure_user() {
	getent passwd _orchd >/dev/null ||
	    useradd -r -d /var/empty -s /usr/sbin/nologin _orchd ||
	    { echo "cannot create user _orchd"; exit 1; }
	mkdir -p /var/empty
	chmod 0755 /var/empty
}

# wait_for SECONDS COMMAND...: polls every 50 ms, bounded (its counters
# are named so as not to clobber a caller's loop variable)
wait_for() {
	_wf_limit=$(($1 * 20))
	shift
	_wf_n=0
	while [ $_wf_n -lt $_wf_limit ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.05
		_wf_n=$((_wf_n + 1))
	done
	return 1
}

# Test ports are taken from 20000-32767, below Linux's ephemeral range
# (32768-60999): a port in that range may be the local end of one of the
# test's own outgoing connections at the moment a workload binds it.
#
# free_port PORT: PORT or the next one nobody listens on (ss, iproute2)
free_port() {
	fp=$1
	while ss -Htln "sport = :$fp" 2>/dev/null | grep -q .; do
		fp=$((fp + 1))
	done
	echo "$fp"
}

# ports NAME...: sets each NAME to a free port, the first at or above
# port_base's, each next one above the last one given
ports() {
	for _pn in "$@"; do
		PORT_LAST=$(free_port $((PORT_LAST + 1)))
		eval "$_pn=\$PORT_LAST"
	done
}

# port_base [FACTOR]: ports starts at 20000 + (pid * FACTOR) % 12000.
# Scripts run one after the other have pids close together: a factor of
# their own spreads their ports apart.
port_base() {
	PORT_LAST=$((20000 + ($$ * ${1:-1}) % 12000 - 1))
}
port_base

# testhttp_bin: the test backend in $T/bin, where any workload's uid
# can run it
testhttp_bin() {
	mkdir -p "$T/bin"
	cp "$BUILD/regress/testhttp" "$T/bin/testhttp"
	chmod 0755 "$T/bin" "$T/bin/testhttp"
}

# Each run is an orchd instance of its own (orchd-workload.7, instances sharing
# a host): its name and its workload uids, from the script's pid, so
# that runs at once on this host and Docker daemon neither take each
# other's containers nor are refused at start.  A script that starts a
# second orchd at once gives it another name and E2E_UID_LOW2
# (conf_instance NAME LOW).  The ranges, 256 uids a pid modulo 2^18 (a
# script such as budget.sh names more than 16 workloads in one
# database): the first instances' from 100000, the second ones' from
# 70000000, make demo's from 140000000 (tools/demo.sh).
E2E_INSTANCE=e2e-$$
E2E_UID_LOW=$((100000 + ($$ % 262144) * 256))
E2E_UID_HIGH=$((E2E_UID_LOW + 255))
E2E_UID_LOW2=$((70000000 + ($$ % 262144) * 256))

# conf_instance [NAME LOW]: the instance's lines of an orchd.conf; with
# NAME and LOW, another instance, its 256 uids from LOW
conf_instance() {
	cat <<CONF
instance name "${1:-$E2E_INSTANCE}"
workload uids "${2:-$E2E_UID_LOW}-$((${2:-$E2E_UID_LOW} + 255))"
CONF
}

# cname NAME: the container of workload NAME of this run's instance
cname() { echo "orchd-$E2E_INSTANCE-$1"; }

# conf_head: the lines every test's orchd.conf begins with
conf_head() {
	cat <<CONF
user "_orchd"
chroot "/var/empty"
database "$T/db/orchd.db"
socket "$SOCK"
log directory "$T/log"
CONF
	conf_instance
}

# conf_end [LINE...]: the rest of a workload block, a setting a line
conf_end() {
	for x in "$@"; do
		printf '\t%s\n' "$x"
	done
	echo "}"
}

# a process of ours that exited stays a zombie until waited for
dead() {
	[ ! -e "/proc/$1/stat" ] ||
	    [ "$(sed 's/^.*) \(.\).*/\1/' "/proc/$1/stat" 2>/dev/null)" = Z ]
}
alive() { ! dead "$1"; }

wait_gone() {	# wait_gone PID SECONDS
	wait_for "$2" dead "$1"
}

# start_orchd [ARGS...]: orchd -d in the background, ready when
# `orchctl show summary` answers and, for at most 10 s more, no workload
# is "checking" any more (orchd-workload.7): a test sees first what
# runtimed found at the start
start_orchd() {
	"$ORCHD" -d -f "$T/orchd.conf" "$@" >>"$T/orchd.log" 2>&1 &
	ORCHD_PID=$!
	wait_for 20 "$ORCHCTL" -s "$SOCK" show summary || return 1
	wait_for 10 checked || :
}
checked() {
	! "$ORCHCTL" -s "$SOCK" show workloads 2>/dev/null |
	    grep -Eq '^[^ ]+ +checking '
}

# now_ms: the wall clock in milliseconds
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# suspend_ms NAME: how long orchctl suspend NAME took, in milliseconds
suspend_ms() {
	t0=$(now_ms)
	if "$ORCHCTL" -s "$SOCK" suspend "$1" >/dev/null 2>&1; then
		echo $(($(now_ms) - t0))
	else
		echo failed
	fi
}
# within MS LOW HIGH: LOW <= MS < HIGH
within() { [ "$1" != failed ] && [ "$1" -ge "$2" ] && [ "$1" -lt "$3" ]; }

# start_orchd_or_exit: start_orchd as a check, and the end of the script
# when it fails: nothing after it could pass
start_orchd_or_exit() {
	if ! start_orchd "$@"; then
		fail "orchd starts"
		tail -n 20 "$T/orchd.log"
		e2e_done
		exit 1
	fi
	ok "orchd starts"
}

# orchd_status: waits (bounded) for orchd to exit and sets STATUS to its
# exit status (not in a subshell: only this shell can wait for it)
orchd_status() {
	wait_gone "$ORCHD_PID" 15 || kill -KILL "$ORCHD_PID" 2>/dev/null
	wait "$ORCHD_PID"
	STATUS=$?
}

# stop_orchd: SIGTERM, then orchd_status
stop_orchd() {
	kill -TERM "$ORCHD_PID" 2>/dev/null
	orchd_status
}

# child PROCESS-NAME: the pid of orchd's child with that title
child() {
	for p in $(pgrep -P "$ORCHD_PID"); do
		if tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null |
		    grep -q "^orchd: $1"; then
			echo "$p"
			return 0
		fi
	done
	return 1
}

# The fault scripts' shared parts (regress/faults).
#
# figure NAME VALUE UNIT: one measured figure of a fault script, as a
# line a regression can be read from
figure() { echo "# figure: $1 $2 $3"; }

# tree PID: PID and every process below it
tree() {
	echo "$1"
	for _tc in $(pgrep -P "$1"); do
		tree "$_tc"
	done
}

# all_dead PID...: none of them is alive
all_dead() {
	for _ad in "$@"; do
		alive "$_ad" && return 1
	done
	return 0
}

# uid_procs: the processes that run as one of this run's workload uids
# (conf_instance's first range), left alone by everything else
uid_procs() {
	ps -eo pid=,uid= | awk -v lo="$E2E_UID_LOW" -v hi="$E2E_UID_HIGH" \
	    '$2 >= lo && $2 <= hi { print $1 }'
}

# rss_kb PID: its resident memory in KiB; fds PID: its open descriptors
rss_kb() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$1/status" 2>/dev/null; }
fds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }

# db_sql DB QUERY: sqlite3 as the store's user, so that it never leaves a
# file behind the store could not open
db_sql() {
	setpriv --reuid="$(id -u _orchd)" --regid="$(id -g _orchd)" \
	    --clear-groups sqlite3 "$1" "$2" 2>&1
}
