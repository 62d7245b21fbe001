#!/bin/sh
# A group's schedules come from orchd.conf alone.  orchd -n refuses a bad
# group block with file:line and the very words a workload's own bad
# window, cron line or zone gets (one check for both): an hour 25, a cron
# line of 6 fields, a zone that does not exist or climbs out of the
# tzdata, a bad group name, 17 windows, one given twice, a statement
# that is not a schedule.  Through the API, the group's schedules a
# member carries ("group_keep_warm_during", "group_wake_at", which the
# parent gives) are refused with 403 in a POST and a PATCH, and nothing
# is changed; GET /v1/groups/G of a bad or unknown group is refused.
# orchd survives all of it.  Loopback only, every wait bounded.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root

# refused_n LINE WORDS BLOCK-LINES: orchd -n says "file:LINE: ...WORDS"
refused_n() {
	{
		printf 'group "gs" {\n'
		printf '%s\n' "$3"
		printf '}\n'
	} >"$T/bad.conf"
	"$ORCHD" -n -f "$T/bad.conf" >"$T/bad.conf.out" 2>&1
	st=$?
	check "orchd -n refuses \"$(printf '%.50s' "$3")\" at line $1 ($(head -c 160 "$T/bad.conf.out"))" \
	    sh -c '[ "$1" -ne 0 ] && grep -F "$2:$3: " "$2.out" | grep -qF "$4"' \
	    sh "$st" "$T/bad.conf" "$1" "$2"
}
# same_words TEXT KIND: a group's and a workload's bad KIND say the same
same_words() {
	printf 'group "gs" {\n\t%s "%s"\n}\n' "$2" "$1" >"$T/g.conf"
	printf 'workload "w" {\n\thost "w.test"\n\tcommand "/bin/sleep 1"\n\tport 8080\n\t%s "%s"\n}\n' \
	    "$2" "$1" >"$T/w.conf"
	g=$("$ORCHD" -n -f "$T/g.conf" 2>&1 | sed -n 's/^[^:]*:2: //p')
	w=$("$ORCHD" -n -f "$T/w.conf" 2>&1 | sed -n 's/^[^:]*:5: //p')
	check "a group's and a workload's $2 \"$1\" get the same words ($g)" \
	    sh -c "[ -n \"\$1\" ] && [ \"\$1\" = \"\$2\" ]" sh "$g" "$w"
}

refused_n 2 'keep warm during "mon-fri 25:00-26:00": time 25:00: hours' \
    '	keep warm during "mon-fri 25:00-26:00"'
refused_n 2 'wake at "0 0 3 * * *": a cron line of 6 fields' \
    '	wake at "0 0 3 * * *"'
refused_n 2 'no such zone' \
    '	keep warm during "mon 09:00-10:00" timezone "Mars/Olympus"'
refused_n 2 'must be a zone' \
    '	wake at "0 3 * * *" timezone "../../../etc/shadow"'
refused_n 3 'given twice' '	wake at "0 3 * * *"
	wake at "0 3 * * *"'
many=$(i=0; while [ $i -lt 17 ]; do printf '\tkeep warm during "mon %02d:00-%02d:30"\n' $i $i; i=$((i + 1)); done)
refused_n 18 'keep warm during: at most 16' "$many"
refused_n 2 'syntax error' '	command "/bin/sh"'
printf 'group "../x" {\n\twake at "0 3 * * *"\n}\n' >"$T/bad.conf"
"$ORCHD" -n -f "$T/bad.conf" >"$T/bad.out" 2>&1
check "orchd -n refuses a bad group name at line 1" \
    grep -qF "$T/bad.conf:1: group \"../x\": must be a name" "$T/bad.out"
same_words "mon-fri 25:00-26:00" "keep warm during"
same_words "fri-mon 09:00-18:00" "keep warm during"
same_words "0 0 3 * * *" "wake at"
same_words "0 23-1 * * *" "wake at"
same_words "0 3 * * * timezone Mars/Olympus" "wake at"

ports GW API
KEY=e2e-agsched-$$-0123456789abcdef
mkdir -p "$T/log"
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
api allow process

group "gs" {
	wake at "0 0 1 1 *" timezone "UTC"
}
CONF
start_orchd_or_exit
URL=http://127.0.0.1:$API

call() {	# call METHOD PATH [BODY]: the status; the body in $T/out
	if [ -n "$3" ]; then
		printf '%s' "$3" >"$T/body"
		set -- "$1" "$2" --data-binary "@$T/body"
	fi
	m=$1 p=$2
	shift 2
	curl -s -m 30 -o "$T/out" -w '%{http_code}' -X "$m" \
	    -H "Authorization: Bearer $KEY" "$@" "$URL$p"
}
base='"name": "s", "hosts": ["s.test"], "driver": "process", "command": "/bin/sleep 100", "port": 8080, "group": "gs"'
for f in group_keep_warm_during group_wake_at; do
	v='["0 3 * * *"]'
	[ $f = group_keep_warm_during ] && v='["mon 09:00-10:00"]'
	st=$(call POST /v1/workloads "{$base, \"$f\": $v}")
	check "POST with \"$f\": 403 ($st: $(head -c 160 "$T/out"))" \
	    sh -c "[ '$st' = 403 ] && grep -q 'is orchd.s to give' '$T/out'"
done
st=$(call GET /v1/workloads/s)
check "... nothing was created ($st)" [ "$st" = 404 ]
st=$(call POST /v1/workloads "{$base}")
check "a fair member: 201 ($st)" [ "$st" = 201 ]
st=$(call PATCH /v1/workloads/s '{"group_wake_at": ["* * * * *"]}')
check "PATCH with \"group_wake_at\": 403 ($st: $(head -c 160 "$T/out"))" \
    [ "$st" = 403 ]
st=$(call GET /v1/groups/gs)
check "... the group's wake is still the file's alone ($st)" python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))
assert g["next_wake"]["start"].endswith("-01-01T00:00:00Z"), g
' "$T/out"
st=$(call GET /v1/groups/nosuch)
check "GET of a group with no member: 404 ($st)" [ "$st" = 404 ]
st=$(call GET "/v1/groups/a%2F..%2Fb")
check "GET of a bad group name: 400 ($st)" [ "$st" = 400 ]
st=$(call POST /v1/groups/gs '{}')
check "POST to the group itself: 405 ($st)" [ "$st" = 405 ]
check "orchd is alive after all of them" alive "$ORCHD_PID"
stop_orchd
check "orchd exits cleanly" [ "$STATUS" -eq 0 ]
e2e_done
