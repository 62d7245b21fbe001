#!/bin/sh
# A request during a swarm workload's suspend, with two orchd instances
# sharing the swarm (this machine's daemon, a one-node swarm, as
# swarm2.sh), its task slow to stop: it ignores SIGTERM, so it dies at
# its stop timeout's SIGKILL.
#
# 1. The race of issue 30's defect 1: the first instance suspends it;
#    the second sees the service scaled to 0 and, asked, scales it up
#    again while the first still waits for the old task to end.  A
#    request held at the first meanwhile is served once the service
#    runs (200, within the wake timeout), and the first's suspend ends
#    at once: it never waits on the second's fresh task until its stop
#    deadline (stop timeout and 30 s) while its requests get 504 ("no
#    answer to its wake").
# 2. While the first suspends it, 20 requests, one every 0.1 s
#    alternating between the two gateways, are served (200, never 504),
#    by the task or, held, by a fresh wake.
# 3. Asleep at both, 20 cold requests split over the two gateways cause
#    exactly one scale-up.
#
# Figures: the held requests' answers and longest time, the scale-ups.
# The swarm initialised if need be and left so (swarm.sh says why); the
# service made here is removed.  Loopback only, network host, every
# wait bounded.
. "$(dirname "$0")/../e2e/lib.sh"
e2e_init "$1"
need_root
need_docker
ensure_user
need_swarm init

IMAGE=orchd-test/busybox:latest
TAG=ss$$
W=${TAG}w
A=a-$TAG
B=b-$TAG
B_SOCK=$T/b/orchd.sock
EVENTS_PID=
B_PID=

ss_cleanup() {
	if [ -n "$B_PID" ] && kill -0 "$B_PID" 2>/dev/null; then
		kill -TERM "$B_PID" 2>/dev/null
		wait_gone "$B_PID" 10
	fi
	[ -z "$EVENTS_PID" ] || kill "$EVENTS_PID" 2>/dev/null
	docker service rm "orchd-$W" >/dev/null 2>&1
	e2e_cleanup
}
trap ss_cleanup EXIT

port_base 41
ports GWA GWB P
mkdir -p "$T/log" "$T/b/log"

# conf DIR GATEWAY-PORT INSTANCE: an orchd with the one workload, whose
# task serves a page with SIGTERM ignored (passed on by tini), so that
# it stops at its stop timeout's SIGKILL
conf() {
	_low=$E2E_UID_LOW
	[ "$1" = "$T" ] || _low=$E2E_UID_LOW2
	conf_head | sed "s|$T/|$1/|; /^instance name /d; /^workload uids /d"
	echo "workload uids \"$_low-$((_low + 15))\""
	cat <<CONF
idle timeout 5m
wake timeout 20s
instance name "$3"

listen on 127.0.0.1 port $2

workload "$W" {
	host "w.test"
	driver swarm
	image "$IMAGE"
	command "/bin/sh -c 'trap \"\" TERM; mkdir -p /tmp/w && echo hello >/tmp/w/index.html && exec httpd -f -p 127.0.0.1:$P -h /tmp/w'"
	network host
	port $P
	health path "/index.html"
	stop timeout 10s
}
CONF
}
conf "$T" "$GWA" "$A" >"$T/orchd.conf"
conf "$T/b" "$GWB" "$B" >"$T/b/orchd.conf"

code() {	# code GATEWAY-PORT: status and time of one request
	curl -s -m 40 -o /dev/null -w '%{http_code} %{time_total}\n' \
	    -H "Host: w.test" "http://127.0.0.1:$1/index.html"
}
state_is() {	# state_is STATE SOCKET
	[ "$("$ORCHCTL" -s "$2" show workload "$W" 2>/dev/null |
	    awk '$1 == "state:" { print $2 }')" = "$1" ]
}
replicas_are() {
	[ "$(docker service inspect -f \
	    '{{.Spec.Mode.Replicated.Replicas}}' "orchd-$W" 2>/dev/null)" = "$1" ]
}
# the service's scale-ups so far, from its events (swarm2.sh says how)
docker events --filter type=service --format \
    '{{.Action}} {{.Actor.Attributes.name}} {{index .Actor.Attributes "replicas.new"}}' \
    >"$T/events" 2>/dev/null &
