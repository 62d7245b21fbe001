#!/bin/sh
# The swarm driver against the Docker daemon of this machine made a
# one-node swarm: a request to a sleeping workload creates its service
# orchd-NAME with one replica and is served; idle, the service is scaled
# to 0; 20 concurrent requests cause one scale-up (counted in the
# daemon's service events); a service scaled up and down by hand is
# adopted; a changed definition is a drift, orchctl restart and on
# change restart replace it in place (scaled to 0, then updated), the
# requests held meanwhile; no manager answers 503 and the next wake
# recovers; two orchd instances, 20 cold requests split between them:
# one scale-up.
#
# The swarm: `docker swarm init --advertise-addr 127.0.0.1` if the daemon
# is in none, and it is left initialised at the end.  The daemon is
# shared with other tests (and CI): a swarm leave --force there would
# remove every service of whoever else uses it, and ordinary containers
# keep working in a swarm (checked below).  Where the swarm cannot
# start, the script says so and skips.  Loopback only, network host,
# every wait bounded; the services made here are removed.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
need_docker
ensure_user
need_swarm init

IMAGE=orchd-test/busybox:latest
TAG=sw$$
WEB=${TAG}web
HAND=${TAG}hand
OFF=${TAG}off
TWO=${TAG}two
EVENTS_PID=
RELAY_PID=
B_PID=

sw_cleanup() {
	if [ -n "$B_PID" ] && kill -0 "$B_PID" 2>/dev/null; then
		kill -TERM "$B_PID" 2>/dev/null
		wait_gone "$B_PID" 10
	fi
	if [ -n "$ORCHD_PID" ] && kill -0 "$ORCHD_PID" 2>/dev/null; then
		kill -TERM "$ORCHD_PID" 2>/dev/null
		wait_gone "$ORCHD_PID" 10
	fi
	[ -z "$RELAY_PID" ] || kill "$RELAY_PID" 2>/dev/null
	[ -z "$EVENTS_PID" ] || kill "$EVENTS_PID" 2>/dev/null
	for n in $WEB $HAND $OFF $TWO; do
		docker service rm "orchd-$n" >/dev/null 2>&1
	done
	e2e_cleanup
}
trap sw_cleanup EXIT

# 0. ordinary containers still work with the daemon in a swarm
check "docker run --network host works in the swarm" \
    sh -c "timeout 60 docker run --rm --network host $IMAGE echo ok >/dev/null"

port_base 11
ports GW GW2 P_WEB P_HAND P_OFF P_TWO
mkdir -p "$T/log" "$T/dock" "$T/b/log"

# sw_conf NAME HOST PORT [EXTRA...]: a swarm workload serving hello-NAME
sw_conf() {
	n=$1 h=$2 p=$3
	shift 3
	cat <<CONF
workload "$n" {
	host "$h"
	driver swarm
	image "$IMAGE"
	command "/bin/sh -c 'mkdir -p /tmp/w && echo hello-$n >/tmp/w/index.html && exec httpd -f -p 127.0.0.1:$p -h /tmp/w'"
	network host
	port $p
	health path "/index.html"
	stop signal KILL
CONF
	conf_end "$@"
}

write_conf() {	# write_conf [EXTRA-LINE-OF-HAND...]
	conf_head >"$T/orchd.conf"
	cat >>"$T/orchd.conf" <<CONF
idle timeout 5m
wake timeout 60s
reaper interval 1s

listen on 127.0.0.1 port $GW

CONF
	sw_conf "$WEB" web.test "$P_WEB" 'idle timeout 4s' \
	    'memory 64M' 'constraint "node.role==manager"' >>"$T/orchd.conf"
	sw_conf "$HAND" hand.test "$P_HAND" "$@" >>"$T/orchd.conf"
	sw_conf "$TWO" two.test "$P_TWO" >>"$T/orchd.conf"
}
write_conf

quiet() { "$@" >/dev/null 2>&1; }
get() {		# get GATEWAY-PORT HOST: code, then the body
	curl -s -m 60 -o "$T/body.$$" -w '%{http_code}\n' -H "Host: $2" \
	    "http://127.0.0.1:$1/index.html"
	cat "$T/body.$$" 2>/dev/null
}
code() { echo "$1" | head -n 1; }
body() { echo "$1" | sed -n 2p; }
state() {
	"$ORCHCTL" -s "${2:-$SOCK}" show workload "$1" 2>/dev/null |
	    awk '$1 == "state:" { print $2 }'
}
state_is() { [ "$(state "$1" "$3")" = "$2" ]; }
replicas() {
	docker service inspect -f '{{.Spec.Mode.Replicated.Replicas}}' \
	    "orchd-$1" 2>/dev/null
}
replicas_are() { [ "$(replicas "$1")" = "$2" ]; }
svclabel() {
	docker service inspect -f "{{index .Spec.Labels \"$2\"}}" \
	    "orchd-$1" 2>/dev/null
}

# scale-ups of orchd-NAME, from the daemon's service events followed as
# they come: its create, and each update whose replicas.new is not 0
docker events --filter type=service --format \
    '{{.Action}} {{.Actor.Attributes.name}} {{index .Actor.Attributes "replicas.new"}}' \
    >"$T/events" 2>/dev/null &
EVENTS_PID=$!
ups() {
	sleep 0.5
	awk -v n="orchd-$1" '$2 == n && ($1 == "create" ||
	    ($1 == "update" && $3 != "" && $3 != "0"))' "$T/events" | wc -l
}

