#!/bin/sh
# "metrics per workload" (issue 38): with top 2, the two workloads with
# the most requests have series of their own and the other three are
# summed as workload="_other" (their requests, their states counted);
# reloaded with off, no workload's own series at all, every family
# summed; with on (the default, and again after a reload), every
# workload's and no "_other"; promtool check metrics passes each time;
# orchd -n refuses top 0, top 10001, a word that is none of on, off and
# top, and the option twice, each at its line.  Every wait bounded.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports GW API P1 P2 P3 P4 P5
KEY=e2e-key-$$-metricstop-0123456
mkdir -p "$T/log"
testhttp_bin
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"

write_conf() {	# write_conf [GLOBAL-LINE]
	conf_head >"$T/orchd.conf"
	cat >>"$T/orchd.conf" <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
$1
CONF
	for i in 1 2 3 4 5; do
		eval "p=\$P$i"
		cat >>"$T/orchd.conf" <<CONF
workload "mt$i" {
	host "mt$i.test"
	command "$T/bin/testhttp serve $p"
	port $p
	keep warm
}
CONF
	done
}

metrics() {
	curl -sS -m 30 -H "Authorization: Bearer $KEY" -o "$T/metrics" \
	    "http://127.0.0.1:$API/metrics"
}
# value NAME-AND-LABELS: its value in $T/metrics
value() { awk -v m="$1" 'index($0, m " ") == 1 { print $2 }' "$T/metrics"; }
# labelled WORKLOAD: how many samples carry workload="WORKLOAD"
labelled() { grep -c "workload=\"$1\"" "$T/metrics"; }
promok() {
	command -v promtool >/dev/null || return 0
	promtool check metrics <"$T/metrics" >"$T/promtool.out" 2>&1
}
get() {		# get N HOST: N requests, each a 200
	i=0
	while [ "$i" -lt "$1" ]; do
		[ "$(curl -s -m 10 -o /dev/null -w '%{http_code}' \
		    -H "Host: $2" "http://127.0.0.1:$GW/")" = 200 ] || return 1
		i=$((i + 1))
	done
}
running() {
	[ "$("$ORCHCTL" -s "$SOCK" show workloads | awk '$2 == "running"' |
	    wc -l)" = 5 ]
}

write_conf "metrics per workload top 2"
check "orchd -n accepts top 2" "$ORCHD" -n -f "$T/orchd.conf"
check "... and -nv prints it" sh -c "'$ORCHD' -nv -f '$T/orchd.conf' |
    grep -x 'metrics per workload top 2' >/dev/null"
start_orchd_or_exit
check "all five run (kept warm)" wait_for 30 running
traffic() {
	get 5 mt1.test && get 4 mt2.test && get 2 mt3.test &&
	    get 1 mt4.test && get 1 mt5.test
}
check "requests answered: mt1 5, mt2 4, mt3 2, mt4 1, mt5 1" traffic
metrics
check "top 2: mt1 has its own series" [ "$(labelled mt1)" -gt 0 ]
check "... and mt2" [ "$(labelled mt2)" -gt 0 ]
check "... mt3, mt4 and mt5 none" [ "$(labelled mt3)$(labelled mt4)$(labelled mt5)" = 000 ]
check "... their 2xx summed in _other: 4" \
    [ "$(value 'orchd_requests_total{workload="_other",code="2xx"}')" = 4 ]
check "... mt1's own: 5" \
    [ "$(value 'orchd_requests_total{workload="mt1",code="2xx"}')" = 5 ]
check "... _other's state: 3 running" \
    [ "$(value 'orchd_workload_state{workload="_other",state="running"}')" = 3 ]
check "... _other's duration histogram counts 4" \
    [ "$(value 'orchd_request_duration_seconds_count{workload="_other"}')" = 4 ]
check "... promtool check metrics passes" promok
cat "$T/promtool.out" 2>/dev/null

write_conf "metrics per workload off"
check "reload with off" "$ORCHCTL" -s "$SOCK" reload
metrics
check "off: no workload's own series" sh -c \
    "! grep -E 'workload=\"mt[0-9]\"' '$T/metrics'"
check "... every request in _other: 13" \
    [ "$(value 'orchd_requests_total{workload="_other",code="2xx"}')" = 13 ]
check "... _other's state: 5 running" \
    [ "$(value 'orchd_workload_state{workload="_other",state="running"}')" = 5 ]
check "... one sample per family and label set: in flight" \
    [ "$(grep -c '^orchd_requests_in_flight{' "$T/metrics")" = 1 ]
check "... promtool check metrics passes" promok
cat "$T/promtool.out" 2>/dev/null

write_conf ""
check "reload without the option (on)" "$ORCHCTL" -s "$SOCK" reload
metrics
check "on: every workload's own series" sh -c \
    "[ \$(grep -c 'orchd_requests_total{workload=\"mt[0-9]\",code=\"2xx\"}' \
    '$T/metrics') = 5 ]"
check "... no _other" [ "$(labelled _other)" = 0 ]
check "... promtool check metrics passes" promok
check "orchd still runs" alive "$ORCHD_PID"
stop_orchd

# the refusals, each at its line
for bad in "metrics per workload top 0" "metrics per workload top 10001" \
    "metrics per workload maybe" "metrics per workload top -3"; do
	write_conf "$bad"
	check "orchd -n refuses '$bad'" sh -c \
	    "! '$ORCHD' -n -f '$T/orchd.conf' >'$T/n.out' 2>&1 &&
	    grep -q 'metrics per workload\\|syntax error\\|on or off' '$T/n.out'"
done
write_conf "metrics per workload off
metrics per workload on"
check "orchd -n refuses it twice" sh -c \
    "! '$ORCHD' -n -f '$T/orchd.conf' >'$T/n.out' 2>&1 &&
    grep -q 'already set' '$T/n.out'"
e2e_done
