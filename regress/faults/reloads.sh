#!/bin/sh
# 50 reloads under load: wrk keeps 8 keep-alive connections busy on a
# running workload, and a curl loop opens a new connection per request,
# while the configuration is reloaded 50 times, by orchctl reload and by
# SIGHUP in turn: each third one changes the loaded workload's
# definition (its idle timeout, so it keeps running), some add or remove
# another workload, the others change nothing; 0.2 s apart.  Pass:
# every answer is 2xx, no connection is reset or refused, every reload
# is taken, the loaded workload is never restarted.
#
#	sh regress/faults/reloads.sh build/check
. "$(dirname "$0")/../e2e/lib.sh"
e2e_init "$1"
need_root
ensure_user
command -v wrk >/dev/null 2>&1 || skip "no wrk (tools/deps.sh test)"

RELOADS=50

port_base 37
ports GW P P_EXTRA
testhttp_bin
mkdir -p "$T/log"

conf() {	# conf N: the configuration of step N
	conf_head
	cat <<CONF
idle timeout 10m
listen on 127.0.0.1 port $GW

workload "app" {
	host "app.test"
	command "$T/bin/testhttp serve $P"
	port $P
	idle timeout $((5 + $1 / 3 % 2))m
}
CONF
	[ $(($1 % 3)) -eq 2 ] && [ $(($1 / 3 % 2)) -eq 0 ] || return 0
	cat <<CONF
workload "extra" {
	host "extra.test"
	command "$T/bin/testhttp serve $P_EXTRA"
	port $P_EXTRA
}
CONF
}

get() { curl -sS -m 20 -H "Host: app.test" "http://127.0.0.1:$GW/"; }
# reloaded N: the log says N reloads were taken
reloaded() { [ "$(grep -c 'reload: ' "$T/orchd.log")" -ge "$1" ]; }

conf 0 >"$T/orchd.conf"
start_orchd_or_exit
check "app wakes" [ "$(get)" = "hello from testhttp" ]

# a new connection per request until told to stop, each one's status
# (000: no answer); bounded by count and by curl's own time limit
: >"$T/curl.codes"
(
	n=0
	while [ ! -e "$T/stop" ] && [ $n -lt 5000 ]; do
		curl -s -m 10 -o /dev/null -w '%{http_code}\n' \
		    -H "Host: app.test" "http://127.0.0.1:$GW/" \
		    >>"$T/curl.codes" 2>/dev/null
		n=$((n + 1))
	done
) &
CURL_PID=$!
wrk -t1 -c8 -d60s -H "Host: app.test" "http://127.0.0.1:$GW/" \
    >"$T/wrk.out" 2>&1 &
WRK_PID=$!
sleep 1

base=$(grep -c 'reload: ' "$T/orchd.log")
t0=$(now_ms)
bad=0
i=1
while [ $i -le $RELOADS ]; do
	conf $i >"$T/orchd.conf"
	if [ $((i % 2)) -eq 0 ]; then
		"$ORCHCTL" -s "$SOCK" reload >"$T/reload.out" 2>&1 ||
		    { bad=$((bad + 1)); sed 's/^/#	/' "$T/reload.out"; }
	else
		kill -HUP "$ORCHD_PID"
		wait_for 5 reloaded $((base + i)) || bad=$((bad + 1))
	fi
	i=$((i + 1))
	sleep 0.2	# spread over some 10 s of load
done
ms=$(($(now_ms) - t0))
echo "# figure: reloads_per_s $((RELOADS * 1000 / (ms > 0 ? ms : 1))) /s"
check "$RELOADS reloads taken, none refused or lost ($bad bad)" \
    [ "$bad" -eq 0 ]
sleep 1
kill -INT "$WRK_PID" 2>/dev/null
: >"$T/stop"
wait "$WRK_PID"
wait "$CURL_PID"

sed 's/^/#	/' "$T/wrk.out"
reqs=$(awk '/requests in/ { print $1 }' "$T/wrk.out")
non2xx=$(awk '/Non-2xx/ { print $NF }' "$T/wrk.out")
sockerr=$(sed -n 's/.*Socket errors: //p' "$T/wrk.out")
echo "# figure: reloads_wrk_requests ${reqs:-0} requests"
echo "# figure: reloads_wrk_non2xx ${non2xx:-0} answers"
check "wrk made requests (${reqs:-none})" [ "${reqs:-0}" -gt 0 ]
check "wrk saw no non-2xx answer (${non2xx:-0})" [ -z "$non2xx" ]
check "wrk saw no socket error (${sockerr:-none})" [ -z "$sockerr" ]

total=$(wc -l <"$T/curl.codes")
notok=$(grep -vc '^2' "$T/curl.codes")
echo "# figure: reloads_curl_requests $total requests"
echo "# figure: reloads_curl_not2xx $notok answers"
check "the curl loop made requests ($total)" [ "$total" -gt 0 ]
codes=$(grep -v '^2' "$T/curl.codes" | sort | uniq -c | tr -s '\n ' ' ')
check "every new connection got a 2xx ($notok did not:$codes)" \
    [ "$notok" -eq 0 ]
check "app was never restarted" \
    [ "$(grep -c 'workload app: .* -> running' "$T/orchd.log")" -eq 1 ]
check "orchd still runs" alive "$ORCHD_PID"

stop_orchd
check "orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]
e2e_done
