#!/bin/sh
# Scale to zero: what counts as activity (a stream, a slow answer), the
# ORCHD_IDLE_TIMEOUT override and its 0, and requests that arrive while a
# suspend is under way, many times over.  Workloads woken by keep warm or
# orchctl wake and never requested, and orchctl keepwarm off for a block
# that says keep warm, before and after a restart.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

GW=$((21000 + $$ % 9000))
P_APP=$((GW + 1))
P_RACE=$((GW + 2))
P_KW=$((GW + 3))
P_WOKEN=$((GW + 4))
mkdir -p "$T/log" "$T/bin"
cp "$BUILD/regress/testhttp" "$T/bin/testhttp"
# stops slowly: the window in which a request finds it suspending
cat >"$T/bin/race.sh" <<EOF
#!/bin/sh
echo start >>"$T/race.starts"
trap 'sleep 1; exit 0' TERM
"$T/bin/testhttp" serve $P_RACE &
wait \$!
sleep 1
EOF
: >"$T/app.starts"
: >"$T/race.starts"
: >"$T/kw.starts"
chmod 0755 "$T/bin" "$T/bin/testhttp" "$T/bin/race.sh"
chmod 0666 "$T/app.starts" "$T/race.starts" "$T/kw.starts"

write_conf() {	# write_conf IDLE
	cat >"$T/orchd.conf" <<CONF
socket "$SOCK"
log directory "$T/log"
database "$T/db/orchd.db"
$(conf_instance)
idle timeout $1
reaper interval 1s
listen on 127.0.0.1 port $GW

workload "app" {
	host "app.test"
	command "$T/bin/testhttp serve $P_APP $T/app.starts"
	port $P_APP
}
workload "race" {
	host "race.test"
	command "/bin/sh $T/bin/race.sh"
	port $P_RACE
}
CONF
}

get() {		# get HOST PATH
	curl -sS -m 30 -H "Host: $1" "http://127.0.0.1:$GW$2"
}
starts() { wc -l <"$T/$1.starts" | tr -d ' '; }
is_state() {	# is_state NAME STATE
	"$ORCHCTL" -s "$SOCK" show workloads | grep -Eq "^$1 +$2 "
}
count() { grep -c "$1" "$T/orchd.log"; }

write_conf 1s
check "orchd starts" start_orchd

# a stream and a slow answer, each longer than the idle timeout
get app.test '/stream?30' >"$T/stream.out"
check "a 3 s stream with a 1 s idle timeout arrives whole" \
    [ "$(grep -c tick "$T/stream.out")" -eq 30 ]
