#!/bin/sh
# Configuration deltas out of step (orchd-security(7)): a reload sends
# runtimed and the gateways only the definitions that changed, as a
# delta on the generation they run.  Here the parent's channel to
# runtimed is taken over (regress/e2e/deltamitm.py, installed beside a
# copy of orchd as "runtimed", relaying to the real one) and each
# reload's delta changed: its base made another generation, the delta
# replayed, truncated (its last run of kept definitions dropped), each
# run kept twice, a changed definition sent twice.  Each time runtimed
# must refuse the delta, saying why, ask for a full generation, and the
# reload must end with the new configuration everywhere: the changed
# workload's new setting, the removed one unknown to runtimed, the added
# one woken by a request (runtimed starts only what it was told of), the
# one kept still running, and orchd still running.  The control, a relay that changes
# nothing, takes the delta.  Loopback only, every wait bounded.
#
#	sh regress/e2e/attack_delta.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
command -v python3 >/dev/null || skip "no python3"
[ -x /bin/busybox ] || skip "no /bin/busybox"

ports GW WA WB
mkdir -p "$T/bin" "$T/log" "$T/www"
echo "delta" >"$T/www/index.html"
chmod 0755 "$T/www"
chmod 0644 "$T/www/index.html"
for p in orchd confd spawnerd stored gatewayd reaperd acmed orchctl; do
	cp "$BUILD/$p" "$T/bin/$p"
done
cp "$BUILD/runtimed" "$T/bin/runtimed.real"
cp "$(dirname "$0")/deltamitm.py" "$T/bin/runtimed"
chmod 0755 "$T/bin/runtimed"
echo control >"$T/bin/scenario"
ORCHD=$T/bin/orchd

# conf N: aa, a workload named cN, and bb whose idle timeout is N minutes
conf() {
	{
		conf_head
		echo "listen on 127.0.0.1 port $GW"
		echo "wake timeout 20s"
		printf 'workload "aa" {\n\thost "aa.test"\n'
		printf '\tcommand "/bin/busybox httpd -f -p 127.0.0.1:%d -h %s"\n' \
		    "$WA" "$T/www"
		printf '\tport %d\n}\n' "$WA"
		printf 'workload "c%s" {\n\thost "c%s.test"\n' "$1" "$1"
		printf '\tcommand "/bin/busybox httpd -f -p 127.0.0.1:%d -h %s"\n' \
		    "$WB" "$T/www"
		printf '\tport %d\n}\n' "$WB"
		printf 'workload "bb" {\n\thost "bb.test"\n'
		printf '\tcommand "/bin/sleep 600"\n\tport %d\n' $((WB + 1))
		printf '\tidle timeout %dm\n}\n' "$1"
	} >"$T/orchd.conf"
}
code() {	# code HOST: the gateway's answer for HOST
	curl -s -m 30 -o /dev/null -w '%{http_code}' -H "Host: $1" \
	    "http://127.0.0.1:$GW/"
}
logged() { wait_for 10 grep -q "$1" "$T/orchd.log"; }
reload() { "$ORCHCTL" -s "$SOCK" reload >"$T/out" 2>&1; }
# the store's list of names
listed() { "$ORCHCTL" -s "$SOCK" show workloads 2>/dev/null |
    awk 'NR > 1 { print $1 }' | sort | tr '\n' ' '; }

conf 1
start_orchd_or_exit -v
check "aa answers 200 through the relay" [ "$(code aa.test)" = 200 ]

N=1
# attack SCENARIO REASON: a reload with that delta; runtimed refuses it
attack() {
	echo "$1" >"$T/bin/scenario"
	N=$((N + 1))
	conf "$N"
	check "$1: the reload succeeds" reload
	check "... runtimed refuses the delta: $2" \
	    logged "runtime: configuration [0-9]*: delta refused: $2"
	check "... the parent sends a full one" \
	    logged "runtime refused the delta of configuration [0-9]*: sending a full one"
	check "... the list is the new one" \
	    [ "$(listed)" = "$(printf 'aa\nbb\nc%s\n' "$N" | sort | tr '\n' ' ')" ]
	check "... the added one wakes: c$N.test answers 200" \
	    [ "$(code "c$N.test")" = 200 ]
	check "... the one removed routes nowhere" \
	    [ "$(code "c$((N - 1)).test")" != 200 ]
	check "... runtimed knows the one removed no more" sh -c \
	    "! \"$ORCHCTL\" -s \"$SOCK\" wake c$((N - 1)) >/dev/null 2>&1"
	check "... aa, kept, still answers 200" [ "$(code aa.test)" = 200 ]
	check "... bb has its new idle timeout" sh -c \
	    "\"$ORCHCTL\" -s \"$SOCK\" show workload bb | grep -q '${N}m'"
	check "... orchd still runs" kill -0 "$ORCHD_PID"
	# the next scenario's lines are told from this one's
	: >"$T/orchd.log"
}

attack base "its base is not the current generation"
attack replay "a second delta in one generation"
attack truncate "fewer definitions than it said"
attack keeptwice "a definition kept twice"
attack twice "more definitions than it said"

echo control >"$T/bin/scenario"
N=$((N + 1))
conf "$N"
check "control: the reload succeeds" reload
check "... runtimed takes the delta" \
    logged "runtime: configuration [0-9]*: delta of 2 on"
check "... and refuses none" \
    sh -c "! grep -q 'delta refused' \"$T/orchd.log\""
check "... c$N.test answers 200" [ "$(code "c$N.test")" = 200 ]

stop_orchd
check "orchd stops cleanly" [ "$STATUS" = 0 ]
check "no sanitizer report" sh -c "! grep -q 'Sanitizer' \"$T/orchd.log\""
e2e_done
