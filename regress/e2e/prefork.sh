#!/bin/sh
# prefork: several gateway processes on the same listeners.  Each is a
# process of its own (ps, show summary); requests spread over them; a
# herd on a sleeping workload still makes one start; /metrics adds up
# every gateway's counts whichever answers (requests, their durations
# and bytes, unknown hosts); a request in flight on one
# gateway keeps the workload up, and a suspend refused for it lets the
# other gateways' held requests go; API answers find the gateway that
# asked; a reload cannot change the number; the loss of one gateway
# stops orchd.  Every wait bounded.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports GW API P_APP
KEY=e2e-key-$$-0123456789abcdef
mkdir -p "$T/log" "$T/bin"
cp "$BUILD/regress/testhttp" "$T/bin/testhttp"
: >"$T/app.starts"
chmod 0755 "$T/bin" "$T/bin/testhttp"
chmod 0666 "$T/app.starts"
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"

write_conf() {	# write_conf PREFORK
	conf_head >"$T/orchd.conf"
	cat >>"$T/orchd.conf" <<CONF
prefork $1
idle timeout 2s
reaper interval 1s
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
# the API creates process workloads here
api allow process

workload "app" {
	host "app.test"
	command "$T/bin/testhttp serve $P_APP $T/app.starts"
	port $P_APP
}
CONF
}

get() {		# get PATH: the status
	curl -s -m 30 -o /dev/null -w '%{http_code}\n' -H "Host: app.test" \
	    "http://127.0.0.1:$GW$1"
}
api() {
	curl -sS -m 30 -H "Authorization: Bearer $KEY" "$@"
}
starts() { wc -l <"$T/app.starts" | tr -d ' '; }
is_state() {	# is_state STATE
	"$ORCHCTL" -s "$SOCK" show workloads | grep -Eq "^app +$1 "
}
metric() {	# metric NAME-AND-LABELS: its value in a fresh /metrics
	api "http://127.0.0.1:$API/metrics" | awk -v m="$1" \
	    'index($0, m " ") == 1 { print $2 }'
}
# the gateway pids holding established client connections now
serving_pids() {
	ss -tnpH state established "( sport = :$GW )" |
	    grep -o 'pid=[0-9]*' | sort -u | wc -l | tr -d ' '
}

# bad values (0, 33, -1, two, twice) are test_printconf's golden files,
# regress/config/bad-prefork*.conf, each with its message and line
write_conf 3
check "orchd -n accepts prefork 3" "$ORCHD" -n -f "$T/orchd.conf"
check "orchd starts with prefork 3" start_orchd

out=$("$ORCHCTL" -s "$SOCK" show summary)
echo "$out"
for i in 0 1 2; do
	check "show summary lists gateway $i" \
	    sh -c "echo \"\$1\" | grep -Eq \"^gateway $i +[0-9]+ \"" sh "$out"
done
gwpids=$(echo "$out" | awk '$1 == "gateway" { print $3 }')
n=$(for p in $(pgrep -P "$ORCHD_PID"); do
	tr '\0' ' ' <"/proc/$p/cmdline"; echo; done | grep -c '^orchd: gateway [0-2]')
check "three processes are titled orchd: gateway N ($n)" [ "$n" -eq 3 ]

# -- a herd on the sleeping workload: one start
# (never a bare wait: orchd is a background job of this shell too)
pids=
i=0
while [ $i -lt 24 ]; do
	get / >"$T/herd.$i" &
	pids="$pids $!"
	i=$((i + 1))
done
for p in $pids; do wait "$p"; done
ok200=$(cat "$T"/herd.* | grep -c '^200$')
check "24 concurrent requests to a sleeping workload: all 200 ($ok200)" \
    [ "$ok200" -eq 24 ]
check "... on one start ($(starts))" [ "$(starts)" -eq 1 ]
made=24

# -- spread over the gateways (a wave of slow requests at a time)
spread=0
wave=0
while [ $wave -lt 5 ] && [ "$spread" -lt 2 ]; do
	pids=
	i=0
	while [ $i -lt 12 ]; do
		get '/slow?1500' >/dev/null &
		pids="$pids $!"
		i=$((i + 1))
	done
	made=$((made + 12))
	sleep 0.8
	n=$(serving_pids)
	[ "$n" -gt "$spread" ] && spread=$n
	for p in $pids; do wait "$p"; done
	wave=$((wave + 1))
done
check "slow requests were served by $spread gateway processes" \
    [ "$spread" -ge 2 ]

# -- /metrics adds up every gateway's counts, whichever answers
agree=0
k=0
while [ $k -lt 6 ]; do
	v=$(metric 'orchd_requests_total{workload="app",code="2xx"}')
	a=$(metric 'orchd_api_requests_total{code="2xx"}')
	echo "# /metrics: app 2xx $v, api 2xx $a"
	# each answer counts the /metrics asked before it (two per round)
	[ "$v" = "$made" ] && [ "$a" = "$((2 * k + 1))" ] && agree=$((agree + 1))
	k=$((k + 1))
done
check "6 rounds of /metrics: app 2xx = $made and api 2xx exact ($agree/6)" \
    [ "$agree" -eq 6 ]
