#!/bin/sh
# The daemon's messages a new user met (issue 35): a port in use is
# named with its address and port, one workload is "1 workload", not
# "1 workloads", and a fatal error names its process once ("store:
# fatal: ...", not "store: fatal in store: ...").
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

port_base 53
ports GW P_A
testhttp_bin

write_conf() {
	conf_head >"$T/orchd.conf"
	cat >>"$T/orchd.conf" <<CONF
listen on 127.0.0.1 port $GW
workload "h35msg" {
	host "a.test"
	command "$T/bin/testhttp serve $P_A"
	port $P_A
}
CONF
}
write_conf

# -- the gateway's port taken by another process: named in the error
python3 -c 'import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(1)
open(sys.argv[2], "w").close()
time.sleep(60)' "$GW" "$T/held" &
HOLDER=$!
wait_for 10 test -e "$T/held"
timeout 30 "$ORCHD" -d -f "$T/orchd.conf" >"$T/inuse.out" 2>&1
st=$?
kill "$HOLDER" 2>/dev/null
wait "$HOLDER" 2>/dev/null
check "orchd does not start on a port in use (status $st)" [ "$st" -ne 0 ]
check "... the error says Address already in use" \
    grep -q "Address already in use" "$T/inuse.out"
check "... naming the address and the port" \
    grep -q "127.0.0.1 port $GW: Address already in use" "$T/inuse.out"
check "... and the process once, as fatal:" \
    grep -q "^[a-z]*: fatal: .*127.0.0.1 port $GW" "$T/inuse.out"
check "... not \"fatal in\"" sh -c "! grep -q 'fatal in' '$T/inuse.out'"

# -- one workload: singular
start_orchd_or_exit
check "the log says \"1 workload\"" \
    wait_for 10 grep -q "configuration 1 active, 1 workload\$" "$T/orchd.log"
check "... never \"1 workloads\"" sh -c "! grep -q '[^0-9]1 workloads' '$T/orchd.log'"
stop_orchd
e2e_done