start_orchd_or_exit

# 1. nothing is made before the first request
check "asleep at start" wait_for 10 state_is "$WEB" asleep
check "no service before a request" sh -c "! docker service inspect \
    orchd-$WEB >/dev/null 2>&1"

# 2. a request creates the service, one replica, and is served
out=$(get "$GW" web.test)
check "the first request is served (got $(code "$out"))" \
    [ "$(code "$out")" = 200 ]
check "by the task ($(body "$out"))" [ "$(body "$out")" = "hello-$WEB" ]
check "running" wait_for 5 state_is "$WEB" running
check "service orchd-$WEB has 1 replica" replicas_are "$WEB" 1
check "labelled with its workload" [ "$(svclabel "$WEB" \
    org.orchd.workload)" = "$WEB" ]
check "and its definition's hash" sh -c "[ \$(printf %s '$(svclabel "$WEB" \
    org.orchd.hash)' | wc -c) -eq 64 ]"
check "memory limit and reservation carried over" [ "$(docker service \
    inspect -f '{{.Spec.TaskTemplate.Resources.Limits.MemoryBytes}} {{.Spec.TaskTemplate.Resources.Reservations.MemoryBytes}}' \
    "orchd-$WEB")" = "67108864 67108864" ]
check "constraint carried over" [ "$(docker service inspect -f \
    '{{join .Spec.TaskTemplate.Placement.Constraints ","}}' \
    "orchd-$WEB")" = "node.role==manager" ]
check "stop signal carried over" [ "$(docker service inspect -f \
    '{{.Spec.TaskTemplate.ContainerSpec.StopSignal}}' "orchd-$WEB")" = \
    SIGKILL ]

# 3. idle: scaled to 0
check "idle: asleep (within 30 s)" wait_for 30 state_is "$WEB" asleep
check "its service scaled to 0" replicas_are "$WEB" 0
check "no task of it runs" wait_for 20 sh -c "[ -z \"\$(docker ps -q \
    --filter label=com.docker.swarm.service.name=orchd-$WEB)\" ]"
before=$(ups "$WEB")

# 4. 20 concurrent requests to the sleeping service: one scale-up
i=0
while [ $i -lt 20 ]; do
	curl -s -m 60 -o /dev/null -w '%{http_code}\n' -H "Host: web.test" \
	    "http://127.0.0.1:$GW/index.html" >"$T/c.$i" &
	i=$((i + 1))
done
wait_for 70 sh -c "[ \$(cat $T/c.* 2>/dev/null | wc -l) -ge 20 ]"
served=$(cat "$T"/c.* | grep -c '^200$')
check "20 concurrent cold requests: 20 served (got $served)" \
    [ "$served" -eq 20 ]
after=$(ups "$WEB")
check "one scale-up for them ($((after - before)))" \
    [ $((after - before)) -eq 1 ]
