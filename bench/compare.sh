#!/bin/bash
# Two builds of orchd, built already, in turns: the parts named run once
# for each build per turn, the order of the builds swapped every turn
# (base head, head base, ...), all into one results file.  Part 1 has
# its own way to run both in the same rounds (BENCH_BASE and
# BENCH_BASE_BUILD): this is for the parts that start orchd themselves
# (2, 4, 5, 7 ...), whose figures then come from turns minutes apart, not
# from runs years apart in the git log.
#
#	BENCH_BASE_BUILD=DIR [BENCH_HEAD_BUILD=DIR] [BENCH_TURNS=N] \
#	    bash bench/compare.sh PART ...
#
# BENCH_HEAD_BUILD defaults to build/bench (make BUILD=build/bench);
# BENCH_TURNS to 3.  Each part's section in the file is preceded by a
# line "# turn T: BUILD (DIR)"; the other knobs are bench/lib.sh's.
set -u
cd "$(dirname "$0")/.." || exit 1
if [ -z "${BENCH_NICED:-}" ] && [ "${BENCH_NICE:--10}" != 0 ]; then
	export BENCH_NICED=1
	exec nice -n "${BENCH_NICE:--10}" bash "$0" "$@"
fi
[ "$(id -u)" -eq 0 ] || { echo "bench: run as root" >&2; exit 1; }
[ $# -gt 0 ] || { echo "usage: bench/compare.sh PART ..." >&2; exit 2; }
BASE=${BENCH_BASE_BUILD:?set BENCH_BASE_BUILD to the baseline build}
HEAD=${BENCH_HEAD_BUILD:-$(pwd)/build/bench}
TURNS=${BENCH_TURNS:-3}
for d in "$BASE" "$HEAD"; do
	[ -x "$d/orchd" ] || { echo "bench: no $d/orchd" >&2; exit 1; }
done
# the commit a build came from, if its tree is a git checkout
rev_of() { git -C "$1/.." rev-parse --short HEAD 2>/dev/null || echo '?'; }

export BENCH_COMMAND="bench/compare.sh $*"
export BENCH_DESC="base $(rev_of "$BASE") ($BASE), head $(rev_of "$HEAD") ($HEAD), in turns"
export BENCH_RESULTS=${BENCH_RESULTS:-$(pwd)/bench/results/$(date +%Y-%m-%d-%H%M)-compare.txt}
. bench/lib.sh
machine_header >>"$BENCH_RESULTS"
export BENCH_NOBUILD=1
status=0
for t in $(seq 1 "$TURNS"); do
	order="base head"
	[ $((t % 2)) = 0 ] && order="head base"
	for which in $order; do
		[ "$which" = base ] && dir=$BASE || dir=$HEAD
		for p in "$@"; do
			script=$(ls bench/0"$p"-*.sh) || exit 2
			echo "bench: turn $t: $which: part $p"
			{
				echo
				echo "# turn $t: $which $(rev_of "$dir") ($dir): part $p," \
				    "others busy $(other_busy)%, load $(cut -d' ' -f1-3 /proc/loadavg)"
			} >>"$BENCH_RESULTS"
			BENCH_BUILD=$dir bash "$script" >/dev/null ||
			    { status=1; echo "bench: part $p failed" >&2; }
		done
	done
done
echo "bench: results in $BENCH_RESULTS"
exit $status
