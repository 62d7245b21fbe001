#!/bin/sh
# Every fuzz target links and runs: make fuzz builds them (clang's
# libFuzzer, with the sanitizers) from their lists of sources in the
# Makefile, which a new dependency of a parser silently breaks; each
# then runs a few seconds from its seed corpus, and a crash fails here.
# The long runs are make fuzz's own (FUZZ_SECONDS, regress/README).
# No daemon is started.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
top=$(cd "$(dirname "$0")/../.." && pwd)
command -v clang >/dev/null 2>&1 ||
    skip "no clang (tools/deps.sh test installs it)"

targets=$(make -s -C "$top" -f Makefile -p -n 2>/dev/null |
    awk -F' = ' '$1 == "FUZZ_TARGETS" { print $2; exit }')
[ -n "$targets" ] || { fail "the Makefile names the fuzz targets"; e2e_done; }
for t in $targets; do
	if make -s -C "$top" "build/fuzz/fuzz_$t" >"$T/$t.log" 2>&1; then
		ok "fuzz_$t links"
	else
		fail "fuzz_$t links"
		grep -E 'undefined reference|error:' "$T/$t.log" | sort -u |
		    head -n 5 | sed 's/^/# /'
	fi
done
if make -s -C "$top" fuzz FUZZ_SECONDS=2 >"$T/run.log" 2>&1; then
	ok "each runs 2 s from its seeds without a crash"
else
	fail "each runs 2 s from its seeds without a crash"
	tail -n 5 "$T/run.log" | sed 's/^/# /'
fi
e2e_done
