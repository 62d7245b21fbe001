#!/bin/sh
# The access log's disk full: the access log on a small tmpfs of the
# test's own (under the scratch directory), filled with a file until
# nothing more fits.  10 requests before, 50 while full, the filler
# removed, 10 after: every request's line is in the file once there is
# room (bounded wait), each once and in the order the requests came, and
# /metrics counts no drop; proxying goes on while full.  Issue 30's
# defect 2: the lines written while full are lost, silently
# (regress/faults/known-failing).  Figures: the lines written of those
# asked for, the drops counted.  Loopback only, every wait bounded.
. "$(dirname "$0")/../e2e/lib.sh"
e2e_init "$1"
need_root
ensure_user

port_base 31
ports GW API P_WEB
KEY=faults-key-$$-0123456789abcdef
ALOG=$T/alog/access.log


mkdir -p "$T/log"
tmpfs_mount "$T/alog" 1m 0755
testhttp_bin
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
access log "$ALOG"
idle timeout 5m
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api host "api.test"
api key file "$T/api.key"

workload "web" {
	host "web.test"
	command "$T/bin/testhttp serve $P_WEB"
	port $P_WEB
}
CONF

get() {		# get PATH: the status
	curl -s -m 20 -o /dev/null -w '%{http_code}' -H 'Host: web.test' \
	    "http://127.0.0.1:$GW$1"
}
metric() {	# metric NAME: its value in GET /metrics
	curl -s -m 10 -H "Authorization: Bearer $KEY" \
	    "http://127.0.0.1:$API/metrics" | awk -v m="$1" '$1 == m { print $2 }'
}
# requests FROM TO: GET /n/FROM ... /n/TO, one after the other; the
# count of 200s (testhttp answers any other path as /) in OK
requests() {
	OK=0
	i=$1
	while [ "$i" -le "$2" ]; do
		[ "$(get "/n/$i")" = 200 ] && OK=$((OK + 1))
		i=$((i + 1))
	done
}
# paths: the /n/ paths in the access log, in its order, one line
paths() {
	grep -o 'GET /n/[0-9]*' "$ALOG" 2>/dev/null | sed 's|GET /n/||' |
	    tr '\n' ' '
}
want=$(seq 1 70 | tr '\n' ' ')
all_written() { [ "$(paths)" = "$want" ]; }

start_orchd_or_exit
check "a request wakes web" [ "$(get /)" = 200 ]
requests 1 10
check "10 requests before the disk fills" [ "$OK" -eq 10 ]
check "their lines are written" wait_for 10 sh -c \
    "[ \$(grep -c 'GET /n/' '$ALOG') -eq 10 ]"

dd if=/dev/zero of="$T/alog/filler" bs=4096 >/dev/null 2>&1
check "the tmpfs is full" [ "$(df --output=avail "$T/alog" | tail -n 1 |
    tr -d ' ')" -eq 0 ]
requests 11 60
check "50 requests served while full ($OK)" [ "$OK" -eq 50 ]
sleep 2
rm -f "$T/alog/filler"
requests 61 70
check "10 requests once there is room ($OK)" [ "$OK" -eq 10 ]
wait_for 30 all_written
n=$(paths | wc -w)
figure lines_written "$n" lines
figure lines_asked 70 lines
d=$(metric orchd_access_log_dropped_total)
figure lines_dropped_counted "${d:-0}" lines
check "every line written once there is room, once each, in order ($n of 70)" \
    all_written
check "/metrics counts no drop ($d)" [ "${d:-0}" = 0 ]
stop_orchd
check "orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]
check "after the stop, still every line once, in order" all_written
ORCHD_PID=
e2e_done