check "on one start ($(starts app))" [ "$(starts app)" -eq 1 ]
check "a 3 s slow answer completes" [ "$(get app.test '/slow?3000')" = slow ]
check "still on one start ($(starts app))" [ "$(starts app)" -eq 1 ]
check "once idle, it is suspended" wait_for 10 is_state app asleep
mem=$("$ORCHCTL" -j -s "$SOCK" show stats | python3 -c 'import json, sys
s = json.load(sys.stdin)
print([w for w in s["workloads"] if w["name"] == "app"][0]["memory"] or 0)')
check "its memory was measured before the stop ($mem bytes)" \
    [ "${mem:-0}" -gt 100000 ]
check "and the next request wakes it: $(get app.test /)" \
    [ "$(starts app)" -eq 2 ]

# requests arriving while a suspend is under way, again and again
round=0
ok=0
while [ $round -lt 12 ]; do
	round=$((round + 1))
	before=$(count 'workload race: running -> suspending')
	get race.test / >/dev/null 2>&1
	wait_for 10 sh -c "[ \$(grep -c 'workload race: running -> suspending' \
	    '$T/orchd.log') -gt $before ]" || continue
	# it is stopping now: this request must wait for a fresh start
	if [ "$(get race.test /)" = "hello from testhttp" ]; then
		ok=$((ok + 1))
	fi
	wait_for 10 is_state race asleep
done
check "12 requests that came while it stopped were all served ($ok)" \
    [ "$ok" -eq 12 ]
check "each by a fresh start ($(starts race) starts)" [ "$(starts race)" -ge 24 ]
check "and it never failed" \
    sh -c "! grep -q 'workload race: .* -> failed' '$T/orchd.log'"
stop_orchd

# ORCHD_IDLE_TIMEOUT overrides the configuration; 0 turns the reaper off
write_conf 1h
: >"$T/app.starts"
ORCHD_IDLE_TIMEOUT=1s
export ORCHD_IDLE_TIMEOUT
check "orchd starts with ORCHD_IDLE_TIMEOUT=1s" start_orchd
get app.test / >/dev/null
check "its 1 s beats the configured hour" wait_for 10 is_state app asleep
stop_orchd

ORCHD_IDLE_TIMEOUT=0
check "orchd starts with ORCHD_IDLE_TIMEOUT=0" start_orchd
check "the log says the reaper is off" wait_for 5 grep -q "reaper off" "$T/orchd.log"
get app.test / >/dev/null
sleep 4
check "nothing is suspended" is_state app running
stop_orchd
unset ORCHD_IDLE_TIMEOUT

ORCHD_IDLE_TIMEOUT=soon
export ORCHD_IDLE_TIMEOUT
"$ORCHD" -d -f "$T/orchd.conf" >"$T/bad.log" 2>&1
st=$?
check "a bad ORCHD_IDLE_TIMEOUT is refused (status $st)" [ "$st" -ne 0 ]
check "naming it" grep -q "ORCHD_IDLE_TIMEOUT=soon" "$T/bad.log"
unset ORCHD_IDLE_TIMEOUT

# Keep warm in the block, then orchctl keepwarm off: the reaper must learn
# of the override, now and from the store after a restart.  A workload
# woken by keep warm or orchctl wake and never requested is idle from its
# wake.
cat >"$T/orchd.conf" <<CONF
socket "$SOCK"
log directory "$T/log"
database "$T/db/orchd.db"
$(conf_instance)
idle timeout 2s
reaper interval 1s
listen on 127.0.0.1 port $GW

workload "kw" {
	host "kw.test"
	command "$T/bin/testhttp serve $P_KW $T/kw.starts"
	port $P_KW
	keep warm
}
workload "woken" {
	host "woken.test"
	command "$T/bin/testhttp serve $P_WOKEN"
	port $P_WOKEN
}
CONF
ctl() { "$ORCHCTL" -s "$SOCK" "$@" >"$T/ctl.out" 2>&1; }
suspended_idle() {	# suspended_idle NAME: the reaper's doing, once more
	[ "$(grep -c "workload $1: running -> suspending (idle)" \
	    "$T/orchd.log")" -ge "$2" ]
}
check "orchd starts with a keep warm workload" start_orchd
check "which it wakes" wait_for 10 is_state kw running
sleep 3
check "3 s later, past its 2 s idle timeout, it runs still" is_state kw running
check "orchctl keepwarm kw off" ctl keepwarm kw off
check "then the reaper suspends it, never requested" \
    wait_for 10 is_state kw asleep
check "as idle" suspended_idle kw 1
check "started once ($(starts kw))" [ "$(starts kw)" -eq 1 ]
check "orchctl wake woken" ctl wake woken
check "it runs" is_state woken running
check "and, never requested, is suspended as idle" \
    wait_for 10 suspended_idle woken 1
check "and asleep" wait_for 5 is_state woken asleep
stop_orchd

# the store keeps the override: not woken at start, reaped after a request
check "orchd starts again" start_orchd
sleep 2
check "the overridden keep warm workload is not woken" is_state kw asleep
check "a request wakes it: $(get kw.test /)" [ "$(starts kw)" -eq 2 ]
check "and it is suspended once idle" wait_for 10 suspended_idle kw 2
check "orchctl keepwarm kw on" ctl keepwarm kw on
check "wakes it" wait_for 10 is_state kw running
sleep 3
check "and the reaper leaves it alone" is_state kw running
stop_orchd

ORCHD_PID=
e2e_done
