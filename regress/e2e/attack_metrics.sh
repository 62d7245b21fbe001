#!/bin/sh
# GET /metrics against many workloads and hostile names
# (orchd-security.7).  An API key holder makes as many workloads as it
# likes: with "metrics per workload top 3" each family carries at most
# three workloads' series and "_other", however many there are: 20
# more add no series.  A workload's name is a label's
# value: names that would end a label or a line, forge another label or
# pose as the "_other" sum ('"', '\', '{', '=', a space, a line feed,
# "_other", 300 bytes) are refused by the API with 400, so every label
# value written is a name's letters, digits, '.', '-' and '_', or
# "_other"; promtool check metrics passes with top 3 and with on.
# Loopback only, every wait bounded.
#
#	sh regress/e2e/attack_metrics.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

port_base 63
ports GW API P1 P2
KEY=e2e-key-$$-attackmetrics-0123456
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
testhttp_bin
N=40
write_conf() {	# write_conf GLOBAL-LINE
	{
		conf_head
		cat <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
api allow process
$1
workload "a.b-c_1" {
	host "abc.test"
	command "$T/bin/testhttp serve $P1"
	port $P1
}
workload "9x" {
	host "9x.test"
	command "$T/bin/testhttp serve $P2"
	port $P2
}
CONF
	} >"$T/orchd.conf"
}
write_conf "metrics per workload top 3"
start_orchd_or_exit

api() {	# api METHOD PATH [BODY]: the status, the body in $T/a.body
	curl -sS -m 30 -X "$1" -H "Authorization: Bearer $KEY" \
	    ${3:+-H 'Content-Type: application/json' --data-binary "$3"} \
	    -o "$T/a.body" -w '%{http_code}' "http://127.0.0.1:$API$2" \
	    2>/dev/null
}
metrics() {
	curl -sS -m 30 -H "Authorization: Bearer $KEY" -o "$T/metrics" \
	    "http://127.0.0.1:$API/metrics"
}
# the workload label values in $T/metrics, one a line, each once
values() {
	grep -o 'workload="[^"]*"' "$T/metrics" | sed 's/^workload="//;
	    s/"$//' | sort -u
}
promok() {
	command -v promtool >/dev/null || return 0
	promtool check metrics <"$T/metrics" >"$T/promtool.out" 2>&1
}
mk() {	# mk NAME-AS-JSON PORT: the status of its creation
	api POST /v1/workloads "{\"name\": $1, \"port\": $2,
	    \"hosts\": [\"h$2.test\"], \"command\": \"$T/bin/testhttp serve $2\"}"
}

# -- hostile names: refused, each
i=0
for n in '"_other"' '"a\"b"' '"a\\b"' '"a{b}"' '"a=b"' '"a b"' '"a\nb"' \
    '"a,workload=\"x\""' "\"$(head -c 300 /dev/zero | tr '\0' a)\"" \
    '"-a"' '".a"'; do
	i=$((i + 1))
	c=$(mk "$n" $((40000 + i)))
	check "API name $(printf '%.24s' "$n"): 400 ($c): $(head -c 120 \
"$T/a.body")" [ "$c" = 400 ]
done

# -- many workloads
i=0
made=0
while [ "$i" -lt "$N" ]; do
	[ "$(mk "\"m$i.x-y_z\"" $((41000 + i)))" = 201 ] && made=$((made + 1))
	i=$((i + 1))
done
check "API: $N workloads made ($made)" [ "$made" = "$N" ]
metrics
check "top 3: at most 3 workloads and _other labelled ($(values |
    tr '\n' ' '))" sh -c "[ \$(grep -o 'workload=\"[^\"]*\"' '$T/metrics' |
    sort -u | wc -l) -le 4 ]"
values >"$T/values"
check "... _other among them" grep -qx _other "$T/values"
check "... promtool check metrics passes" promok
cat "$T/promtool.out" 2>/dev/null
states1=$(grep -c '^orchd_workload_state{' "$T/metrics")
i=$N
while [ "$i" -lt $((N + 20)) ]; do
	mk "\"m$i\"" $((41000 + i)) >/dev/null
	i=$((i + 1))
done
metrics
values >"$T/values"
states2=$(grep -c '^orchd_workload_state{' "$T/metrics")
check "20 more workloads add no series: $(wc -l <"$T/values") label \
values, orchd_workload_state $states1 -> $states2 lines" sh -c \
    "[ $(wc -l <"$T/values") -le 4 ] && [ $states1 -eq $states2 ]"

# -- on: every name is a label, as it is, and nothing else
write_conf ""
check "reload with metrics per workload on" quiet "$ORCHCTL" -s "$SOCK" reload
metrics
values >"$T/values"
check "every label value is a name's characters ($(wc -l <"$T/values") \
values)" sh -c "! grep -qv '^[A-Za-z0-9][A-Za-z0-9._-]*\$' '$T/values'"
check "... each workload's ($(wc -l <"$T/values") of $((N + 22)))" \
    [ "$(wc -l <"$T/values")" -eq $((N + 22)) ]
check "... the operator's a.b-c_1 as it is" grep -q \
    '^orchd_workload_state{workload="a.b-c_1",state="asleep"} 1$' \
    "$T/metrics"
check "... and an API one" grep -q 'workload="m7.x-y_z"' "$T/metrics"
check "... no _other with on" sh -c "! grep -q 'workload=\"_other\"' \
    '$T/metrics'"
check "... promtool check metrics passes" promok
cat "$T/promtool.out" 2>/dev/null
check "orchd runs on" kill -0 "$ORCHD_PID"

e2e_done
