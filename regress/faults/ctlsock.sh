#!/bin/sh
# The control socket removed while orchd runs (a tmpfiles cleaner, an
# operator's rm): the gateway goes on serving, SIGHUP makes the socket
# again, and so does orchd's periodic check without any signal, within
# PERIODIC seconds (issue 30 asks for both; 30 s is this test's bound
# for the check's period).  Until it is made again only a restart would
# give the operator control back.
#
#	sh regress/faults/ctlsock.sh build/check
. "$(dirname "$0")/../e2e/lib.sh"
e2e_init "$1"
need_root
ensure_user

PERIODIC=30	# seconds the periodic check may take to notice

port_base 29
ports GW P
testhttp_bin
mkdir -p "$T/log"
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
listen on 127.0.0.1 port $GW

workload "app" {
	host "app.test"
	command "$T/bin/testhttp serve $P"
	port $P
}
CONF

get() { curl -sS -m 20 -H "Host: app.test" "http://127.0.0.1:$GW/"; }
answers() { "$ORCHCTL" -s "$SOCK" show summary; }
secs() { echo $(($(date +%s%N) / 1000000000)); }

start_orchd_or_exit
check "app answers" [ "$(get)" = "hello from testhttp" ]

# -- 1. removed, then SIGHUP
rm -f "$SOCK"
check "with the socket removed, orchctl cannot reach orchd" \
    sh -c "! \"$ORCHCTL\" -s \"$SOCK\" show summary >/dev/null 2>&1"
check "the gateway still serves" [ "$(get)" = "hello from testhttp" ]
t0=$(secs)
kill -HUP "$ORCHD_PID"
check "SIGHUP makes the control socket again" wait_for 5 answers
echo "# figure: ctlsock_sighup_back $(($(secs) - t0)) s"
check "it is a socket" [ -S "$SOCK" ]
check "orchd still runs" alive "$ORCHD_PID"

# -- 2. removed, no signal: the periodic check
rm -f "$SOCK"
t0=$(secs)
check "the periodic check makes it again within $PERIODIC s" \
    wait_for "$PERIODIC" answers
echo "# figure: ctlsock_periodic_back $(($(secs) - t0)) s"
check "the gateway still serves" [ "$(get)" = "hello from testhttp" ]
check "orchd still runs" alive "$ORCHD_PID"

stop_orchd
check "orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]
check "and removes its socket" [ ! -e "$SOCK" ]
e2e_done
