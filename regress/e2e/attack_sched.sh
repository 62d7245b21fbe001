#!/bin/sh
# Warm windows and scheduled wakes through the API, whose text any key
# holder sends: an hour 25, a range that wraps, a cron line of 6 fields,
# a zone that does not exist or climbs out of the tzdata, control bytes,
# a string of 100 KB, absurd ranges and steps, more schedules than
# allowed, and the parent's own "zones" given from outside.  Each is
# refused (400, or 403 for "zones") with an error that names the fault,
# nothing is created, and orchd survives; then a fair one is taken and
# its next window shown.  Loopback only, every wait bounded.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root

ports GW API
KEY=e2e-asched-$$-0123456789abcdef
mkdir -p "$T/log"
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
api allow process
CONF
start_orchd_or_exit
URL=http://127.0.0.1:$API

post() {	# post MEMBER-AND-VALUE: the status; the body in $T/out
	printf '{"name": "s", "hosts": ["s.test"], "driver": "process", "command": "/bin/sleep 100", "port": 8080, %s}' "$1" >"$T/body"
	curl -s -m 30 -o "$T/out" -w '%{http_code}' \
	    -H "Authorization: Bearer $KEY" --data-binary "@$T/body" \
	    "$URL/v1/workloads"
}
refused() {	# refused STATUS WORDS MEMBER-AND-VALUE
	st=$(post "$3")
	check "$(printf '%.60s' "$3"): $1 saying \"$2\" ($st: $(head -c 200 "$T/out"))" \
	    sh -c "[ '$st' = '$1' ] && grep -q '$2' '$T/out'"
}

W=keep_warm_during
C=wake_at
refused 400 "hours are 00 to 23" "\"$W\": [\"mon-fri 25:00-26:00\"]"
refused 400 "does not wrap" "\"$W\": [\"fri-mon 09:00-18:00\"]"
refused 400 "6 fields" "\"$C\": [\"0 0 3 * * *\"]"
refused 400 "no such zone" \
    "\"$W\": [\"mon 09:00-18:00 timezone Mars/Olympus\"]"
refused 400 "must be a zone" \
    "\"$W\": [\"mon 09:00-18:00 timezone ../../../etc/shadow\"]"
refused 400 "must be a zone" \
    "\"$C\": [\"0 3 * * * timezone /etc/shadow\"]"
refused 400 "printable ASCII" "\"$W\": [\"mon\\u001b[2J 09:00-18:00\"]"
refused 400 "printable ASCII" "\"$C\": [\"0 3 * * *\\nfor 1h\"]"
refused 400 "" "\"$C\": [\"0 3 * * *\\u0000 for 1h\"]"
big=$(head -c 100000 /dev/zero | tr '\0' '1')
refused 400 "longer than" "\"$C\": [\"$big * * * *\"]"
refused 400 "minute" "\"$C\": [\"99999999999999999999-1 * * * *\"]"
refused 400 "minute" "\"$C\": [\"*/99999999999999999999 * * * *\"]"
refused 400 "a range goes up" "\"$C\": [\"0 23-1 * * *\"]"
refused 400 "day of month" "\"$C\": [\"0 0 0-40 * *\"]"
refused 400 "too many words" \
    "\"$C\": [\"1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20\"]"
refused 400 "duration" "\"$C\": [\"0 3 * * * for 99999d\"]"
refused 400 "empty" "\"$W\": [\"mon 09:00-09:00\"]"
many=$(i=0; while [ $i -lt 17 ]; do printf '"%d 3 * * *",' $i; i=$((i + 1)); done)
refused 400 "at most 16" "\"$C\": [${many%,}]"
refused 400 "given twice" "\"$C\": [\"0 3 * * *\", \"0 3 * * *\"]"
refused 403 "is orchd.s to give" "\"zones\": [\"Europe/Paris CET-1\"]"
check "orchd is alive after all of them" alive "$ORCHD_PID"
st=$(curl -s -m 10 -o /dev/null -w '%{http_code}' \
    -H "Authorization: Bearer $KEY" "$URL/v1/workloads/s")
check "... none of them was created ($st)" [ "$st" = 404 ]

# not today nor tomorrow: nothing is woken while the test runs
day=$(date -u -d '2 days' +%a | tr 'A-Z' 'a-z')
st=$(post "\"$W\": [\"$day 12:00-13:00 timezone Europe/Paris\"], \"$C\": [\"0 0 1 1 *\"]")
check "a fair window and wake: 201 ($st: $(head -c 200 "$T/out"))" \
    [ "$st" = 201 ]
curl -s -m 10 -H "Authorization: Bearer $KEY" "$URL/v1/workloads/s" \
    >"$T/get"
check "... shown with its next window and wake, its zones not" \
    python3 -c '
import json, sys
w = json.load(open(sys.argv[1]))
assert w["keep_warm_during"][0].endswith(" 12:00-13:00 timezone Europe/Paris"), w
assert w["next_window"]["start"] and w["next_wake"]["start"], w
assert "zones" not in w, w
' "$T/get"
# the gateway's copy holds the zones' rules, the parent's not: a PATCH
# is still based on the same definition
st=$(curl -s -m 30 -o "$T/out" -w '%{http_code}' -X PATCH \
    -H "Authorization: Bearer $KEY" --data-binary '{"wake_at": ["0 4 1 1 *"]}' \
    "$URL/v1/workloads/s")
check "a PATCH of its wakes: 200 ($st: $(head -c 200 "$T/out"))" \
    [ "$st" = 200 ]
stop_orchd
check "orchd exits cleanly" [ "$STATUS" -eq 0 ]
# the store keeps the schedules, not the zones' rules: read back, the
# definition passes the parent's policy
start_orchd_or_exit
curl -s -m 10 -H "Authorization: Bearer $KEY" "$URL/v1/workloads/s" \
    >"$T/get2"
check "after a restart, its schedules are read back from the store" \
    python3 -c '
import json, sys
w = json.load(open(sys.argv[1]))
assert w["wake_at"] == ["0 4 1 1 *"], w
assert w["next_wake"]["start"], w
' "$T/get2"
stop_orchd
check "orchd exits cleanly again" [ "$STATUS" -eq 0 ]
e2e_done
