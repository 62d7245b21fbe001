#!/bin/sh
# Attack: a workload whose port lies in the kernel's ephemeral range is
# declared ready before it listens.  runtimed's readiness check connects
# to the port again and again while nothing listens there; a connect the
# kernel gives that very port as its source meets itself (TCP's
# simultaneous open) and succeeds.  The script makes that likely: the
# kernel walks the source ports of connects to one address and port in
# small random steps shared by every socket, so the script walks them
# too with connects of its own to the port, to just below it, and waits
# there for runtimed's next checks (one may land on it).
# The workload (the test backend, listening only after DELAY seconds)
# must not be "running" before it listens (selfconn.c: a connect that
# reached itself is taken as a refusal), and it must then start and
# answer, its port not held by a check.  Loopback only, every wait
# bounded.
#
#	sh regress/e2e/attack_selfconn.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
testhttp_bin

DELAY=14
port_base 43
ports GW
# an even port in the ephemeral range (connects take even ones first)
# (cat: dash reads a byte at a time, which a sysctl file does not take)
set -- $(cat /proc/sys/net/ipv4/ip_local_port_range)
LO=$1 HI=$2
P=$(free_port $((LO + 1000 + ($$ % ((HI - LO - 2000) / 2)) * 2)))
[ $((P % 2)) -eq 0 ] || P=$(free_port $((P + 1)))
echo "# port $P"

cat >"$T/bin/late.sh" <<SH
#!/bin/sh
sleep $DELAY
exec $T/bin/testhttp serve $P 2>>$T/late.err
SH
chmod 0755 "$T/bin/late.sh"
: >"$T/late.err"
chmod 0666 "$T/late.err"
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
reaper interval 1s
wake timeout 60s
listen on 127.0.0.1 port $GW
workload "late" {
	host "late.test"
	command "$T/bin/late.sh"
	port $P
	keep warm
}
CONF

# walk SECONDS: the kernel's source ports toward P, bounded in time
cat >"$T/walk.py" <<'PY'
import socket, struct, sys, time
port, secs = int(sys.argv[1]), float(sys.argv[2])
end = time.monotonic() + secs
hits = 0
while time.monotonic() < end:
	s = socket.socket()
	# no TIME_WAIT of its own left on the port (selfconn.c)
	s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
	try:
		s.connect(("127.0.0.1", port))
	except OSError:
		pass
	try:
		me = s.getsockname()[1]
	except OSError:
		me = 0
	s.close()
	if me == port:
		hits += 1
	gap = (port - me) % 65536
	if 0 < gap <= 16:
		time.sleep(0.2)	# runtimed checks every 50 ms at most
print(hits)
PY

ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
state() { ctl show workloads 2>/dev/null | awk '$1 == "late" { print $2 }'; }
answers() {
	curl -s -m 2 -H 'Host: late.test' "http://127.0.0.1:$GW/" |
	    grep -q hello
}
listening() { ss -Htln "sport = :$P" 2>/dev/null | grep -q .; }

start_orchd_or_exit
python3 "$T/walk.py" "$P" $((DELAY - 1)) >"$T/walk.out" &
WALK=$!
early=0
i=0
while [ "$i" -lt $(((DELAY - 1) * 10)) ] && ! listening; do
	[ "$(state)" = running ] && early=1
	sleep 0.1
	i=$((i + 1))
done
wait "$WALK"
echo "# the walk's own self-connects: $(cat "$T/walk.out")"
check "late is not running before it listens (port $P)" [ "$early" -eq 0 ]
check "late starts" wait_for 30 answers
sed 's/^/# late: /' "$T/late.err"
check "late is running" [ "$(state)" = running ]
stop_orchd
check "orchd exits 0" [ "$STATUS" -eq 0 ]
e2e_done
