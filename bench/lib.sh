# Shared by the bench/NN-*.sh scripts: a scratch directory, the build,
# the backend and the proxies under test, wrk runs with CPU accounting,
# medians, and the results file.  Sourced, never run.
#
# Every process started here is recorded in $B/pids and stopped, by its
# own pid, on exit; nothing else on the machine is touched.  Everything
# listens on 127.0.0.1.
#
# Environment (all optional):
#	BENCH_QUICK=1		short rounds (run.sh --quick sets it)
#	BENCH_ROUNDS		rounds per configuration (3; quick 1)
#	BENCH_SECONDS		seconds per wrk run (5; quick 2)
#	BENCH_PORT		first port used (28000); the scale part
#				writes BENCH_SCALE_PORT+1 .. +10000 (10001-
#				20000) into its configurations, never bound
#	BENCH_RESULTS		the results file to append to
#	BENCH_BUILD		build directory (build/bench; made with make)
#	BENCH_NOBUILD=1		use the binaries in BENCH_BUILD as they are
#	BENCH_REF		build this commit (git archive) instead of the
#				work tree
#	BENCH_CLIENT_CPU	CPU of the load generator (0)
#	BENCH_SERVER_CPU	CPU of every server (1)

set -u

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$BENCH_DIR/.." && pwd)
QUICK=${BENCH_QUICK:-}
if [ -n "$QUICK" ]; then
	ROUNDS=${BENCH_ROUNDS:-1}
	SECS=${BENCH_SECONDS:-2}
else
	ROUNDS=${BENCH_ROUNDS:-3}
	SECS=${BENCH_SECONDS:-5}
fi
PORT0=${BENCH_PORT:-28000}
CCPU=${BENCH_CLIENT_CPU:-0}
SCPU=${BENCH_SERVER_CPU:-1}
# worker processes of every proxy: nginx worker_processes, haproxy nbthread,
# gatewayd prefork; and wrk's threads.  More than 1 wants the CPUs above
# widened too (BENCH_SERVER_CPU=0-1 BENCH_CLIENT_CPU=0-1).
WORKERS=${BENCH_WORKERS:-1}
BUILD=${BENCH_BUILD:-build/bench}
case "$BUILD" in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
HZ=$(getconf CLK_TCK)
HOSTNAME_BENCH=bench.localhost

# ports
BACKEND_PORT=$PORT0
GW_PORT=$((PORT0 + 1))
NGX_PORT=$((PORT0 + 2))
HAP_PORT=$((PORT0 + 3))
WAKE_PORT=$((PORT0 + 10))	# the busybox workload of the wake part

say() { printf '%s\n' "$*"; }
note() { printf '%s\n' "$*" >&2; }

# out LINE...: to the terminal and the results file
out() {
	printf '%s\n' "$*"
	[ -n "${RESULTS:-}" ] && printf '%s\n' "$*" >>"$RESULTS"
	return 0
}

die() {
	note "bench: $*"
	exit 1
}

bench_init() {
	[ "$(id -u)" -eq 0 ] || die "run as root (orchd drops privileges)"
	for t in wrk nginx haproxy taskset curl cc; do
		command -v "$t" >/dev/null 2>&1 ||
		    die "$t missing: sh bench/deps.sh"
	done
	[ -x /bin/busybox ] || die "/bin/busybox missing: sh bench/deps.sh"
	B=$(mktemp -d /tmp/orchd-bench.XXXXXX)
	chmod 0755 "$B"
	: >"$B/pids"
	trap bench_cleanup EXIT
	trap 'exit 130' INT TERM
	mkdir -p "$TOP/bench/results"
	if [ -z "${BENCH_RESULTS:-}" ]; then
		BENCH_RESULTS=$TOP/bench/results/$(date +%Y-%m-%d-%H%M).txt
		export BENCH_RESULTS
		machine_header >>"$BENCH_RESULTS"
	fi
	RESULTS=$BENCH_RESULTS
	getent passwd _orchd >/dev/null ||
	    useradd -r -d /var/empty -s /usr/sbin/nologin _orchd ||
	    die "cannot create user _orchd"
	# the backend's user: the keep-warm workload that stands for it
	# runs as this user, and orchd serves a workload only where its
	# own uid listens (the listener check)
	getent passwd _orchbench >/dev/null ||
	    useradd -r -d /var/empty -s /usr/sbin/nologin _orchbench ||
	    die "cannot create user _orchbench"
	mkdir -p /var/empty
	chmod 0755 /var/empty
}

