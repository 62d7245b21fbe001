#!/bin/sh
# The wall clock jumps an hour forward, then (another run) an hour back,
# under a running orchd: idleness is measured on the monotonic clock, so
# the jump neither suspends a workload that was just used nor keeps an
# idle one awake, and the history stays in the order things happened.
#
# How the clock moves: libfaketime (Debian's faketime package) preloaded
# into orchd, with FAKETIME_START_AFTER_SECONDS, which leaves a process
# on the real time for its first seconds and then adds the offset.  Every
# orchd process inherits LD_PRELOAD and FAKETIME* through exec (the
# parent passes its environment to the children it execs; workloads get
# a clean one), and the children, chrooted and filtered, need no file for
# it: the offset is in the environment.  The children start within
# milliseconds of each other, so they all jump together.
# FAKETIME_DONT_FAKE_MONOTONIC leaves CLOCK_MONOTONIC alone, as a real
# wall-clock step does.  A time namespace (unshare --time) would not do:
# it offsets the monotonic and boot clocks, never the wall clock.
#
# Each run: idle timeout 12 s, reaper interval 1 s, the jump 4 s after
# orchd's start.  A request wakes the workload at once; 3 s after the
# jump it must still run, and it must be suspended 11-16 s after that
# request.  The history must chain (each row's FROM the TO of the row
# before, asleep -> waking -> running -> suspending -> asleep -> waking
# after a second request), whatever its times say.
#
#	sh regress/faults/clockjump.sh build/check
. "$(dirname "$0")/../e2e/lib.sh"
e2e_init "$1"
need_root
ensure_user

FTLIB=
for f in /usr/lib/*/faketime/libfaketime.so.1 \
    /usr/lib/faketime/libfaketime.so.1; do
	[ -r "$f" ] && { FTLIB=$f; break; }
done
[ -n "$FTLIB" ] ||
    skip "no libfaketime (Debian's faketime package, tools/deps.sh test)"

IDLE=12		# seconds, the workload's idle timeout
JUMP=4		# seconds after orchd's start, the wall clock jumps

port_base 23
ports GW P
testhttp_bin
mkdir -p "$T/log"

# orchd under libfaketime: a wrapper that execs it (same pid); ASan wants
# its runtime first among the preloads, and libfaketime is before it
cat >"$T/faked" <<EOF
#!/bin/sh
LD_PRELOAD=$FTLIB
FAKETIME_START_AFTER_SECONDS=$JUMP
FAKETIME_DONT_FAKE_MONOTONIC=1
ASAN_OPTIONS=\$ASAN_OPTIONS:verify_asan_link_order=0
export LD_PRELOAD FAKETIME FAKETIME_START_AFTER_SECONDS
export FAKETIME_DONT_FAKE_MONOTONIC ASAN_OPTIONS
exec "$BUILD/orchd" "\$@"
EOF
chmod 0755 "$T/faked"
ORCHD=$T/faked

conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
reaper interval 1s
listen on 127.0.0.1 port $GW

workload "app" {
	host "app.test"
	command "$T/bin/testhttp serve $P"
	port $P
	idle timeout ${IDLE}s
}
CONF

get() { curl -sS -m 20 -H "Host: app.test" "http://127.0.0.1:$GW/"; }
state() {
	"$ORCHCTL" -s "$SOCK" show workloads | awk '$1 == "app" { print $2 }'
}
is_asleep() { [ "$(state)" = asleep ]; }
secs() { echo $(($(date +%s%N) / 1000000000)); }
between() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }	# between N LOW HIGH

# history: "EPOCH FROM TO" a row, oldest first, from show workload
history() {
	"$ORCHCTL" -s "$SOCK" show workload app | awk '
	    $1 == "TIME" { on = 1; next }
	    on && NF >= 3 { print $1, $2, $3 }' | while read -r t f to; do
		echo "$(date -d "$t" +%s) $f $to"
	done
}

# chained FILE: each row's FROM is the TO of the row before, and the
# states run asleep waking running suspending asleep waking
chained() {
	awk 'NR > 1 && $2 != prev { exit 1 } { prev = $3; s = s " " $2 }
	    END { if (s !~ /asleep waking running suspending asleep waking/)
		exit 1 }' "$1"
}

run() {		# run SIGN LABEL: one orchd whose wall clock jumps SIGN 1 h
	FAKETIME="${1}1h"
	export FAKETIME
	rm -rf "$T/db"
	t0=$(secs)
	if ! start_orchd; then
		fail "$2: orchd starts under libfaketime"
		tail -n 20 "$T/orchd.log"
		return
	fi
	unset FAKETIME
	ok "$2: orchd starts under libfaketime"
	check "$2: a request wakes app" [ "$(get)" = "hello from testhttp" ]
	treq=$(secs)
	# 3 s after the jump (orchd's children started with it, give or
	# take a few milliseconds)
	w=$((t0 + JUMP + 3 - $(secs)))
	[ "$w" -le 0 ] || sleep "$w"
	st=$(state)
	what="idle $(($(secs) - treq)) s of ${IDLE} s, app still runs"
	check "$2: 3 s after the jump, $what (it is $st)" [ "$st" = running ]
	wait_for $((IDLE + 6)) is_asleep
	after=$(($(secs) - treq))
	echo "# figure: clockjump_${2}_suspended_after $after s"
	what="after ${after} s idle, its timeout ${IDLE} s (11-16 s)"
	check "$2: app suspended $what" \
	    between "$after" $((IDLE - 1)) $((IDLE + 4))
	check "$2: a second request wakes it" \
	    [ "$(get)" = "hello from testhttp" ]
	history >"$T/hist"
	sed 's/^/#	/' "$T/hist"
	check "$2: the history chains in the order things happened" \
	    chained "$T/hist"
	# the proof that the daemon's wall clock moved: the suspend's time
	# is an hour from the wake's
	w=$(awk '$3 == "waking" { print $1; exit }' "$T/hist")
	s=$(awk '$3 == "suspending" { print $1; exit }' "$T/hist")
	d=$((${s:-0} - ${w:-0}))
	echo "# figure: clockjump_${2}_history_step $d s"
	what="suspend $d s after the wake in the history"
	lo=$((${1}3600))
	check "$2: the daemon's clock jumped ($what)" \
	    between "$d" "$lo" $((lo + 30))
	stop_orchd
	check "$2: orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]
}

run + forward
run - back
e2e_done
