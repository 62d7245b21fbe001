#!/bin/sh
# An API workload that joins a group of orchd.conf's (its "group" is any
# name), with "group_wake": "together", to wake the operator's members or
# to be woken with them (orchd-security.7).  A wake is no privilege (a
# request to a member's host wakes it, and a key holder may wake any
# workload by name), so what must hold is that a group's wake is each
# member's wake and nothing more: a member in maintenance is not started
# (runtimed's one gate), one that fails fails no other member and no
# request to another, the API cannot delete the operator's members by
# their group, nor give the group a schedule.  Loopback only, every wait
# bounded.
#
#	sh regress/e2e/attack_groupwake.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

port_base 62
ports GW API P1 P2 P3 PE PF
KEY=e2e-key-$$-groupwake-0123456789
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
testhttp_bin
for f in o1 o2 o3 evil; do
	: >"$T/$f.starts"
	chmod 0666 "$T/$f.starts"
done
G=agw$$
{
	conf_head
	cat <<CONF
reaper interval 1s
wake timeout 10s
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
api allow process
workload "o1" {
	host "o1.test"
	group "$G"
	command "$T/bin/testhttp serve $P1 $T/o1.starts"
	port $P1
}
workload "o2" {
	host "o2.test"
	group "$G"
	command "$T/bin/testhttp serve $P2 $T/o2.starts"
	port $P2
}
workload "o3" {
	host "o3.test"
	group "$G"
	group wake together
	command "$T/bin/testhttp serve $P3 $T/o3.starts"
	port $P3
}
CONF
} >"$T/orchd.conf"
start_orchd_or_exit

ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
starts() { wc -l <"$T/$1.starts" | tr -d ' '; }
state() {
	ctl show workloads 2>/dev/null | awk -v n="$1" '$1 == n { print $2 }'
}
is() { [ "$(state "$1")" = "$2" ]; }
get() {
	curl -sS -m 30 -H "Host: $1" -o "$T/r.body" -w '%{http_code}' \
	    "http://127.0.0.1:$GW/" 2>/dev/null
}
api() {	# api METHOD PATH [BODY]: the status, the body in $T/a.body
	curl -sS -m 30 -X "$1" -H "Authorization: Bearer $KEY" \
	    ${3:+-H 'Content-Type: application/json' --data-binary "$3"} \
	    -o "$T/a.body" -w '%{http_code}' "http://127.0.0.1:$API$2" \
	    2>/dev/null
}

check "o2 in maintenance" quiet ctl maintenance o2 on --message 'o2 down'

# -- an API workload joins the operator's group, to wake it
c=$(api POST /v1/workloads "{\"name\": \"evil\", \"group\": \"$G\",
    \"group_wake\": \"together\", \"hosts\": [\"evil.test\"],
    \"port\": $PE, \"command\": \"$T/bin/testhttp serve $PE $T/evil.starts\"}")
check "API: evil joins group $G with group_wake together ($c)" \
    [ "$c" = 201 ]
c=$(get evil.test)
check "a request to evil: 200 ($c)" [ "$c" = 200 ]
check "... o1 woken with it, as any wake" wait_for 20 is o1 running
check "... and o3" wait_for 20 is o3 running
sleep 2
check "... o2, in maintenance, never started" [ "$(starts o2)" = 0 ]
code=$(get o2.test)
check "... and still answers 503 with its message ($code)" sh -c \
    "[ $code = 503 ] && grep -q 'in maintenance: o2 down' '$T/r.body'"

# -- a member that cannot start fails no other, nor a request to o3
c=$(api POST /v1/workloads "{\"name\": \"evil2\", \"group\": \"$G\",
    \"group_wake\": \"together\", \"hosts\": [\"evil2.test\"],
    \"port\": $PF, \"command\": \"/bin/false\"}")
check "API: evil2, which exits at once, joins too ($c)" [ "$c" = 201 ]
quiet ctl suspend o1
quiet ctl suspend evil
quiet ctl suspend o3
wait_for 10 is o3 asleep
c=$(get o3.test)
check "a request to o3 (the operator's, together): 200 ($c)" [ "$c" = 200 ]
wait_for 20 is evil2 failed
check "... evil2 failed on its own ($(state evil2))" is evil2 failed
check "... o3 runs" is o3 running
check "... o2 still never started" [ "$(starts o2)" = 0 ]

# -- the API cannot remove the operator's members by their group
c=$(api DELETE "/v1/groups/$G")
check "API: DELETE /v1/groups/$G: 502, not all removed ($c)" [ "$c" = 502 ]
for w in o1 o2 o3; do
	check "... $w refused, saying why" grep -qF "{\"name\":\"$w\",\
\"error\":\"workload \\\"$w\\\" is defined in the configuration file: \
remove it there\"}" "$T/a.body"
	check "... $w is still configured" sh -c \
	    "'$ORCHCTL' -s '$SOCK' show workloads | awk '{ print \$1 }' |
	    grep -qx $w"
done

# -- nor give the group a schedule
c=$(api POST /v1/workloads "{\"name\": \"evil3\", \"group\": \"$G\",
    \"hosts\": [\"evil3.test\"], \"port\": $PF, \"command\": \"/bin/true\",
    \"group_keep_warm_during\": [\"* 00:00-24:00\"]}")
check "API: a group schedule through a member is refused ($c)" \
    sh -c "[ $c = 403 ] || [ $c = 400 ]"
check "orchd runs on" kill -0 "$ORCHD_PID"

e2e_done
