#!/bin/sh
# The API's limits stay within the operator's maximums (orchd-security.7,
# "The API's policy"; orchd.conf.5 "api max"): a key holder who asks for
# more CPU, processes or weight than "api max" allows gets 403 naming the
# rule; negative, huge, fractional or non-numeric values get 400 naming
# the field; an API workload that sets none gets the global default, and
# where that is above the maximum, the maximum (its cgroup says so);
# orchd survives every request.  Loopback only, every wait bounded.
#
#	sh regress/e2e/attack_limits.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

port_base 71
ports GW API P_PROC
testhttp_bin
KEY=e2e-attacklimits-$$-0123456789abcdef
mkdir -p "$T/log"
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"

conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
api allow process
wake timeout 20s
cpu 2
pids 1024
api max cpu 1
api max pids 512
api max cpu weight 200
api max io weight 200
CONF

URL=http://127.0.0.1:$API
post() {	# post BODY: the body, then the status on a line of its own
	curl -s -m 30 -H "Authorization: Bearer $KEY" -w '\n%{http_code}' \
	    -X POST --data-binary "$1" "$URL/v1/workloads"
}
get() {
	curl -s -m 30 -H "Authorization: Bearer $KEY" "$URL/v1/workloads/$1"
}
del() {
	curl -s -m 30 -o /dev/null -H "Authorization: Bearer $KEY" \
	    -X DELETE "$URL/v1/workloads/$1"
}
last() { printf '%s\n' "$1" | tail -n 1; }
has() { printf '%s' "$1" | grep -q -- "$2"; }
# proc EXTRA: a process workload's definition with EXTRA members, a
# name of its own each time (in $T/name: it runs in a subshell)
proc() {
	_n=$(($(cat "$T/n" 2>/dev/null || echo 0) + 1))
	echo "$_n" >"$T/n"
	W=al$$-$_n
	echo "$W" >"$T/name"
	printf '{"name": "%s", "hosts": ["%s.test"], "command": "%s serve %s", "port": %s%s}' \
	    "$W" "$W" "$T/bin/testhttp" "$P_PROC" "$P_PROC" "$1"
}
# answered DESC STATUS EXTRA WORDS: that status, the body names WORDS
answered() {
	out=$(post "$(proc "$3")")
	st=$(last "$out")
	if [ "$st" = "$2" ] && has "$out" "$4"; then
		ok "$1: $2 naming \"$4\""
	else
		fail "$1: $2 naming \"$4\" (got $st:" \
		    "$(printf '%s' "$out" | head -n 1 | cut -c1-200))"
	fi
	[ "$st" != 201 ] || del "$(cat "$T/name")"
}
alive_api() {
	[ "$(curl -s -m 10 -o /dev/null -w '%{http_code}' -H \
	    "Authorization: Bearer $KEY" "$URL/v1/workloads")" = 200 ]
}

start_orchd_or_exit

# above the operator's maximums: 403, the rule named
answered "cpu 2 over api max cpu 1" 403 ', "cpu": 2' "api max cpu"
answered "cpu \"1.5\" over api max cpu 1" 403 ', "cpu": "1.5"' \
    "api max cpu"
answered "pids 513 over api max pids 512" 403 ', "pids": 513' \
    "api max pids"
answered "cpu weight 201 over api max cpu weight 200" 403 \
    ', "cpu_weight": 201' "api max cpu weight"
answered "io weight 10000 over api max io weight 200" 403 \
    ', "io_weight": 10000' "api max io weight"
# malformed: 400, the field named
answered "cpu -1" 400 ', "cpu": -1' 'field \\"cpu\\"'
answered "cpu 0" 400 ', "cpu": 0' 'field \\"cpu\\"'
answered "cpu 1e300" 400 ', "cpu": 1e300' 'field \\"cpu\\"'
answered "cpu 0.0001" 400 ', "cpu": 0.0001' 'field \\"cpu\\"'
answered "cpu \"abc\"" 400 ', "cpu": "abc"' 'field \\"cpu\\"'
answered "cpu \"0.5; rm -rf /\"" 400 ', "cpu": "0.5; rm -rf /"' \
    'field \\"cpu\\"'