EVENTS_PID=$!
ups() {
	sleep 0.5
	awk -v n="orchd-$W" '$2 == n && ($1 == "create" ||
	    ($1 == "update" && $3 != "" && $3 != "0"))' "$T/events" | wc -l
}
# split N [GAP]: N requests, GAP seconds apart (none: at once), odd
# ones to the second gateway; their "CODE TIME" lines in $T/r.*
split() {
	rm -f "$T"/r.*
	i=0
	while [ $i -lt "$1" ]; do
		gw=$GWA
		[ $((i % 2)) -eq 1 ] && gw=$GWB
		code "$gw" >"$T/r.$i" &
		[ -z "${2:-}" ] || sleep "$2"
		i=$((i + 1))
	done
}
answered() { [ "$(cat "$T"/r.* 2>/dev/null | wc -l)" -ge "$1" ]; }
codes() { cat "$T"/r.* | awk '{ print $1 }' | sort | uniq -c | tr -s ' \n' ' '; }
served() { cat "$T"/r.* | grep -c '^200 '; }

start_orchd_or_exit
"$ORCHD" -d -f "$T/b/orchd.conf" >>"$T/b/orchd.log" 2>&1 &
B_PID=$!
check "a second orchd starts" wait_for 20 "$ORCHCTL" -s "$B_SOCK" \
    show summary

# 1. the second scales it up while the first still stops it
c=$(code "$GWA")
check "a request wakes it ($c)" [ "${c%% *}" = 200 ]
check "running at the second" wait_for 20 state_is running "$B_SOCK"
t0=$(date +%s)
"$ORCHCTL" -s "$SOCK" suspend "$W" >/dev/null 2>&1 &
sp=$!
check "scaled to 0 by the first" wait_for 10 replicas_are 0
check "... seen asleep at the second" wait_for 10 state_is asleep "$B_SOCK"
check "... its old task still stops" alive "$sp"
rm -f "$T"/r.*
code "$GWB" >"$T/r.b" &
code "$GWA" >"$T/r.a" &
check "the race's two requests answered (within 40 s)" wait_for 40 answered 2
figure race_held_s "$(cut -d' ' -f2 "$T/r.a")" s
check "... the one held at the first 200 ($(cat "$T/r.a"))" \
    [ "$(cut -d' ' -f1 "$T/r.a")" = 200 ]
check "... the one at the second 200 ($(cat "$T/r.b"))" \
    [ "$(cut -d' ' -f1 "$T/r.b")" = 200 ]
check "the first's suspend ended" wait_for 30 dead "$sp"
wait "$sp" 2>/dev/null
figure race_suspend_s "$(($(date +%s) - t0))" s
check "... within 20 s, not at its stop deadline" \
    [ $(($(date +%s) - t0)) -le 20 ]
check "running at the first" wait_for 20 state_is running "$SOCK"
check "running at the second" wait_for 20 state_is running "$B_SOCK"

# 2. requests at both gateways while the first suspends
sleep 1
"$ORCHCTL" -s "$SOCK" suspend "$W" >/dev/null 2>&1 &
sp=$!
split 20 0.1
check "the suspend ends (within 40 s)" wait_for 40 dead "$sp"
wait "$sp" 2>/dev/null
check "20 requests during the suspend answered (within 45 s)" \
    wait_for 45 answered 20
figure suspend_served "$(served)" requests
figure suspend_held_max_s "$(cat "$T"/r.* | sort -k2 -n | tail -n 1 |
    cut -d' ' -f2)" s
check "... all 200, none 504 ($(codes))" [ "$(served)" -eq 20 ]

# 3. asleep at both, then 20 cold requests over the two: one scale-up
"$ORCHCTL" -s "$SOCK" suspend "$W" >/dev/null 2>&1
check "scaled to 0" wait_for 40 replicas_are 0
check "asleep at the first" wait_for 20 state_is asleep "$SOCK"
check "asleep at the second" wait_for 20 state_is asleep "$B_SOCK"
n0=$(ups)
split 20
check "20 cold requests answered (within 45 s)" wait_for 45 answered 20
n=$(($(ups) - n0))
figure cold_scale_ups "$n" scale-ups
figure cold_served "$(served)" requests
check "... all 200 ($(codes))" [ "$(served)" -eq 20 ]
check "... one scale-up between the two gateways ($n)" [ "$n" -eq 1 ]

stop_orchd
check "orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]
grep -E 'AddressSanitizer|runtime error:' "$T/b/orchd.log" >/dev/null &&
    fail "sanitizer report in the second orchd's log"
ORCHD_PID=
e2e_done
