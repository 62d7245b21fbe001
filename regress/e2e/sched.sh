#!/bin/sh
# Warm windows and scheduled wakes, on the schedules' clock shifted by
# ORCHD_TEST_CLOCK_OFFSET to a few seconds before 10:00 UTC on a
# wednesday: a window "wed 10:00-10:01" wakes its workload at its start,
# keeps it from the idle suspend inside (idle timeout 3s), and lets it
# sleep after; "wake at 0 10 * * *" runs a job that writes a file, then
# the workload sleeps on its idle timeout; with "for 20s", it stays up
# that long first.  The history says "schedule", orchctl and the API show
# the next window and wake.  Then, with a memory budget that a workload
# kept warm fills, a scheduled wake waits in the queue and is not
# admitted.  Loopback only, every wait bounded.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports GW API P_WIN P_JOB P_HOLD
KEY=e2e-sched-$$-0123456789abcdef
mkdir -p "$T/log"
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
testhttp_bin
# the workload's own job: a line in a file each time it runs
cat >"$T/bin/job.sh" <<EOF
#!/bin/sh
date -u +%s >>"$T/job.out"
exec "$T/bin/testhttp" serve \$1
EOF
chmod 0755 "$T/bin/job.sh"
: >"$T/job.out"
chmod 0666 "$T/job.out"

conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
idle timeout 3s
reaper interval 1s
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"

workload "win" {
	host "win.test"
	command "$T/bin/testhttp serve $P_WIN"
	port $P_WIN
	keep warm during "wed 10:00-10:01" timezone "UTC"
	keep warm during "thu 10:00-18:00" timezone "Europe/Paris"
}
workload "job" {
	host "job.test"
	command "/bin/sh $T/bin/job.sh $P_JOB"
	port $P_JOB
	wake at "0 10 * * *" timezone "UTC"
}
workload "hold" {
	host "hold.test"
	command "$T/bin/testhttp serve $P_HOLD"
	port $P_HOLD
	wake at "0 10 * * wed" timezone "UTC" for 20s
}
CONF
"$ORCHD" -n -f "$T/orchd.conf" >"$T/n.out" 2>&1
check "orchd -n takes the windows and wakes" [ $? -eq 0 ]

state() {	# state NAME: its state, as orchctl shows it
	"$ORCHCTL" -s "$SOCK" show workloads 2>/dev/null |
	    awk -v n="$1" '$1 == n { print $2 }'
}
is() { [ "$(state "$1")" = "$2" ]; }

# a bad shift of the clock: orchd does not run, and says why
for bad in 12abc 99999999999; do
	ORCHD_TEST_CLOCK_OFFSET=$bad timeout 20 "$ORCHD" -d -f "$T/orchd.conf" \
	    >"$T/bad.log" 2>&1
	st=$?
	check "ORCHD_TEST_CLOCK_OFFSET=$bad: orchd exits ($st)" \
	    sh -c "[ $st -ne 0 ] && [ $st -ne 124 ]"
	check "... saying why: $(grep -m 1 CLOCK "$T/bad.log")" grep -qF \
	    "fatal: ORCHD_TEST_CLOCK_OFFSET \"$bad\" is" "$T/bad.log"
	check "... and the bounds" grep -qF \
	    'seconds from -632448000 to 632448000' "$T/bad.log"
done

# the schedules' clock: 2030-01-02 (a wednesday) 09:59:55 UTC, now
FAKE=$(date -u -d '2030-01-02 09:59:55' +%s)
ORCHD_TEST_CLOCK_OFFSET=$((FAKE - $(date +%s)))
export ORCHD_TEST_CLOCK_OFFSET
T0=$(date +%s)
start_orchd_or_exit
OFFSET=$ORCHD_TEST_CLOCK_OFFSET
unset ORCHD_TEST_CLOCK_OFFSET
# orchctl computes the next times itself: on the same clock
show() { ORCHD_TEST_CLOCK_OFFSET=$OFFSET "$ORCHCTL" -s "$SOCK" show "$@"; }

check "before 10:00 the window's workload sleeps" is win asleep
check "... and so does the wake's" is job asleep
show workload win >"$T/show" 2>&1
check "orchctl show workload: its windows" \
    grep -q 'warm during: *wed 10:00-10:01 timezone UTC' "$T/show"
check "... and the next window, 2030-01-02 10:00 UTC" \
    grep -q 'next window: *2030-01-02T10:00:00Z' "$T/show"
show workload job >"$T/show.job" 2>&1
ORCHD_TEST_CLOCK_OFFSET=12abc "$ORCHCTL" -s "$SOCK" show workload job \
    >/dev/null 2>"$T/show.bad"
