#!/bin/bash
# make bench: the default parts, one after the other, into one dated results
# file, bench/results/YYYY-MM-DD-HHMM.txt, then the summary tables.
#
#	bench/run.sh [--quick] [PART ...]
#
# PART is a number, 1 to 9; 1 to 5 and 8 by default (6, the swarm,
# needs a swarm manager: regress/e2e/swarm.sh makes one; 7 is HTTP/2
# over TLS, with h2load; 8 is the TCP proxy, with redis-benchmark; 9,
# the memory budget, needs a v1 memory cgroup and takes about five
# minutes, two with --quick).  --quick: short rounds
# (about two minutes in all); without it the run takes about ten.  As
# root, loopback only; see bench/README.md and bench/lib.sh for the knobs.
set -u
cd "$(dirname "$0")/.." || exit 1
# other work on the machine (a build, a test suite) competes for the two
# CPUs: everything of the benchmark runs at a higher priority, the
# client, the servers and orchd alike (BENCH_NICE, -10; 0 to keep as is)
if [ -z "${BENCH_NICED:-}" ] && [ "${BENCH_NICE:--10}" != 0 ]; then
	export BENCH_NICED=1
	exec nice -n "${BENCH_NICE:--10}" bash "$0" "$@"
fi
BENCH_COMMAND="bench/run.sh $*"
export BENCH_COMMAND
parts=
for a in "$@"; do
	case $a in
	--quick) export BENCH_QUICK=1 ;;
	[1-9]) parts="$parts $a" ;;
	*) echo "usage: bench/run.sh [--quick] [1-9 ...]" >&2; exit 2 ;;
	esac
done
[ -n "$parts" ] || parts="1 2 3 4 5 8"

[ "$(id -u)" -eq 0 ] || { echo "bench: run as root" >&2; exit 1; }
sh bench/deps.sh >/dev/null || { echo "bench: bench/deps.sh failed" >&2; exit 1; }

# build once, for every part
TOP=$(pwd)
if [ -n "${BENCH_REF:-}" ]; then
	src=$TOP/build/bench-src
	rm -rf "$src"
	mkdir -p "$src"
	git archive "$BENCH_REF" | tar -x -C "$src" || exit 1
	BENCH_DESC="$(git rev-parse --short "$BENCH_REF") (git archive of $BENCH_REF, not the work tree)"
	export BENCH_DESC
	export BENCH_BUILD=$src/build
	unset BENCH_REF
else
	src=$TOP
	export BENCH_BUILD=${BENCH_BUILD:-$TOP/build/bench}
fi
echo "bench: building orchd (make BUILD=$BENCH_BUILD)"
(cd "$src" && make -s BUILD="$BENCH_BUILD" all) >/tmp/orchd-bench-make.$$ 2>&1 || {
	tail -n 20 /tmp/orchd-bench-make.$$ >&2
	rm -f /tmp/orchd-bench-make.$$
	echo "bench: make failed (set BENCH_REF=HEAD to bench the last commit)" >&2
	exit 1
}
rm -f /tmp/orchd-bench-make.$$
export BENCH_NOBUILD=1

mkdir -p bench/results
BENCH_RESULTS=$TOP/bench/results/$(date +%Y-%m-%d-%H%M).txt
[ -e "$BENCH_RESULTS" ] && BENCH_RESULTS=${BENCH_RESULTS%.txt}-$$.txt
export BENCH_RESULTS
. bench/lib.sh
machine_header >"$BENCH_RESULTS"
# what else runs: the figures mean less on a busy machine
{
	echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg); the run's nice: $(nice)"
	ps -eo pcpu=,comm= --sort=-pcpu | awk '$1 >= 5 {
		printf "# busy at start: %s %s%% CPU\n", $2, $1 }'
	echo
} >>"$BENCH_RESULTS"
t0=$(date +%s)
status=0
for p in $parts; do
	script=$(ls bench/0"$p"-*.sh)
	wait_quiet "${BENCH_QUIET_WAIT:-60}"
	echo "bench: part $p: $script (others busy: $(other_busy)% of the CPUs)"
	echo "# part $p: other processes busy at start: $(other_busy)% of the CPUs" \
	    >>"$BENCH_RESULTS"
	bash "$script" >/dev/null || { status=1; echo "bench: part $p failed" >&2; }
done
echo "# elapsed: $(($(date +%s) - t0)) s" >>"$BENCH_RESULTS"

echo
grep -v '^   raw' "$BENCH_RESULTS"
echo
echo "bench: results in ${BENCH_RESULTS#$TOP/}"
exit $status