machine_header() {
	echo "# orchd bench, $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "# machine: $(nproc) CPU, $(sed -n 's/^model name[[:space:]]*: //p' \
	    /proc/cpuinfo | head -n 1), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' \
	    /proc/meminfo), kernel $(uname -r)"
	echo "# tools: $(wrk --version 2>&1 | head -n 1 | cut -d' ' -f1-2)," \
	    "$(nginx -v 2>&1 | sed 's/.*: //'), haproxy $(haproxy -v |
	    head -n 1 | cut -d' ' -f3), busybox $(busybox 2>&1 | head -n 1 |
	    cut -d' ' -f2)"
	if [ -n "${BENCH_DESC:-}" ]; then
		echo "# orchd: $BENCH_DESC"
	else
		echo "# orchd: $(cd "$TOP" && git rev-parse --short HEAD 2>/dev/null)$(cd "$TOP" &&
		    git diff --quiet HEAD 2>/dev/null || echo ' (+ uncommitted changes in the work tree)')"
	fi
	echo "# command: ${BENCH_COMMAND:-$0 $*}"
	echo
}

# track PID: stop it on exit
track() { echo "$1" >>"$B/pids"; }

# at_exit COMMAND: run on exit, after the tracked processes are stopped
at_exit() { echo "$*" >>"$B/atexit"; }

# stop_pid PID [SECONDS]: TERM, bounded wait, KILL; only our own pids
stop_pid() {
	p=$1
	kill -TERM "$p" 2>/dev/null || return 0
	i=0
	while kill -0 "$p" 2>/dev/null && [ $i -lt $((${2:-10} * 20)) ]; do
		# reap it if it is our child
		wait "$p" 2>/dev/null && break
		sleep 0.05
		i=$((i + 1))
	done
	kill -KILL "$p" 2>/dev/null || true
	wait "$p" 2>/dev/null || true
	sed -i "/^$p\$/d" "$B/pids" 2>/dev/null || true
}

bench_cleanup() {
	if [ -n "${B:-}" ] && [ -f "$B/pids" ]; then
		for p in $(tac "$B/pids"); do
			stop_pid "$p" 10
		done
	fi
	if [ -n "${B:-}" ] && [ -f "$B/atexit" ]; then
		while read -r cmd; do
			eval "$cmd" >/dev/null 2>&1 || true
		done <"$B/atexit"
	fi
	[ -n "${B:-}" ] && [ -z "${BENCH_KEEP:-}" ] && rm -rf "$B"
	return 0
}

# the normal optimised build, in its own directory so that a concurrent
# make in build/ does not swap binaries under a run
bench_build() {
	ORCHD=$BUILD/orchd
	ORCHCTL=$BUILD/orchctl
	if [ -n "${BENCH_NOBUILD:-}" ]; then
		[ -x "$ORCHD" ] || die "no $ORCHD"
		return 0
	fi
	src=$TOP
	if [ -n "${BENCH_REF:-}" ]; then
		# a snapshot of a commit, away from the work tree
		src=$B/src
		mkdir -p "$src"
		(cd "$TOP" && git archive "$BENCH_REF") | tar -x -C "$src" ||
		    die "cannot export $BENCH_REF"
		BUILD=$src/build
		ORCHD=$BUILD/orchd
		ORCHCTL=$BUILD/orchctl
	fi
	(cd "$src" && make -s BUILD="$BUILD" all >"$B/make.log" 2>&1) || {
		tail -n 20 "$B/make.log" >&2
		die "make failed"
	}
	ORCHD=$BUILD/orchd
	ORCHCTL=$BUILD/orchctl
}

# helper C programs, built once per run into $B
bench_tools() {
	cc -O2 -Wall -o "$B/spawnwait" "$BENCH_DIR/spawnwait.c" ||
	    die "cannot build spawnwait"
	cc -O2 -Wall -o "$B/herd" "$BENCH_DIR/herd.c" ||
	    die "cannot build herd"
}

