#!/bin/sh
# A group's schedules (orchd.conf's "group NAME { ... }"), on the
# schedules' clock shifted by ORCHD_TEST_CLOCK_OFFSET to a few seconds
# before 10:00 UTC on a wednesday.  Group "gs" has a window "wed
# 10:00-10:01": its two members of the file and a member the API
# creates afterwards are all woken at its start, kept from the idle
# suspend inside it (idle timeout 3s), and sleep after.  Group "gw" has
# a wake at 10:00: both its members are woken, then sleep on their idle
# timeout.  orchctl show groups and GET /v1/groups/gs show the next
# window, a reload that changes the block changes it for every member;
# orchd -nv prints the blocks back.  Loopback only, every wait
# bounded.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports GW API P_A P_B P_C P_X P_Y
KEY=e2e-gsched-$$-0123456789abcdef
mkdir -p "$T/log"
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
testhttp_bin

conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
idle timeout 3s
reaper interval 1s
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
api allow process

group "gs" {
	keep warm during "wed 10:00-10:01" timezone "UTC"
	keep warm during "thu 10:00-18:00" timezone "Europe/Paris"
}
group "gw" {
	wake at "0 10 * * *" timezone "UTC"
}
workload "ga" {
	host "ga.test"
	command "$T/bin/testhttp serve $P_A"
	port $P_A
	group "gs"
}
workload "gb" {
	host "gb.test"
	command "$T/bin/testhttp serve $P_B"
	port $P_B
	group "gs"
}
workload "gx" {
	host "gx.test"
	command "$T/bin/testhttp serve $P_X"
	port $P_X
	group "gw"
}
workload "gy" {
	host "gy.test"
	command "$T/bin/testhttp serve $P_Y"
	port $P_Y
	group "gw"
}
CONF
"$ORCHD" -nv -f "$T/orchd.conf" >"$T/nv.out" 2>"$T/nv.err"
check "orchd -n takes the group blocks" [ $? -eq 0 ]
check "orchd -nv prints the group block back" python3 -c '
import sys
t = open(sys.argv[1]).read()
assert """group "gs" {
	keep warm during "wed 10:00-10:01 timezone UTC"
	keep warm during "thu 10:00-18:00 timezone Europe/Paris"
}""" in t, t
assert """group "gw" {
	wake at "0 10 * * * timezone UTC"
}""" in t, t
' "$T/nv.out"
# what -nv printed reads again
sed -n '/^group "gs"/,$p' "$T/nv.out" >"$T/nv.conf"
{ conf_head; cat "$T/nv.conf"; } >"$T/again.conf"
check "... and what it printed parses again" \
    "$ORCHD" -n -f "$T/again.conf"

state() {	# state NAME: its state, as orchctl shows it
	"$ORCHCTL" -s "$SOCK" show workloads 2>/dev/null |
	    awk -v n="$1" '$1 == n { print $2 }'
}
is() { [ "$(state "$1")" = "$2" ]; }

# the schedules' clock: 2030-01-02 (a wednesday) 09:59:45 UTC, now
FAKE=$(date -u -d '2030-01-02 09:59:45' +%s)
ORCHD_TEST_CLOCK_OFFSET=$((FAKE - $(date +%s)))
export ORCHD_TEST_CLOCK_OFFSET
T0=$(date +%s)
start_orchd_or_exit
OFFSET=$ORCHD_TEST_CLOCK_OFFSET
unset ORCHD_TEST_CLOCK_OFFSET
show() { ORCHD_TEST_CLOCK_OFFSET=$OFFSET "$ORCHCTL" -s "$SOCK" show "$@"; }
jshow() { ORCHD_TEST_CLOCK_OFFSET=$OFFSET "$ORCHCTL" -j -s "$SOCK" show "$@"; }

# a member the API makes after the group block was read
printf '{"name": "gc", "hosts": ["gc.test"], "driver": "process", "command": "%s serve %s", "port": %s, "group": "gs"}' \
    "$T/bin/testhttp" "$P_C" "$P_C" >"$T/body"
st=$(curl -s -m 30 -o "$T/out" -w '%{http_code}' \
    -H "Authorization: Bearer $KEY" --data-binary "@$T/body" \
    "http://127.0.0.1:$API/v1/workloads")
check "an API member of gs is created ($st: $(head -c 200 "$T/out"))" \
    [ "$st" = 201 ]
check "before 10:00 the members sleep" sh -c \
    "[ '$(state ga)' = asleep ] && [ '$(state gb)' = asleep ] && [ '$(state gx)' = asleep ]"
curl -s -m 10 -H "Authorization: Bearer $KEY" \
    "http://127.0.0.1:$API/v1/workloads/gc" >"$T/gc.json"
check "the API member's definition has no group schedules of its own" \
    python3 -c '
import json, sys
w = json.load(open(sys.argv[1]))
assert "keep_warm_during" not in w and "group_keep_warm_during" not in w, w
assert w["next_window"]["start"] == "2030-01-02T10:00:00Z", w
' "$T/gc.json"
st=$(curl -s -m 30 -o "$T/out" -w '%{http_code}' -X PATCH \
    -H "Authorization: Bearer $KEY" --data-binary '{"description": "c"}' \
    "http://127.0.0.1:$API/v1/workloads/gc")
