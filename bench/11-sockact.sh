#!/bin/bash
# 11. Socket activation (issue 33).  The same program woken through the
# gateway with and without "socket activation", in the same run, one
# wake of each in turn, BENCH_WAKES rounds (20; quick 5): the test
# backend (regress/e2e/testhttp.c, which serves on fd 3 when LISTEN_FDS
# says so, else binds its port), and Debian's gunicorn with a one-line
# WSGI app when it is installed.  Without activation the gateway waits
# for runtimed's readiness checks (a connect every 1 ms doubling to 50 ms
# until the program listens); with it the held request waits in the
# socket's own queue and the program's accept answers it.  The figure is
# the ratio of the medians, with activation over without.  Not in run.sh's
# default parts: run it alone.
#
#	bash bench/11-sockact.sh [--quick]
[ "${1:-}" = --quick ] && export BENCH_QUICK=1
. "$(dirname "$0")/lib.sh"

bench_init
bench_build
bench_tools
(cd "$TOP" && make -s BUILD="$BUILD" "$BUILD/regress/testhttp") \
    >>"$B/make.log" 2>&1 || die "cannot build testhttp"
if [ -n "$QUICK" ]; then
	WAKES=${BENCH_WAKES:-5}
else
	WAKES=${BENCH_WAKES:-20}
fi
P_T=$((WAKE_PORT + 20))		# testhttp, plain
P_TS=$((WAKE_PORT + 21))	# testhttp, activated
P_G=$((WAKE_PORT + 22))		# gunicorn, plain
P_GS=$((WAKE_PORT + 23))	# gunicorn, activated
check_ports "$GW_PORT" "$P_T" "$P_TS" "$P_G" "$P_GS"

mkdir -p "$B/bin" "$B/app"
cp "$BUILD/regress/testhttp" "$B/bin/testhttp"
chmod 0755 "$B/bin" "$B/bin/testhttp"
cat >"$B/app/app.py" <<'EOF'
def application(environ, start_response):
    start_response("200 OK", [("Content-Length", "6")])
    return [b"awake\n"]
EOF
chmod -R a+rX "$B/app"
GUNICORN=$(command -v gunicorn || :)

W=$B/sockact
mkdir -p "$W"
wl() {	# wl NAME PORT COMMAND [LINE]
	printf 'workload "%s" {\n\thost "%s.localhost"\n' "$1" "$1"
	printf '\tcommand "%s"\n\tport %s\n\tidle timeout 1h\n' "$3" "$2"
	[ -n "${4:-}" ] && printf '\t%s\n' "$4"
	printf '}\n'
}
{
	orchd_globals "$W"
	wl plain "$P_T" "$B/bin/testhttp serve $P_T"
	wl act "$P_TS" "$B/bin/testhttp serve $P_TS" "socket activation"
	if [ -n "$GUNICORN" ]; then
		wl gplain "$P_G" "$GUNICORN --workers 1 --bind 127.0.0.1:$P_G --chdir $B/app app:application"
		wl gact "$P_GS" "$GUNICORN --workers 1 --chdir $B/app app:application" "socket activation"
	fi
} >"$W/orchd.conf"
start_orchd "$W"

state_of() {	# state_of NAME
	"$ORCHCTL" -s "$W/orchd.sock" show workloads 2>/dev/null |
	    awk -v n="$1" '$1 == n {print $2}'
}
is_asleep() { [ "$(state_of "$1")" = asleep ]; }
put_to_sleep() {	# put_to_sleep NAME
	is_asleep "$1" ||
	    timeout 60 "$ORCHCTL" -s "$W/orchd.sock" suspend "$1" \
	    >>"$B/ctl.log" 2>&1
	wait_for 30 is_asleep "$1"
}
# gw_wake NAME: one request through the gateway, in microseconds
gw_wake() {
	taskset -c "$CCPU" "$B/herd" -n 1 -t 60 -H "$1.localhost" \
	    "$GW_PORT" >"$B/herd.out"
	sed -n 's/.* last_us=\([0-9]*\).*/\1/p' "$B/herd.out"
}

names="plain act"
[ -n "$GUNICORN" ] && names="$names gplain gact"
for n in $names; do
	: >"$B/w.$n"
	put_to_sleep "$n" || die "cannot suspend $n"
done
note "part 11: $WAKES rounds of wakes: $names"
for i in $(seq 1 "$WAKES"); do
	for n in $names; do
		v=$(gw_wake "$n")
		[ -n "$v" ] || die "wake of $n failed: $(cat "$B/herd.out")"
		echo "$v" >>"$B/w.$n"
		put_to_sleep "$n" || die "cannot suspend $n"
	done
done
stop_orchd

ms_of() { awk '{printf "%.2f", $1 / 1000}'; }
line() {	# line LABEL NAME
	printf '%-44s %8s %8s %8s %5s' "$1" \
	    "$(pctl 50 <"$B/w.$2" | ms_of)" "$(pctl 99 <"$B/w.$2" | ms_of)" \
	    "$(sort -g "$B/w.$2" | tail -n 1 | ms_of)" "$(wc -l <"$B/w.$2")"
}
out ""
out "== 11. Socket activation: $WAKES wakes each, interleaved (ms)"
out "$(printf '%-44s %8s %8s %8s %5s' '' p50 p99 max n)"
out "$(line "testhttp: wake, readiness polled" plain)"
out "$(line "testhttp: wake, socket activation" act)"
out "$(printf '%-44s %8s' "testhttp: activated / polled (median)" \
    "$(ratio "$(median <"$B/w.act")" "$(median <"$B/w.plain")")")"
if [ -n "$GUNICORN" ]; then
	out "$(line "gunicorn: wake, readiness polled" gplain)"
	out "$(line "gunicorn: wake, socket activation" gact)"
	out "$(printf '%-44s %8s' "gunicorn: activated / polled (median)" \
	    "$(ratio "$(median <"$B/w.gact")" "$(median <"$B/w.gplain")")")"
else
	out "gunicorn: skipped: not installed (apt-get install gunicorn)"
fi
for n in $names; do
	echo "   raw: $n us: $(tr '\n' ' ' <"$B/w.$n")" >>"$RESULTS"
done
exit 0
