#!/bin/sh
# A swarm manager reached over TCP and TLS (swarm manager "tcp://..." ca
# certificate key): a dockerd of the test's own (its own data root, exec
# root, socket and pid file, --bridge=none --iptables=false) listens on
# tcp://127.0.0.1:PORT with --tlsverify and a test CA made here with
# openssl, and is a one-node swarm of its own advertised on 127.0.0.3,
# apart from the swarm of the machine's daemon.  A request wakes a
# workload made a service there through TLS, and is routed to that
# node's address, which the workload's definition does not name (its
# task binds 127.0.0.3 only); idle, the service is scaled to 0 there.  A
# client certificate of another CA is refused by the manager: the wake
# answers 503 and says why.  A key file others can read is refused.
#
# Loopback only, every wait bounded; the dockerd, its swarm and its
# directories are removed at the end.  Where it cannot start or run a
# container, the script says why and skips the rest.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root

need_docker
command -v dockerd >/dev/null 2>&1 || skip "no dockerd to run a manager"
command -v openssl >/dev/null 2>&1 || skip "no openssl to make a test CA"
ensure_user

IMAGE=orchd-test/busybox:latest
TAG=st$$
WEB=${TAG}web
M=$T/mgr
PKI=$T/pki
DM="docker -H unix://$M/d.sock"
DM_PID=

st_cleanup() {
	if [ -n "$ORCHD_PID" ] && kill -0 "$ORCHD_PID" 2>/dev/null; then
		kill -TERM "$ORCHD_PID" 2>/dev/null
		wait_gone "$ORCHD_PID" 10
	fi
	if [ -n "$DM_PID" ]; then
		$DM service rm "orchd-$WEB" >/dev/null 2>&1
		timeout 30 $DM swarm leave --force >/dev/null 2>&1
	fi
	dockerd_stop "$DM_PID" "$M"
	e2e_cleanup
}
trap st_cleanup EXIT

port_base 17
ports GW P_API P_WEB P_SW P_DP
mkdir -p "$T/log" "$M" "$PKI"