check "suspended again when idle" wait_for 30 state_is "$WEB" asleep

# 5. a service scaled by hand is adopted: up, then down
out=$(get "$GW" hand.test)
check "hand: served (got $(code "$out"))" [ "$(code "$out")" = 200 ]
quiet "$ORCHCTL" -s "$SOCK" suspend "$HAND"
check "hand: suspended, 0 replicas" wait_for 20 replicas_are "$HAND" 0
check "hand: asleep" wait_for 10 state_is "$HAND" asleep
quiet docker service scale -d "orchd-$HAND=1"
check "scaled to 1 by hand: orchd finds it running (within 30 s)" \
    wait_for 30 state_is "$HAND" running
quiet docker service scale -d "orchd-$HAND=0"
check "scaled to 0 by hand: orchd finds it asleep (within 30 s)" \
    wait_for 30 sh -c "[ \"\$(\"$ORCHCTL\" -s \"$SOCK\" show workload \
    $HAND | awk '\$1 == \"state:\" { print \$2 }')\" = asleep ]"

# ... and one removed by hand while it runs: asleep, made again by the
# next request
out=$(get "$GW" hand.test)
check "hand: woken again (got $(code "$out"))" [ "$(code "$out")" = 200 ]
check "hand: running" wait_for 10 state_is "$HAND" running
quiet docker service rm "orchd-$HAND"
check "removed by hand: orchd finds it asleep (within 30 s)" \
    wait_for 30 state_is "$HAND" asleep
out=$(get "$GW" hand.test)
check "and the next request makes it again (got $(code "$out"))" \
    [ "$(code "$out")" = 200 ]
check "service orchd-$HAND is back, 1 replica" replicas_are "$HAND" 1
check "no warning in the log for a service not made yet" \
    sh -c "! grep -q 'GET /tasks.*404' '$T/orchd.log'"

# 5b. a changed definition: drift, orchctl restart, on change restart
svcenv() {
	docker service inspect -f \
	    '{{join .Spec.TaskTemplate.ContainerSpec.Env ","}}' \
	    "orchd-$HAND" 2>/dev/null
}
ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
write_conf 'env "V=2"'
check "a reload gives hand an env" quiet ctl reload
check "... show workloads marks it running*" \
    sh -c "$ORCHCTL -s $SOCK show workloads | grep -q '^$HAND  *running\\* '"
check "... show workload names env" sh -c "$ORCHCTL -s $SOCK show workload \
    $HAND | grep -q '^drift: *env changed since it started'"
check "... the service runs on without it" [ -z "$(svcenv)" ]
out=$(ctl restart "$HAND" 2>&1)
check "orchctl restart of a swarm workload ($out)" \
    [ "$out" = "$HAND is running again" ]
check "... its service has the env now" [ "$(svcenv)" = V=2 ]
check "... 1 replica" replicas_are "$HAND" 1
check "... no drift left" sh -c "! $ORCHCTL -s $SOCK show workload $HAND |
    grep -q '^drift:'"
out=$(get "$GW" hand.test)
check "... served (got $(code "$out"))" [ "$(code "$out")" = 200 ]
# on change restart, requests coming meanwhile: held, then served
write_conf 'env "V=3"' 'on change restart'
( i=0; while [ $i -lt 40 ]; do
	curl -s -m 60 -o /dev/null -w '%{http_code}\n' -H "Host: hand.test" \
	    "http://127.0.0.1:$GW/index.html"
	i=$((i + 1)); sleep 0.1
done >"$T/hand.load" ) &
lp=$!
sleep 0.5
check "a reload with on change restart" quiet ctl reload
check "... the service is updated at once" wait_for 60 \
    eval '[ "$(svcenv)" = V=3 ]'
wait $lp
check "... 40 requests meanwhile, all served ($(grep -c '^200$' \
"$T/hand.load"))" [ "$(grep -c '^200$' "$T/hand.load")" = 40 ]
check "... running, 1 replica" wait_for 30 state_is "$HAND" running
check "... its history says replaced" sh -c "$ORCHCTL -s $SOCK show \
    workload $HAND | grep -q 'suspending  *replaced  *new definition'"