check "a PATCH of the API member: 200 ($st: $(head -c 200 "$T/out"))" \
    [ "$st" = 200 ]
show groups >"$T/groups" 2>&1
check "orchctl show groups: gs's next window, 10:00 UTC" \
    sh -c "sed -n '/^gs /,/^[^ ]/p' '$T/groups' | grep -q 'next window: 2030-01-02T10:00:00Z until 2030-01-02T10:01:00Z'"
check "... gw's next wake, 10:00 UTC" \
    sh -c "sed -n '/^gw /,/^[^ ]/p' '$T/groups' | grep -q 'next wake: 2030-01-02T10:00:00Z'"
jshow workload ga >"$T/ga.json" 2>&1
check "orchctl -j show workload: the member's definition, without its group's" \
    sh -c "grep -q gs '$T/ga.json' && ! grep -q group_keep_warm '$T/ga.json'"
curl -s -m 10 -H "Authorization: Bearer $KEY" \
    "http://127.0.0.1:$API/v1/groups/gs" >"$T/gs.json"
check "GET /v1/groups/gs: its members and next_window" python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))
assert sorted(g["members"]) == ["ga", "gb", "gc"], g
assert g["next_window"]["start"] == "2030-01-02T10:00:00Z", g
assert g["next_window"]["end"] == "2030-01-02T10:01:00Z", g
assert g["next_wake"] is None, g
' "$T/gs.json"

check "at 10:00 the group window wakes ga" wait_for 30 is ga running
check "... and gb" wait_for 10 is gb running
check "... and the API member gc" wait_for 10 is gc running
check "the group's wake wakes gx" wait_for 10 is gx running
check "... and gy" wait_for 10 is gy running
check "gw's members sleep after their idle timeout" \
    wait_for 20 sh -c "[ \"\$(\"$ORCHCTL\" -s \"$SOCK\" show workloads | awk '\$1 == \"gx\" || \$1 == \"gy\" { print \$2 }' | sort -u)\" = asleep ]"
sleep $((T0 + 32 - $(date +%s) > 0 ? T0 + 32 - $(date +%s) : 0))
check "inside the window, idle for 15s, ga still runs" is ga running
check "... gb too" is gb running
check "... and gc" is gc running
"$ORCHCTL" -s "$SOCK" show history ga >"$T/hist" 2>&1
check "history of ga: woken by schedule" grep -q schedule "$T/hist"

# 10:01: the window ends, and its members idle as any other
check "after the window, ga sleeps" wait_for 50 is ga asleep
check "... gb too" wait_for 10 is gb asleep
check "... and gc" wait_for 10 is gc asleep
show groups >"$T/groups2" 2>&1
check "... and gs's next window is thursday 10:00 Paris, 09:00 UTC" \
    grep -q 'next window: 2030-01-03T09:00:00Z' "$T/groups2"

# a reload that changes the block changes it for every member
sed -i 's|"thu 10:00-18:00" timezone "Europe/Paris"|"thu 08:00-09:00" timezone "UTC"|' \
    "$T/orchd.conf"
"$ORCHCTL" -s "$SOCK" reload >"$T/reload.out" 2>&1
check "a reload of a changed group block" [ $? -eq 0 ]
show groups >"$T/groups3" 2>&1
check "... gs's next window is thursday 08:00 UTC" \
    grep -q 'next window: 2030-01-03T08:00:00Z' "$T/groups3"
curl -s -m 10 -H "Authorization: Bearer $KEY" \
    "http://127.0.0.1:$API/v1/workloads/gc" >"$T/gc2.json"
check "... and the API member's next_window too" python3 -c '
import json, sys
w = json.load(open(sys.argv[1]))
assert w["next_window"]["start"] == "2030-01-03T08:00:00Z", w
' "$T/gc2.json"
stop_orchd
check "orchd exits cleanly" [ "$STATUS" -eq 0 ]

# the store keeps the API member without its group's schedules: read
# back after a restart, it passes the parent's policy, and takes them
ORCHD_TEST_CLOCK_OFFSET=$OFFSET
export ORCHD_TEST_CLOCK_OFFSET
start_orchd_or_exit
unset ORCHD_TEST_CLOCK_OFFSET
curl -s -m 10 -H "Authorization: Bearer $KEY" \
    "http://127.0.0.1:$API/v1/workloads/gc" >"$T/gc3.json"
check "after a restart, the API member is read back with its group's window" \
    python3 -c '
import json, sys
w = json.load(open(sys.argv[1]))
assert w["group"] == "gs", w
assert w["next_window"]["start"] == "2030-01-03T08:00:00Z", w
' "$T/gc3.json"
check "... and no definition was refused" \
    sh -c "! grep -q 'orchd.s to give' '$T/orchd.log'"
stop_orchd
check "orchd exits cleanly again" [ "$STATUS" -eq 0 ]
e2e_done