# the test CA, the manager's certificate for 127.0.0.1, a client's; and
# a client of another CA
pki() {
	cd "$PKI" || return 1
	printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' \
	    >server.ext
	printf 'extendedKeyUsage=clientAuth\n' >client.ext
	for ca in ca other; do
		openssl req -x509 -newkey rsa:2048 -nodes -days 2 \
		    -subj "/CN=orchd test $ca" -keyout $ca-key.pem \
		    -out $ca.pem || return 1
	done
	for c in server:ca client:ca stranger:other; do
		n=${c%%:*} ca=${c#*:}
		ext=client.ext
		[ "$n" = server ] && ext=server.ext
		openssl req -newkey rsa:2048 -nodes -subj "/CN=$n" \
		    -keyout $n-key.pem -out $n.csr || return 1
		openssl x509 -req -in $n.csr -CA $ca.pem -CAkey $ca-key.pem \
		    -CAcreateserial -days 2 -extfile $ext -out $n.pem ||
		    return 1
	done
	chmod 600 ./*-key.pem
}
(pki) >"$PKI/log" 2>&1 || skip "openssl cannot make the test CA: \
$(tail -n 1 "$PKI/log")"

# the manager: a dockerd of our own, on TCP with --tlsverify
dockerd_start DM_PID "$M" -H "tcp://127.0.0.1:$P_API" --tlsverify \
    --tlscacert "$PKI/ca.pem" --tlscert "$PKI/server.pem" \
    --tlskey "$PKI/server-key.pem"
out=$(timeout 60 $DM swarm init --advertise-addr 127.0.0.3 \
    --listen-addr "127.0.0.3:$P_SW" --data-path-port "$P_DP" 2>&1) ||
    skip "docker swarm init fails on the test's dockerd: $out"
docker save "$IMAGE" | $DM load >/dev/null 2>&1
check "the test image on the manager" quiet $DM image inspect "$IMAGE"
# a dockerd that cannot start a container (inside a container whose
# cgroups it cannot write, say) cannot hold a task: say why, stop
if ! out=$(timeout 60 $DM run --rm --network host "$IMAGE" /bin/sh -c \
    'exit 0' 2>&1); then
	echo "skipped: the test's dockerd cannot run a container: $out" |
	    head -n 3
	e2e_done
	exit $?
fi
MADDR=$($DM node inspect -f '{{.Status.Addr}}' self)
echo "# the manager's node address: $MADDR"
check "the manager answers on TCP with the test client certificate" \
    quiet docker -H "tcp://127.0.0.1:$P_API" --tlsverify \
    --tlscacert "$PKI/ca.pem" --tlscert "$PKI/client.pem" \
    --tlskey "$PKI/client-key.pem" info
check "and refuses one of another CA" sh -c "! docker -H \
    tcp://127.0.0.1:$P_API --tlsverify --tlscacert $PKI/ca.pem \
    --tlscert $PKI/stranger.pem --tlskey $PKI/stranger-key.pem info \
    >/dev/null 2>&1"

write_conf() {	# write_conf CLIENT: that certificate and its key
	conf_head >"$T/orchd.conf"
	cat >>"$T/orchd.conf" <<CONF
swarm manager "tcp://127.0.0.1:$P_API" ca "$PKI/ca.pem" certificate "$PKI/$1.pem" key "$PKI/$1-key.pem"
idle timeout 5m
wake timeout 60s
reaper interval 1s

listen on 127.0.0.1 port $GW

workload "$WEB" {
	host "web.test"
	driver swarm
	image "$IMAGE"
	command "/bin/sh -c 'mkdir -p /tmp/w && echo hello-$WEB >/tmp/w/index.html && exec httpd -f -p $MADDR:$P_WEB -h /tmp/w'"
	network host
	port $P_WEB
	health path "/index.html"
	stop signal KILL
	idle timeout 4s
}
CONF
}
get() {		# get HOST: code, then the body
	curl -s -m 60 -o "$T/body.$$" -w '%{http_code}\n' -H "Host: $1" \
	    "http://127.0.0.1:$GW/index.html"
	cat "$T/body.$$" 2>/dev/null
}
code() { echo "$1" | head -n 1; }
body() { echo "$1" | sed -n 2p; }
state() {
	"$ORCHCTL" -s "$SOCK" show workload "$1" 2>/dev/null |
	    awk '$1 == "state:" { print $2 }'
}
state_is() { [ "$(state "$1")" = "$2" ]; }
replicas_are() {
	[ "$($DM service inspect -f '{{.Spec.Mode.Replicated.Replicas}}' \
	    "orchd-$1" 2>/dev/null)" = "$2" ]
}

# 1. a key file others can read: refused
write_conf client
chmod 644 "$PKI/client-key.pem"
check "a swarm key others can read is refused (orchd -n)" sh -c "! \
    '$ORCHD' -n -f '$T/orchd.conf' >'$T/n.out' 2>&1"
check "... saying so" grep -q "swarm key .* is readable by others" \
    "$T/n.out"
chmod 600 "$PKI/client-key.pem"
check "readable by its owner alone: accepted (orchd -n)" quiet "$ORCHD" -n \
    -f "$T/orchd.conf"

# 2. through TLS: the service is made on the manager, its task routed to
start_orchd_or_exit -v
maps_tls() { grep -q 'libtls\.so\|libssl\.so' "/proc/$(child runtime)/maps"; }
check "runtimed has libtls loaded, for the manager" maps_tls
out=$(get web.test)
check "the first request is served (got $(code "$out"))" \
    [ "$(code "$out")" = 200 ]
check "by the task ($(body "$out"))" [ "$(body "$out")" = "hello-$WEB" ]
check "its service is on the TLS manager" replicas_are "$WEB" 1
check "not on the local daemon" sh -c "! docker service inspect \
    orchd-$WEB >/dev/null 2>&1"
check "routed to the manager node's address $MADDR" grep -q \
    "workload $WEB: routed to its task on $MADDR" "$T/orchd.log"
check "idle: asleep (within 30 s)" wait_for 30 state_is "$WEB" asleep
check "its service scaled to 0 there" replicas_are "$WEB" 0
out=$(get web.test)
check "woken again (got $(code "$out"))" [ "$(code "$out")" = 200 ]
stop_orchd
check "orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]

# 3. a client certificate of another CA: the manager refuses, 503
$DM service scale "orchd-$WEB=0" >/dev/null 2>&1
wait_for 30 sh -c "[ -z \"\$($DM ps -q)\" ]"
write_conf stranger
: >"$T/orchd.log"
start_orchd_or_exit -v
check "asleep at start" wait_for 15 state_is "$WEB" asleep
out=$(get web.test)
check "the wake through a refused certificate answers 503 (got \
$(code "$out"))" [ "$(code "$out")" = 503 ]
check "and says it is TLS" grep -q "TLS with the swarm manager" \
    "$T/orchd.log"
grep -m 1 "swarm manager at" "$T/orchd.log" | sed 's/^/# /'
check "orchd keeps running" kill -0 "$ORCHD_PID"
stop_orchd
check "orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]

# 4. no manager: runtimed maps no libtls; a reload that adds one says it
# takes a restart, and changes nothing else
write_conf client
grep -v '^swarm manager' "$T/orchd.conf" >"$T/nomgr.conf"
cp "$T/orchd.conf" "$T/mgr.conf"
cp "$T/nomgr.conf" "$T/orchd.conf"
: >"$T/orchd.log"
start_orchd_or_exit -v
check "without a manager, runtimed maps no libtls nor libssl" \
    sh -c "! grep -q 'libtls\.so\|libssl\.so\|libcrypto\.so' \
    /proc/$(child runtime)/maps"
cp "$T/mgr.conf" "$T/orchd.conf"
"$ORCHCTL" -s "$SOCK" reload >"$T/reload.out" 2>&1
check "a reload adding a manager says it takes a restart" \
    grep -q "swarm manager.*restart" "$T/reload.out" "$T/orchd.log"
check "... orchd keeps running" kill -0 "$ORCHD_PID"
check "... runtimed still maps no libtls" sh -c "! grep -q 'libtls\.so' \
    /proc/$(child runtime)/maps"
stop_orchd
check "orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]

e2e_done