write_conf
quiet ctl reload

# 6. two orchd instances, their own gateways and stores, the same swarm:
# 20 cold requests split between them, one scale-up
conf_head | sed "s|$T/|$T/b/|; /^instance name /d; /^workload uids /d" \
    >"$T/b/orchd.conf"
conf_instance "$E2E_INSTANCE-b" "$E2E_UID_LOW2" >>"$T/b/orchd.conf"
cat >>"$T/b/orchd.conf" <<CONF
idle timeout 5m
wake timeout 60s
reaper interval 1s

listen on 127.0.0.1 port $GW2

CONF
sw_conf "$TWO" two.test "$P_TWO" >>"$T/b/orchd.conf"
"$ORCHD" -d -f "$T/b/orchd.conf" >>"$T/b/orchd.log" 2>&1 &
B_PID=$!
check "a second orchd starts" wait_for 20 "$ORCHCTL" -s "$T/b/orchd.sock" \
    show summary
B_SOCK=$T/b/orchd.sock
# split NAME WHAT: 20 concurrent cold requests, odd ones to the second
split() {
	before=$(ups "$1")
	rm -f "$T"/c.*
	i=0
	while [ $i -lt 20 ]; do
		gw=$GW
		[ $((i % 2)) -eq 1 ] && gw=$GW2
		curl -s -m 60 -o /dev/null -w '%{http_code}\n' \
		    -H "Host: two.test" "http://127.0.0.1:$gw/index.html" \
		    >"$T/c.$i" &
		i=$((i + 1))
	done
	wait_for 70 sh -c "[ \$(cat $T/c.* 2>/dev/null | wc -l) -ge 20 ]"
	served=$(cat "$T"/c.* | grep -c '^200$')
	check "$2: 20 cold requests split over two gateways: 20 served \
(got $served)" [ "$served" -eq 20 ]
	after=$(ups "$1")
	check "$2: one scale-up between them ($((after - before)))" \
	    [ $((after - before)) -eq 1 ]
	check "$2: both instances run it" wait_for 10 state_is "$1" running \
	    "$B_SOCK"
}
split "$TWO" "no service yet"
# suspended through the first: the second sees its service at 0
quiet "$ORCHCTL" -s "$SOCK" suspend "$TWO"
check "suspended through one: the other finds it asleep (within 30 s)" \
    wait_for 30 state_is "$TWO" asleep "$B_SOCK"
split "$TWO" "service at 0"
kill -TERM "$B_PID" 2>/dev/null
wait_gone "$B_PID" 15
grep -E 'AddressSanitizer|runtime error:' "$T/b/orchd.log" >/dev/null &&
    fail "sanitizer report in the second orchd's log"
stop_orchd
check "orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]

# 7. no manager: the socket orchd is told is not there yet.  Wakes are
# 503, orchd keeps running; once the socket is there (a relay to the
# real one, as regress/e2e/docker.sh does), the next request is served.
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
docker socket "$T/dock/docker.sock"
wake timeout 60s
listen on 127.0.0.1 port $GW

CONF
sw_conf "$OFF" off.test "$P_OFF" >>"$T/orchd.conf"
start_orchd_or_exit
out=$(get "$GW" off.test)
check "no manager: 503 (got $(code "$out"))" [ "$(code "$out")" = 503 ]
check "orchd keeps running" quiet "$ORCHCTL" -s "$SOCK" show summary
sock=$(realpath /var/run/docker.sock)
dockergid=$(getent group docker | cut -d: -f3)
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
if [ -n "$PY" ] && [ -n "$dockergid" ]; then
	cp "$(dirname "$0")/dockerrelay.py" "$T/relay.py"
	"$PY" "$T/relay.py" "$T/dock/docker.sock" "$sock" "$dockergid" &
	RELAY_PID=$!
	check "the manager's socket is made" wait_for 10 \
	    test -S "$T/dock/docker.sock"
	out=$(get "$GW" off.test)
	check "the manager back: the next request is served (got \
$(code "$out"))" [ "$(code "$out")" = 200 ]
else
	echo "# no python3 or no group docker: recovery not tested"
fi
stop_orchd
check "orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]

e2e_done
