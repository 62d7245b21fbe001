#!/bin/sh
# Configuration deltas out of step on the store's, the reaper's and the
# gateway's channels (orchd-security(7)): a reload sends them only the
# definitions that changed, as a delta on the generation they run, and
# they keep no definitions cfgrecv.c can keep, only the names of their
# generation and their own state of each workload.  Here the parent's
# channels to stored, reaperd and gatewayd are
# taken over (regress/e2e/deltamitm.py, installed beside a copy of orchd
# under each one's name, relaying to the real one) and, one child at a
# time, each reload's delta changed: its base made another generation,
# the delta replayed, truncated (its last run of kept definitions
# dropped), each run kept twice, a changed definition sent twice, the
# globals changed under it.  Each time that child must refuse the delta,
# saying why, ask for a full generation (once: the full one is not
# refused, no loop), and the reload must end with the new configuration
# everywhere: the store's rows exactly the new names, with the changed
# definition; the reaper and the gateway at the new generation's count;
# the added one routing, the removed one not, the kept one still answering, orchd
# still running.  The control, relays that change nothing, take the
# delta.  Loopback only, every wait bounded.
#
#	sh regress/e2e/attack_delta_children.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
command -v python3 >/dev/null || skip "no python3"
command -v sqlite3 >/dev/null || skip "no sqlite3"
[ -x /bin/busybox ] || skip "no /bin/busybox"

ports GW WA WB
mkdir -p "$T/bin" "$T/log" "$T/www"
echo "delta" >"$T/www/index.html"
chmod 0755 "$T/www"
chmod 0644 "$T/www/index.html"
for p in orchd confd spawnerd runtimed acmed orchctl; do
	cp "$BUILD/$p" "$T/bin/$p"
done
for p in stored reaperd gatewayd; do
	cp "$BUILD/$p" "$T/bin/$p.real"
	cp "$(dirname "$0")/deltamitm.py" "$T/bin/$p"
	chmod 0755 "$T/bin/$p"
done
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
sql() { sqlite3 -readonly "$T/db/orchd.db" "$1" 2>/dev/null; }
# the rows are aa bb cN (the store writes them once START came: waited)
rows_are() { wait_for 10 sh -c "[ \"\$(sqlite3 -readonly '$T/db/orchd.db' \
    'SELECT name FROM workloads ORDER BY name' | tr '\n' ' ')\" = \
    'aa bb c$1 ' ]"; }
# bb's row says its idle timeout is N minutes (N * 60 seconds)
bbrow() { sql "SELECT definition FROM workloads WHERE name = 'bb'" |
    grep -q "$(($1 * 60))"; }
# WHO's last generation applied: N workloads
applied() { grep "$1: configuration [0-9]* applied" "$T/orchd.log" |
    tail -n 1 | grep -q ", $2 workloads"; }

conf 1
start_orchd_or_exit -v
check "aa answers 200 through the relays" [ "$(code aa.test)" = 200 ]
check "bb's row has its idle timeout" bbrow 1

N=1
# attack SCENARIO PROG WHO REASON: a reload with that delta to PROG
attack() {
	echo "$1 $2" >"$T/bin/scenario"
	N=$((N + 1))
	conf "$N"
	check "$1 ($3): the reload succeeds" reload
	check "... the $3 refuses the delta: $4" \
	    logged "$3: configuration [0-9]*: delta refused: $4"
	check "... the parent sends a full one" \
	    logged "$3 refused the delta of configuration [0-9]*: sending a full one"
	check "... once: one refusal" [ "$(grep -c 'delta refused' \
	    "$T/orchd.log")" = 1 ]
	check "... the store's rows are the new ones" rows_are "$N"
	check "... bb's row has its new idle timeout" wait_for 10 bbrow "$N"
	check "... the reaper applied the new one, 3 workloads" \
	    wait_for 10 applied reaper 3
	check "... the gateway applied the new one, 3 workloads" \
	    wait_for 10 applied gateway 3
	check "... the added one wakes: c$N.test answers 200" \
	    [ "$(code "c$N.test")" = 200 ]
	check "... the one removed routes nowhere" \
	    [ "$(code "c$((N - 1)).test")" != 200 ]
	check "... aa, kept, still answers 200" [ "$(code aa.test)" = 200 ]
	check "... orchd still runs" kill -0 "$ORCHD_PID"
	# the next scenario's lines are told from this one's
	: >"$T/orchd.log"
}

for who in store:stored reaper:reaperd gateway:gatewayd; do
	w=${who%%:*}
	p=${who#*:}
	attack base "$p" "$w" "its base is not the current generation"
	attack replay "$p" "$w" "a second delta in one generation"
	attack truncate "$p" "$w" "fewer definitions than it said"
	attack keeptwice "$p" "$w" "a definition kept twice"
	attack twice "$p" "$w" "more definitions than it said"
	attack global "$p" "$w" "its globals are not its base's"
done

echo control >"$T/bin/scenario"
N=$((N + 1))
conf "$N"
check "control: the reload succeeds" reload
for w in store reaper gateway; do
	check "... the $w takes the delta" \
	    logged "$w: configuration [0-9]*: delta of 2 on [0-9]*, 1 kept, 1 removed"
done
check "... and refuses none" \
    sh -c "! grep -q 'delta refused' \"$T/orchd.log\""
check "... the store's rows are the new ones" rows_are "$N"
check "... bb's row has its new idle timeout" wait_for 10 bbrow "$N"
check "... c$N.test answers 200" [ "$(code "c$N.test")" = 200 ]

stop_orchd
check "orchd stops cleanly" [ "$STATUS" = 0 ]
check "no sanitizer report" sh -c "! grep -q 'Sanitizer' \"$T/orchd.log\""
e2e_done