check "orchctl says a bad ORCHD_TEST_CLOCK_OFFSET: $(cat "$T/show.bad")" \
    grep -qxF 'orchctl: ORCHD_TEST_CLOCK_OFFSET "12abc" is invalid: seconds from -632448000 to 632448000: the host'"'"'s clock is used' \
    "$T/show.bad"
check "... the next wake of the job" \
    grep -q 'next wake: *2030-01-02T10:00:00Z' "$T/show.job"
curl -s -m 10 -H "Authorization: Bearer $KEY" \
    "http://127.0.0.1:$API/v1/workloads/win" >"$T/api.json"
check "API: keep_warm_during and next_window" python3 -c '
import json, sys
w = json.load(open(sys.argv[1]))
assert "wed 10:00-10:01 timezone UTC" in w["keep_warm_during"], w
assert w["next_window"]["start"] == "2030-01-02T10:00:00Z", w
assert w["next_window"]["end"] == "2030-01-02T10:01:00Z", w
assert "zones" not in w, w
' "$T/api.json"

check "at 10:00 the window wakes its workload" wait_for 20 is win running
check "... and the wake runs the job" wait_for 20 is job running
check "... which wrote its file" wait_for 10 grep -q . "$T/job.out"
check "... the one with for 20s runs too" wait_for 10 is hold running

# idle timeout 3s: the job sleeps, the window and the hold keep theirs up
check "the job sleeps after its idle timeout" wait_for 20 is job asleep
sleep $((T0 + 17 - $(date +%s) > 0 ? T0 + 17 - $(date +%s) : 0))
check "inside its window, idle for 10s, the workload still runs" \
    is win running
check "... and the wake's for 20s keeps its own up" is hold running
check "after its for, the wake's workload sleeps" wait_for 30 is hold asleep
check "... while the window's still runs (10:00:4x)" is win running

"$ORCHCTL" -s "$SOCK" show history job >"$T/hist.job" 2>&1
check "history of the job: woken by schedule" grep -q schedule "$T/hist.job"
"$ORCHCTL" -s "$SOCK" show history win >"$T/hist.win" 2>&1
check "history of the window: woken by schedule" \
    grep -q schedule "$T/hist.win"
curl -s -m 10 -H "Authorization: Bearer $KEY" \
    "http://127.0.0.1:$API/v1/workloads/job/history" >"$T/hist.json"
check "API history: cause schedule" grep -q '"schedule"' "$T/hist.json"

# 10:01: the window ends, and its workload idles as any other
check "after its window, the workload sleeps" wait_for 40 is win asleep
show workload win >"$T/show2" 2>&1
check "... and the next window is thursday 10:00 Paris, 09:00 UTC" \
    grep -q 'next window: *2030-01-03T09:00:00Z' "$T/show2"
check "a request still wakes it" \
    sh -c "curl -s -m 30 -H 'Host: win.test' http://127.0.0.1:$GW/ | grep -q hello"

stop_orchd
check "orchd exits cleanly" [ "$STATUS" -eq 0 ]

# A scheduled wake waits in the budget's queue as any wake: with no room
# (a workload kept warm holds it), it is not started within its wake
# timeout, and the workload stays asleep.
ports P_BIG P_NR
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
memory budget 100M
memory estimate 64M
wake timeout 4s
listen on 127.0.0.1 port $GW

workload "big" {
	host "big.test"
	command "$T/bin/testhttp serve $P_BIG"
	port $P_BIG
	keep warm
}
workload "nr" {
	host "nr.test"
	command "/bin/sh $T/bin/job.sh $P_NR"
	port $P_NR
	wake at "0 10 * * *" timezone "UTC"
}
CONF
: >"$T/orchd.log"
lines=$(wc -l <"$T/job.out")
FAKE=$(date -u -d '2030-01-02 09:59:57' +%s)
ORCHD_TEST_CLOCK_OFFSET=$((FAKE - $(date +%s)))
export ORCHD_TEST_CLOCK_OFFSET
start_orchd_or_exit
unset ORCHD_TEST_CLOCK_OFFSET
check "no room: the kept warm workload holds the budget" \
    wait_for 20 is big running
check "... the scheduled wake is tried at 10:00" \
    wait_for 20 grep -q "workload nr: woken by its schedule" "$T/orchd.log"
check "... and waits for room, then is not admitted" \
    wait_for 20 grep -q "workload nr: wake not admitted: no room" \
    "$T/orchd.log"
check "... so the workload still sleeps" is nr asleep
check "... and its job did not run" [ "$(wc -l <"$T/job.out")" -eq "$lines" ]
stop_orchd
check "orchd exits cleanly again" [ "$STATUS" -eq 0 ]
e2e_done