# wait_for SECONDS COMMAND...: polls every 20 ms, bounded
wait_for() {
	limit=$(($1 * 50))
	shift
	i=0
	while [ $i -lt $limit ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.02
		i=$((i + 1))
	done
	return 1
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port_free() { ! port_open "$1"; }

check_ports() {
	for p in "$@"; do
		port_free "$p" || die "port $p is in use: set BENCH_PORT"
	done
}

# now_ns: monotonic enough wall clock in ns
now_ns() { date +%s%N; }

# cpu_ticks PID...: utime+stime of those processes, in clock ticks
cpu_ticks() {
	t=0
	for p in "$@"; do
		[ -r "/proc/$p/stat" ] || continue
		v=$(sed 's/^.*) //' "/proc/$p/stat" | awk '{print $12 + $13}')
		t=$((t + ${v:-0}))
	done
	echo "$t"
}

# descendants PID: the pid and all of its descendants
descendants() {
	echo "$1"
	for c in $(pgrep -P "$1" 2>/dev/null); do
		descendants "$c"
	done
}

# rss_kib PID...: summed VmRSS
rss_kib() {
	t=0
	for p in "$@"; do
		v=$(awk '/^VmRSS:/ {print $2}' "/proc/$p/status" 2>/dev/null)
		t=$((t + ${v:-0}))
	done
	echo "$t"
}

# other_busy: percent of all CPUs busy over the next second (nothing of
# ours runs between the parts, so this is the rest of the machine)
other_busy() {
	a=$(awk '/^cpu / {print $2 + $3 + $4 + $7 + $8, $5 + $6}' /proc/stat)
	sleep 1
	b=$(awk '/^cpu / {print $2 + $3 + $4 + $7 + $8, $5 + $6}' /proc/stat)
	echo "$a $b" | awk '{busy = $3 - $1; idle = $4 - $2;
		printf "%.0f", ((busy + idle) > 0) ? (100 * busy / (busy + idle)) : 0}'
}

# wait_quiet SECONDS: until the rest of the machine uses less than 15 %
# of the CPUs, at most SECONDS
wait_quiet() {
	end=$(($(date +%s) + $1))
	while [ "$(other_busy)" -ge 15 ] && [ "$(date +%s)" -lt "$end" ]; do
		:
	done
}

# median: of the numbers on stdin, one a line
median() {
	sort -g | awk '{v[NR] = $1} END {
		if (NR == 0) { print "nan"; exit }
		if (NR % 2) print v[(NR + 1) / 2];
		else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# pctl P: the P-th percentile (nearest rank) of stdin
pctl() {
	sort -g | awk -v p="$1" '{v[NR] = $1} END {
		if (NR == 0) { print "nan"; exit }
		i = int((p / 100) * NR + 0.999999); if (i < 1) i = 1;
		if (i > NR) i = NR; print v[i] }'
}

# ratio A B: A/B with 2 decimals
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {
	if (b == 0 || a == "nan" || b == "nan") print "-";
	else printf "%.2f", a / b }'; }

# ---- the backend: nginx, 1 worker ----

start_backend() {
	mkdir -p "$B/www" "$B/backend"
	head -c 4096 /dev/urandom | base64 -w 0 | head -c 4096 >"$B/www/4k"
	head -c 262144 /dev/urandom | base64 -w 0 | head -c 262144 \
	    >"$B/www/256k"
	chmod -R a+rX "$B/www"
	cat >"$B/backend/nginx.conf" <<EOF
worker_processes 1;
pid $B/backend/nginx.pid;
error_log $B/backend/error.log warn;
events { worker_connections 16384; }
http {
	access_log off;
	client_body_temp_path $B/backend/body;
	proxy_temp_path $B/backend/proxy;
	fastcgi_temp_path $B/backend/fastcgi;
	keepalive_requests 100000000;
	keepalive_timeout 300s;
	sendfile on;
	default_type application/octet-stream;
	server {
		listen 127.0.0.1:$BACKEND_PORT backlog=4096;
		root $B/www;
		location = / { return 200 "ok\n"; }
	}
}
EOF
	chmod 0755 "$B"
	: >>"$B/backend/error.log"
	chown -R _orchbench "$B/backend"
	# as _orchbench, whose listener the "backend" workload's is
	taskset -c "$SCPU" setpriv --reuid=_orchbench --regid=_orchbench \
	    --init-groups nginx -p "$B/backend" -e "$B/backend/error.log" \
	    -c "$B/backend/nginx.conf" -g 'daemon off;' \
	    2>>"$B/backend/error.log" &
	BACKEND_PID=$!
	track "$BACKEND_PID"
	wait_for 10 port_open "$BACKEND_PORT" || die "backend did not start"
	curl -sf -o /dev/null "http://127.0.0.1:$BACKEND_PORT/4k" ||
	    die "backend does not serve /4k"
}

# ---- the proxies under test ----

start_nginx_proxy() {
	mkdir -p "$B/nginxp"
	cat >"$B/nginxp/nginx.conf" <<EOF
worker_processes $WORKERS;
pid $B/nginxp/nginx.pid;
error_log $B/nginxp/error.log warn;
events { worker_connections 16384; }
http {
	access_log off;
	client_body_temp_path $B/nginxp/body;
	proxy_temp_path $B/nginxp/proxy;
	fastcgi_temp_path $B/nginxp/fastcgi;
	keepalive_requests 100000000;
	keepalive_timeout 300s;
	upstream backend {
		server 127.0.0.1:$BACKEND_PORT;
		keepalive 64;
		keepalive_requests 100000000;
	}
	server {
		listen 127.0.0.1:$NGX_PORT backlog=4096;
		location / {
			proxy_pass http://backend;
			proxy_http_version 1.1;
			proxy_set_header Connection "";
			proxy_set_header Host \$host;
			proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
			proxy_set_header X-Forwarded-Proto \$scheme;
		}
	}
}
EOF
	taskset -c "$SCPU" nginx -p "$B/nginxp" -c "$B/nginxp/nginx.conf" \
	    -g 'daemon off;' 2>>"$B/nginxp/error.log" &
	NGX_PID=$!
	track "$NGX_PID"
	wait_for 10 port_open "$NGX_PORT" || die "nginx proxy did not start"
}

start_haproxy() {
	mkdir -p "$B/haproxy"
	cat >"$B/haproxy/haproxy.cfg" <<EOF
global
	nbthread $WORKERS
	maxconn 8000
	pidfile $B/haproxy/haproxy.pid
defaults
	mode http
	option http-keep-alive
	option forwardfor
	timeout connect 10s
	timeout client 60s
	timeout server 60s
	timeout http-keep-alive 300s
frontend bench
	bind 127.0.0.1:$HAP_PORT
	default_backend backend
backend backend
	http-reuse safe
	server s1 127.0.0.1:$BACKEND_PORT
EOF
	taskset -c "$SCPU" haproxy -db -f "$B/haproxy/haproxy.cfg" \
	    >>"$B/haproxy/log" 2>&1 &
	HAP_PID=$!
	track "$HAP_PID"
	wait_for 10 port_open "$HAP_PORT" || die "haproxy did not start"
}

# write_orchd_conf DIR: the globals of an orchd.conf in DIR/orchd.conf
orchd_globals() {
	d=$1
	mkdir -p "$d/log"
	n=$(printf '%s' "$d" | cksum | cut -d ' ' -f 1)
	lo=$((160000000 + (n % 262144) * 256))
	cat <<EOF
# written by bench/lib.sh
# an instance of its own (orchd-workload(7), instances sharing a host),
# one per directory: another orchd on this host, the tests', an
# operator's or this run's other target, holds its own
instance name "bench-$(basename "$d")-$n"
workload uids "$lo-$((lo + 255))"
database "$d/db/orchd.db"
socket "$d/orchd.sock"
log directory "$d/log"
listen on 127.0.0.1 port $GW_PORT
EOF
	[ "$WORKERS" -eq 1 ] || echo "prefork $WORKERS"
}

# the keep-warm workload that stands for the backend
orchd_backend_workload() {
	cat <<EOF
workload "backend" {
	host "$HOSTNAME_BENCH"
	command "/bin/busybox sleep 100000"
	user "_orchbench"
	port $BACKEND_PORT
	keep warm
}
EOF
}

# start_orchd DIR: orchd -d -f DIR/orchd.conf on the server CPU; ready
# when orchctl answers.  Sets ORCHD_PID.
start_orchd() {
	d=$1
	chmod 0755 "$d"
	taskset -c "$SCPU" "$ORCHD" -d -f "$d/orchd.conf" >>"$d/orchd.log" 2>&1 &
	ORCHD_PID=$!
	track "$ORCHD_PID"
	wait_for "${2:-30}" "$ORCHCTL" -s "$d/orchd.sock" show summary || {
		tail -n 20 "$d/orchd.log" >&2
		die "orchd did not start"
	}
}

stop_orchd() { stop_pid "$ORCHD_PID" 15; }

# orchd_procs: the orchd parent and its children (not the workloads)
orchd_procs() {
	echo "$ORCHD_PID"
	for c in $(pgrep -P "$ORCHD_PID"); do
		tr '\0' ' ' <"/proc/$c/cmdline" 2>/dev/null |
		    grep -q '^orchd' && echo "$c"
	done
	return 0
}

# orchd_child NAME: the pid of orchd's child with that title
orchd_child() {
	for c in $(pgrep -P "$ORCHD_PID"); do
		tr '\0' ' ' <"/proc/$c/cmdline" 2>/dev/null |
		    grep -q "^orchd: $1" && { echo "$c"; return 0; }
	done
	return 1
}

# wrk_run URL CONNS OUTFILE: one pinned wrk run of $SECS seconds
wrk_run() {
	taskset -c "$CCPU" wrk -t"$WORKERS" -c"$2" -d"${SECS}s" --latency \
	    -H "Host: $HOSTNAME_BENCH" "$1" >"$3" 2>&1
}

# wrk_field FILE rps|p50|p99|requests|errors: from wrk's output; latencies
# in microseconds
wrk_field() {
	case $2 in
	rps) awk '/^Requests\/sec:/ {print $2}' "$1" ;;
	requests) awk '/requests in/ {print $1}' "$1" ;;
	errors) awk '/Socket errors|Non-2xx/ {
		for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+,?$/) s += $i }
		END {print s + 0}' "$1" ;;
	p50|p99)
		pc=${2#p}
		awk -v pc="$pc%" '$1 == pc {
			v = $2; u = v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v);
			m = (u == "us") ? 1 : (u == "ms") ? 1000 : (u == "s") ? 1000000 : 1;
			printf "%.0f\n", v * m }' "$1" ;;
	esac
}
