#!/bin/sh
# Attack: a container's volume turned into a link to /etc while it
# sleeps, against a wake that asks the parent's check where used early
# (runtimed/driver_docker.c, dk_use: asked with the image's inspect,
# while Docker answers the inspects, not after them).  The container
# exists (made by the first wake) and is stopped, so the wake's Docker
# calls are the image's inspect, the container's and the start: the
# parent's no must come before the start all the same, early or not.
#
# 1. a first wake makes and starts the container, served;
# 2. asleep, its orchd.conf volume swapped for a link to /etc: the wake
#    fails 503 naming /etc, and the container was not started (its
#    StartedAt is the first wake's, it does not run);
# 3. the directory back, the next wake is served by the same container;
# 4. ROUNDS rounds of 2 and 3 by orchctl wake, back to back: every
#    swapped wake refused and never started, every other served.
#
#	sh regress/e2e/attack_wakeuse.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
need_docker
ensure_user

IMAGE=orchd-test/busybox:latest
W=wu$$
ROUNDS=8
port_base 73
ports GW PW

S=$(mktemp -d /tmp/h42wk-e2e.XXXXXX)
chmod 0755 "$S"
V=$S/data
mkdir -m 0755 "$V"
echo "served-$$" >"$V/index.html"
chmod 0644 "$V/index.html"

wu_cleanup() {
	if [ -n "$ORCHD_PID" ] && kill -0 "$ORCHD_PID" 2>/dev/null; then
		kill -TERM "$ORCHD_PID" 2>/dev/null
		wait_gone "$ORCHD_PID" 15
	fi
	docker rm -f "$(cname "$W")" >/dev/null 2>&1
	rm -rf "$S"
	e2e_cleanup
}
trap wu_cleanup EXIT

mkdir -p "$T/log"
{
	conf_head
	cat <<CONF
listen on 127.0.0.1 port $GW
workload "$W" {
	host "$W.test"
	driver docker
	image "$IMAGE"
	network host
	command "httpd -f -p 127.0.0.1:$PW -h /data"
	port $PW
	idle timeout 1h
	volume "$V" "/data"
}
CONF
} >"$T/orchd.conf"

get() {	# get PATH: the body, then the status on a line of its own
	curl -s -m 60 -H "Host: $W.test" -w '\n%{http_code}' \
	    "http://127.0.0.1:$GW$1"
}
last() { printf '%s\n' "$1" | tail -n 1; }
state_of() {
	"$ORCHCTL" -s "$SOCK" show workloads 2>/dev/null |
	    awk -v n="$W" '$1 == n {print $2}'
}
asleep() { [ "$(state_of)" = asleep ]; }
says() { "$ORCHCTL" -s "$SOCK" show workload "$W" 2>&1 | grep -q -- "$1"; }
started_at() {
	docker container inspect -f '{{.State.StartedAt}}' "$(cname "$W")" \
	    2>/dev/null
}
runs() {
	[ "$(docker container inspect -f '{{.State.Running}}' \
	    "$(cname "$W")" 2>/dev/null)" = true ]
}
sleep_it() {
	"$ORCHCTL" -s "$SOCK" suspend "$W" >/dev/null 2>&1
	wait_for 30 asleep
}
has() { printf '%s' "$out" | grep -q -- "$1"; }
not() { ! "$@"; }
kept_stopped() { [ -n "$first" ] && ! runs; }
swap() { rm -rf "$V" && ln -s /etc "$V"; }
unswap() {
	rm -f "$V" && mkdir -m 0755 "$V" &&
	    echo "served-$$" >"$V/index.html" && chmod 0644 "$V/index.html"
}

start_orchd_or_exit

# -- 1
out=$(get /)
check "the first wake is served (got $(last "$out"))" \
    [ "$(last "$out")" = 200 ]
check "... by the container, with the volume's file" has "served-$$"
check "... it is asleep again after orchctl suspend" sleep_it
first=$(started_at)
check "... its container is kept, stopped" kept_stopped

# -- 2
swap
out=$(get /passwd)
check "its volume a link to /etc: the wake fails (got $(last "$out"))" \
    [ "$(last "$out")" = 503 ]
check "... and nothing of /etc is served" not has root:
check "... the reason names /etc" says /etc
check "... the container was not started" [ "$(started_at)" = "$first" ]
check "... and does not run" not runs

# -- 3
unswap
out=$(get /)
check "the directory back, the next wake is served (got $(last "$out"))" \
    [ "$(last "$out")" = 200 ]
check "... by the same container, started again" \
    [ "$(started_at)" != "$first" ]

# -- 4: by orchctl wake, which a crash loop's backoff does not hold
#    (each refusal counts as a failed wake)
refused=0
served=0
started=0
i=0
while [ $i -lt $ROUNDS ]; do
	i=$((i + 1))
	sleep_it || break
	before=$(started_at)
	swap
	if ! "$ORCHCTL" -s "$SOCK" wake "$W" >"$T/wake.out" 2>&1 &&
	    grep -q /etc "$T/wake.out"; then
		refused=$((refused + 1))
	fi
	[ "$(started_at)" != "$before" ] && started=$((started + 1))
	runs && started=$((started + 1))
	unswap
	if "$ORCHCTL" -s "$SOCK" wake "$W" >/dev/null 2>&1 &&
	    [ "$(last "$(get /)")" = 200 ]; then
		served=$((served + 1))
	fi
done
check "$ROUNDS rounds: every swapped wake refused ($refused)" \
    [ "$refused" -eq "$ROUNDS" ]
check "... none of them started the container ($started)" \
    [ "$started" -eq 0 ]
check "... every wake after it served ($served)" [ "$served" -eq "$ROUNDS" ]
check "orchd is still running" alive "$ORCHD_PID"

e2e_done
