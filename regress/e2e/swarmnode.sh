#!/bin/sh
# Routing to the node a swarm task runs on, with a second node on this
# machine: a second dockerd (its own data root, exec root, socket and
# pid file, swarm listen and advertise address 127.0.0.2, --bridge=none
# --iptables=false) joined to this daemon's swarm as a worker.  A
# workload constrained to a label only that node has is placed there,
# routed to its node's address and served by its task there; `docker
# node update --availability drain` moves the task to the manager while
# requests keep coming, and every one is answered by a task (held
# during the move); a workload with replicas 2 is spread over both.
#
# On one machine the worker's address in the swarm (Status.Addr) is the
# address it connects to the manager from, 127.0.0.1 as the manager's:
# the route is checked against what the swarm says, and where a request
# was served is told by the page, which names the node (env {{.Node.ID}}
# templated by the swarm).
#
# The swarm must be active on this daemon, as swarm.sh leaves it; the
# second node and everything of it are removed at the end.  Where the
# second dockerd cannot start, join or run a container, the script says
# why and skips the rest.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root

need_docker
command -v dockerd >/dev/null 2>&1 || skip "no dockerd to run a second node"
need_swarm
ensure_user

IMAGE=orchd-test/busybox:latest
TAG=sn$$
ONE=${TAG}one
TWO=${TAG}two
LABEL=orchde2e$TAG
N2=$T/n2
D2="docker -H unix://$N2/d.sock"
D2_PID=
N2ID=
MGRID=$(docker info --format '{{.Swarm.NodeID}}')
MGRADDR=$(docker info --format \
    '{{range .Swarm.RemoteManagers}}{{.Addr}} {{end}}' | awk '{ print $1 }')

sn_cleanup() {
	if [ -n "$ORCHD_PID" ] && kill -0 "$ORCHD_PID" 2>/dev/null; then
		kill -TERM "$ORCHD_PID" 2>/dev/null
		wait_gone "$ORCHD_PID" 10
	fi
	for n in $ONE $TWO; do
		docker service rm "orchd-$n" >/dev/null 2>&1
	done
	docker node update --label-rm "$LABEL" "$MGRID" >/dev/null 2>&1
	if [ -n "$D2_PID" ]; then
		timeout 30 $D2 swarm leave --force >/dev/null 2>&1
		[ -z "$N2ID" ] || timeout 30 docker node rm --force "$N2ID" \
		    >/dev/null 2>&1
	fi
	dockerd_stop "$D2_PID" "$N2"
	e2e_cleanup
}
trap sn_cleanup EXIT

port_base 13
ports GW P_ONE P_TWO P_SW
mkdir -p "$T/log" "$N2"

# the second node
dockerd_start D2_PID "$N2"
out=$(timeout 60 $D2 swarm join --listen-addr "127.0.0.2:$P_SW" \
    --advertise-addr 127.0.0.2 --token "$(docker swarm join-token -q \
    worker)" "$MGRADDR" 2>&1) ||
    skip "the second dockerd does not join the swarm: $out"
N2ID=$($D2 info --format '{{.Swarm.NodeID}}')
echo "# second node $N2ID joined as a worker"
check "the second node is ready" wait_for 30 sh -c "[ \"\$(docker node \
    inspect -f '{{.Status.State}}' $N2ID)\" = ready ]"
docker save "$IMAGE" | $D2 load >/dev/null 2>&1
check "the test image on the second node" quiet $D2 image inspect "$IMAGE"
# a node that cannot start a container (a dockerd inside a container
# whose cgroups it cannot write, say) cannot hold a task: say why, stop
if ! out=$(timeout 60 $D2 run --rm --network host "$IMAGE" /bin/sh -c \
    'exit 0' 2>&1); then
	echo "skipped: the second dockerd cannot run a container: $out" |
	    head -n 3
	e2e_done
	exit $?
fi
docker node update --label-add "$LABEL=on" "$N2ID" >/dev/null
N2ADDR=$(docker node inspect -f '{{.Status.Addr}}' "$N2ID")
echo "# its address in the swarm: $N2ADDR"

