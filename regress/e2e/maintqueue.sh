#!/bin/sh
# Maintenance turned on for a workload whose wake waits in the admission
# queue ("max concurrent wakes 1", the slot taken by a slow start): its
# wake leaves the queue at once, the request held for it is answered
# 503 without waiting out its wake timeout, and it is not started once
# the slot is free.  (The code before passes this too: its gateways
# answered the held request at the maintenance, and its turn was dropped
# at admission.  What leaving the queue at once adds, that no room is
# made by evicting others for a start that will not come, is not
# replayed here.)
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
testhttp_bin

ports GW PA PB
mkdir -p "$T/log"
for f in a b; do
	: >"$T/$f.starts"
	chmod 0666 "$T/$f.starts"
done
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
listen on 127.0.0.1 port $GW
wake timeout 30s
max concurrent wakes 1
workload "slow" {
	host "slow.test"
	command "/bin/sh -c 'echo x >>$T/a.starts; exec $T/bin/testhttp serve $PA'"
	env "TESTHTTP_DELAY=6000"
	port $PA
}
workload "held" {
	host "held.test"
	command "/bin/sh -c 'echo x >>$T/b.starts; exec $T/bin/testhttp serve $PB'"
	port $PB
}
CONF
start_orchd_or_exit
ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
code() {	# code HOST: the status, and how long it took in whole seconds
	curl -s -m 40 -o /dev/null -w '%{http_code} %{time_total}' \
	    -H "Host: $1" "http://127.0.0.1:$GW/" | awk '{ printf "%s %d", $1, $2 }'
}
code slow.test >"$T/slow.out" &
slowpid=$!
sleep 1
code held.test >"$T/held.out" &
heldpid=$!
sleep 1
check "orchctl maintenance held on, its wake queued behind slow" \
    quiet ctl maintenance held on --message "restoring"
wait "$heldpid"
set -- $(cat "$T/held.out")
check "the held request is answered 503 ($1)" [ "$1" = 503 ]
check "... at once, not after its 30 s wake timeout (${2}s)" [ "$2" -lt 10 ]
wait "$slowpid"
set -- $(cat "$T/slow.out")
check "slow, which had the slot, is served ($1)" [ "$1" = 200 ]
sleep 2
check "held was never started" [ "$(wc -l <"$T/b.starts")" -eq 0 ]
check "orchd still runs" alive "$ORCHD_PID"
e2e_done