answered "cpu true" 400 ', "cpu": true' 'field \\"cpu\\"'
answered "cpu [1]" 400 ', "cpu": [1]' 'field \\"cpu\\"'
answered "pids -5" 400 ', "pids": -5' 'field \\"pids\\"'
answered "pids 0" 400 ', "pids": 0' 'field \\"pids\\"'
answered "pids 99999999999999999999" 400 ', "pids": 99999999999999999999' \
    'too big integer'
answered "pids \"10\"" 400 ', "pids": "10"' 'field \\"pids\\"'
answered "pids 1.5" 400 ', "pids": 1.5' 'field \\"pids\\"'
answered "cpu weight 0" 400 ', "cpu_weight": 0' 'field \\"cpu_weight\\"'
answered "cpu weight -100" 400 ', "cpu_weight": -100' 'field \\"cpu_weight\\"'
answered "io weight 2147483648" 400 ', "io_weight": 2147483648' \
    'field \\"io_weight\\"'
check "orchd still answers the API" alive_api

# within them: taken, and shown as given
out=$(post "$(proc ', "cpu": 0.5, "pids": 64, "cpu_weight": 50')")
check "cpu 0.5, pids 64, cpu weight 50: 201 ($(last "$out"))" \
    test "$(last "$out")" = 201
W=$(cat "$T/name")
def=$(get "$W" | tr -d ' \n')
check "shown as given ($def)" has "$def" '"cpu":"0.5"'
del "$W"

# none set: the global default, lowered to the API's maximum
out=$(post "$(proc '')")
W=$(cat "$T/name")
check "no limits: 201 ($(last "$out"))" test "$(last "$out")" = 201
if grep -q ' - cgroup ' /proc/self/mountinfo &&
    grep -q 'cgroup limits: cpu' "$T/orchd.log"; then
	check "wake it" "$ORCHCTL" -s "$SOCK" wake "$W"
	pid=$(pgrep -f "testhttp serve $P_PROC\$" | head -n 1)
	cg=$(grep -E " - cgroup [^ ]+ [^ ]*\\bcpu\\b" /proc/self/mountinfo |
	    head -n 1 | cut -d' ' -f5)$(sed -n \
	    's/^[0-9]*:[^:]*\bcpu\b[^:]*://p' "/proc/$pid/cgroup")
	check "its quota is api max cpu 1, not the default 2" \
	    test "$(cat "$cg/cpu.cfs_quota_us" 2>/dev/null)" = 100000
	pcg=$(grep -E " - cgroup [^ ]+ [^ ]*\\bpids\\b" /proc/self/mountinfo |
	    head -n 1 | cut -d' ' -f5)$(sed -n \
	    's/^[0-9]*:[^:]*\bpids\b[^:]*://p' "/proc/$pid/cgroup")
	check "its pids.max is api max pids 512, not the default 1024" \
	    test "$(cat "$pcg/pids.max" 2>/dev/null)" = 512
	"$ORCHCTL" -s "$SOCK" suspend "$W" >/dev/null 2>&1
else
	echo "# no v1 cpu controller for orchd here: the cgroup part skipped"
fi
del "$W"

# orchctl create's flags: the same policy
octl_create() {	# octl_create NAME FLAGS...: its output
	_n=$1
	shift
	"$ORCHCTL" -s "$SOCK" create "$_n" --port "$P_PROC" \
	    --command "$T/bin/testhttp serve $P_PROC" --host "$_n.test" "$@" 2>&1
}
out=$(octl_create al$$-c1 --cpu 2)
check "orchctl create --cpu 2: refused naming api max cpu ($out)" \
    has "$out" "api max cpu"
out=$(octl_create al$$-c2 --pids 513)
check "orchctl create --pids 513: refused naming api max pids ($out)" \
    has "$out" "api max pids"
check "orchctl create --cpu 0.5 --pids 64: taken" \
    octl_create al$$-c3 --cpu 0.5 --pids 64
check "shown ($(get al$$-c3 | tr -d ' \n' | grep -o '"cpu":"[^"]*"'))" \
    has "$(get al$$-c3 | tr -d ' \n')" '"cpu":"0.5","pids":64'
del al$$-c3

check "orchd still answers" "$ORCHCTL" -s "$SOCK" show summary
stop_orchd
check "orchd exits 0" test "$STATUS" = 0
e2e_done