# sw_conf NAME HOST PORT [EXTRA...]: a page naming the node of its task
sw_conf() {
	n=$1 h=$2 p=$3
	shift 3
	cat <<CONF
workload "$n" {
	host "$h"
	driver swarm
	image "$IMAGE"
	env "NODE={{.Node.ID}}"
	env "SLOT={{.Task.Slot}}"
	command "/bin/sh -c 'mkdir -p /tmp/w && echo \$NODE >/tmp/w/index.html && exec httpd -f -p $BIND$p -h /tmp/w'"
	network host
	port $p
	health path "/index.html"
CONF
	conf_end "$@"
}
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
idle timeout 5m
wake timeout 60s

listen on 127.0.0.1 port $GW

CONF
BIND=
sw_conf "$ONE" one.test "$P_ONE" \
    "constraint \"node.labels.$LABEL==on\"" >>"$T/orchd.conf"
# both on the manager, in one network namespace: one port, two addresses
BIND='127.0.0.$SLOT:'
sw_conf "$TWO" two.test "$P_TWO" 'replicas 2' \
    'constraint "node.role==manager"' >>"$T/orchd.conf"

get() {		# get HOST: code, then the body
	curl -s -m 60 -o "$T/body.$$" -w '%{http_code}\n' -H "Host: $1" \
	    "http://127.0.0.1:$GW/index.html"
	cat "$T/body.$$" 2>/dev/null
}
code() { echo "$1" | head -n 1; }
body() { echo "$1" | sed -n 2p; }

start_orchd_or_exit -v

# 1. placed on the second node, routed to its address, served there
out=$(get one.test)
check "the first request is served (got $(code "$out"))" \
    [ "$(code "$out")" = 200 ]
check "by its task on the second node ($(body "$out"))" \
    [ "$(body "$out")" = "$N2ID" ]
check "routed to the second node's address ($N2ADDR)" grep -q \
    "workload $ONE: routed to its task on $N2ADDR" "$T/orchd.log"
check "the task's node was looked up" grep -q \
    "workload $ONE: a task on node $N2ID, $N2ADDR" "$T/orchd.log"

# 2. drain: the task moves to the manager; requests meanwhile all served
docker node update --label-add "$LABEL=on" "$MGRID" >/dev/null
: >"$T/drain"
(
	i=0
	while [ $i -lt 400 ] && [ ! -e "$T/drain.stop" ]; do
		curl -s -m 60 -o "$T/dbody" -w '%{http_code} ' \
		    -H "Host: one.test" "http://127.0.0.1:$GW/index.html"
		cat "$T/dbody" 2>/dev/null || echo
		i=$((i + 1))
		sleep 0.05
	done >"$T/drain"
) &
LOOP=$!
sleep 1
docker node update --availability drain "$N2ID" >/dev/null
check "a request is served by the moved task" wait_for 60 \
    grep -q "^200 $MGRID" "$T/drain"
sleep 1
touch "$T/drain.stop"
wait_for 70 dead "$LOOP"
wait "$LOOP" 2>/dev/null
n=$(wc -l <"$T/drain")
bad=$(grep -vc '^200 ' "$T/drain")
check "requests during the move: $n, all 200 (not: $bad)" \
    [ "$n" -gt 0 ] && [ "$bad" -eq 0 ]
check "served on the second node before, the manager after" sh -c \
    "grep -q '^200 $N2ID' $T/drain && [ \"\$(tail -n 1 $T/drain)\" = \
    '200 $MGRID' ]"
check "its route followed the task" wait_for 10 sh -c "[ \$(grep -c \
    'workload $ONE: routed to its task on' $T/orchd.log) -ge 2 ]"
check "held meanwhile: a refused connection made runtimed look" grep -q \
    "workload $ONE: a gateway could not connect: looking" "$T/orchd.log"
grep -E "$ONE: (routed to|looking where|refused a connection)" \
    "$T/orchd.log" | tail -n 6 | sed 's/^/# /'
check "no orchd restart" kill -0 "$ORCHD_PID"

# 3. replicas 2: both tasks run, requests go to the nodes routed
out=$(get two.test)
check "replicas 2: served (got $(code "$out"))" [ "$(code "$out")" = 200 ]
check "replicas 2: two tasks run" wait_for 30 sh -c "[ \$(docker service \
    ps -q -f desired-state=running orchd-$TWO | wc -l) -eq 2 ]"
codes=
i=0
while [ $i -lt 10 ]; do
	codes="$codes $(code "$(get two.test)")"
	i=$((i + 1))
done
check "replicas 2: ten requests served ($codes)" sh -c \
    "[ \"\$(echo $codes | tr ' ' '\n' | grep -c '^200$')\" -eq 10 ]"

e2e_done