w=$(metric 'orchd_wakes_total{workload="app"}')
c=$(metric 'orchd_wake_duration_seconds_count{workload="app"}')
check "wakes_total ${w:-none} = wake_duration_seconds_count ${c:-none}" \
    [ "${w:-0}" -ge 1 -a "${w:-0}" = "${c:-none}" ]
c=$(metric 'orchd_open_connections')
check "open connections counted (${c:-none})" [ "${c:-0}" -ge 1 ]
n=$(api "http://127.0.0.1:$API/metrics" |
    grep -c '^process_resident_memory_bytes{process="gateway [012]"} [1-9]')
check "each of the 3 gateways has its resident memory in /metrics ($n)" \
    [ "$n" -eq 3 ]
# the new counters add up too: durations, bytes, unknown hosts
c=$(metric 'orchd_request_duration_seconds_count{workload="app"}')
check "request_duration_seconds_count = the $made requests (${c:-none})" \
    [ "$c" = "$made" ]
c=$(metric 'orchd_request_duration_seconds_bucket{workload="app",le="+Inf"}')
check "... and its +Inf bucket (${c:-none})" [ "$c" = "$made" ]
# each answer has at least its 5- or 20-byte body, and a head
c=$(metric 'orchd_workload_sent_bytes_total{workload="app"}')
check "sent bytes from every gateway: at least 5 per request (${c:-none})" \
    [ "${c:-0}" -ge $((made * 5 + made * 30)) ]
c=$(metric 'orchd_workload_received_bytes_total{workload="app"}')
check "received bytes from every gateway: a head per request (${c:-none})" \
    [ "${c:-0}" -ge $((made * 30)) ]
pids=
i=0
while [ $i -lt 12 ]; do
	curl -s -m 30 -o /dev/null -H "Host: nobody.test" \
	    "http://127.0.0.1:$GW/" &
	pids="$pids $!"
	i=$((i + 1))
done
for p in $pids; do wait "$p"; done
c=$(metric 'orchd_requests_unknown_host_total')
check "12 requests for an unknown host over the gateways: ${c:-none}" \
    [ "$c" = 12 ]

# -- a request in flight on one gateway keeps the workload up
check "idle, it is suspended" wait_for 15 is_state asleep
check "a request wakes it: $(get /)" is_state running
s0=$(starts)
get '/slow?5000' >"$T/slow.out" &
slow=$!
sleep 3.5
check "with a 5 s request in flight, still running after 3.5 s" \
    is_state running
# the gateways without it say idle and hold; the one with it says busy
"$ORCHCTL" -s "$SOCK" suspend app >"$T/suspend.out" 2>&1
st=$?
check "orchctl suspend is refused: $(cat "$T/suspend.out")" \
    [ "$st" -ne 0 -a "$(grep -c "in flight" "$T/suspend.out")" -eq 1 ]
ok200=0
i=0
while [ $i -lt 9 ]; do
	[ "$(get /)" = 200 ] && ok200=$((ok200 + 1))
	i=$((i + 1))
done
made=$((made + 9))
check "the other gateways let their requests go: 9/9 ($ok200)" \
    [ "$ok200" -eq 9 ]
wait "$slow"
check "the slow request completes: $(cat "$T/slow.out")" \
    [ "$(cat "$T/slow.out")" = 200 ]
check "no second start meanwhile ($(starts) starts)" [ "$(starts)" -eq "$s0" ]
check "then idle, it is suspended" wait_for 15 is_state asleep

# -- API answers go back to the gateway that asked
good=0
k=0
while [ $k -lt 6 ]; do
	s=$(api -o /dev/null -w '%{http_code}' -X POST \
	    "http://127.0.0.1:$API/v1/workloads/app/wake")
	g=$(api -o /dev/null -w '%{http_code}' \
	    "http://127.0.0.1:$API/v1/workloads/app")
	[ "$s" = 200 ] && [ "$g" = 200 ] && good=$((good + 1))
	k=$((k + 1))
done
check "6 rounds of API wake and get, each 200 ($good/6)" [ "$good" -eq 6 ]

# -- prefork is read at start only
write_conf 2
"$ORCHCTL" -s "$SOCK" reload >/dev/null 2>&1
check "a reload changing prefork says to restart" \
    wait_for 10 grep -q "prefork changed: restart orchd" "$T/orchd.log"
n=$("$ORCHCTL" -s "$SOCK" show summary | grep -c '^gateway ')
check "still three gateways ($n)" [ "$n" -eq 3 ]

# -- losing one gateway stops orchd, and says which
gw1=$("$ORCHCTL" -s "$SOCK" show summary | awk '$1 == "gateway" &&
    $2 == 1 { print $3 }')
check "gateway 1 has a pid ($gw1)" [ -n "$gw1" ]
kill -KILL "$gw1" 2>/dev/null
orchd_status
check "orchd exits non-zero when gateway 1 dies ($STATUS)" [ "$STATUS" -ne 0 ]
check "its log names gateway 1" grep -q "lost child: gateway 1" "$T/orchd.log"
left=0
for p in $gwpids; do
	wait_gone "$p" 10 || left=$((left + 1))
done
check "no gateway is left behind ($left of $(echo $gwpids | wc -w))" \
    [ "$left" -eq 0 ]

e2e_done
