#!/bin/sh
# "docker labels on" against a real Docker daemon: a container made by
# `docker run` with org.orchd.host and org.orchd.port becomes a routed
# workload of source label; idle, orchd stops it; a request starts the
# same container again (a start, never a create) and it answers;
# `docker rm -f` makes the workload go, and orchd never created nor
# removed a container of it; a container recreated while the parent's
# queue of changes is busy (the reaper stopped) is a workload again; one
# frozen (docker pause) when "docker labels off" comes is unpaused and
# left running; with "docker labels off" a labelled container is left
# alone; 70 labelled containers found at start, more
# than the API's 64 queued changes, are all workloads.  The containers are labelled for this run's
# instance (org.orchd.instance), so that another run at once leaves them
# alone.  Loopback only, network host, every wait bounded; the
# containers made here are removed.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
need_docker
ensure_user

IMAGE=orchd-test/busybox:latest
TAG=h34lbl$$
WEB=${TAG}web
OFF=${TAG}off
FRZ=${TAG}frz
MANY=70
EVENTS_PID=

labels_cleanup() {
	if [ -n "$ORCHD_PID" ] && kill -0 "$ORCHD_PID" 2>/dev/null; then
		kill -TERM "$ORCHD_PID" 2>/dev/null
		wait_gone "$ORCHD_PID" 10
	fi
	[ -z "$EVENTS_PID" ] || kill "$EVENTS_PID" 2>/dev/null
	docker rm -f "$WEB" "$OFF" "$FRZ" "${TAG}q" >/dev/null 2>&1
	i=0
	while [ $i -lt $MANY ]; do
		echo "${TAG}m$i"
		i=$((i + 1))
	done | xargs docker rm -f >/dev/null 2>&1
	e2e_cleanup
}
trap labels_cleanup EXIT

port_base 11
ports GW P_WEB P_OFF P_FRZ

# write_conf on|off [SUSPEND]
write_conf() {
	conf_head >"$T/orchd.conf"
	cat >>"$T/orchd.conf" <<CONF
suspend ${2:-stop}
idle timeout 5m
wake timeout 20s
reaper interval 1s
docker labels $1
api allow network host

listen on 127.0.0.1 port $GW
CONF
}
write_conf on
mkdir -p "$T/log"

# labelled NAME HOST PORT [ARGS...]: docker run, busybox httpd on
# 127.0.0.1:PORT of the host's network, as uid 4242
labelled() {
	n=$1 h=$2 p=$3
	shift 3
	docker run -d --name "$n" --network host --user 4242:4242 \
	    --label "org.orchd.instance=$E2E_INSTANCE" \
	    --label "org.orchd.host=$h" --label "org.orchd.port=$p" \
	    --label org.orchd.idle-timeout=3s "$@" \
	    "$IMAGE" /bin/httpd -f -p "127.0.0.1:$p" -h / >/dev/null
}

get() {
	curl -s -m 30 -o "$T/body" -w '%{http_code}\n' -H "Host: $1" \
	    "http://127.0.0.1:$GW/bin/echo"
}
show() { "$ORCHCTL" -s "$SOCK" show workload "$1" 2>/dev/null; }
field() { show "$1" | awk -v k="$2:" '$1 == k { print $2 }'; }
is_workload() { show "$1" >/dev/null; }
gone() { ! show "$1" >/dev/null; }
running() {
	[ "$(docker inspect -f '{{.State.Running}}' "$1" 2>/dev/null)" = true ]
}
stopped() {
	[ "$(docker inspect -f '{{.State.Running}}' "$1" 2>/dev/null)" = false ]
}
cid() { docker inspect -f '{{.Id}}' "$1" 2>/dev/null; }

# every event of this run's labelled containers, as they come
docker events --filter "label=org.orchd.instance=$E2E_INSTANCE" \
    --filter type=container \
    --format '{{.Action}} {{.Actor.Attributes.name}}' >"$T/events" \
    2>/dev/null &
EVENTS_PID=$!
sleep 0.5
count() { sleep 0.2; grep -c "^$1 $2\$" "$T/events"; }

start_orchd_or_exit

# 1. a container made by docker run becomes a routed workload
labelled "$WEB" "web$$.test" "$P_WEB"
id0=$(cid "$WEB")
check "a labelled container becomes a workload" wait_for 20 is_workload "$WEB"
check "... of source label" [ "$(field "$WEB" source)" = label ]
check "... its idle timeout from org.orchd.idle-timeout" \
    sh -c "'$ORCHCTL' -s '$SOCK' show workload '$WEB' | grep -q 'idle timeout:.*3s'"
check "... running, adopted as it was" wait_for 20 \
    sh -c "'$ORCHCTL' -s '$SOCK' show workload '$WEB' | grep -q 'state: *running'"
code=$(get "web$$.test")
check "... routed: busybox httpd serves /bin/echo through the gateway ($code)" \
    [ "$code" = 200 ]

# 2. idle: orchd stops it (kept)
check "idle, orchd stops it" wait_for 30 stopped "$WEB"
check "... the container is kept, the same one" [ "$(cid "$WEB")" = "$id0" ]
check "... the workload is asleep" wait_for 10 \
    sh -c "'$ORCHCTL' -s '$SOCK' show workload '$WEB' | grep -q 'state: *asleep'"

# 3. a request: orchd starts the same container, and it answers
code=$(get "web$$.test")
check "a request wakes it and is answered ($code)" [ "$code" = 200 ]
check "... started, not created: the same container" \
    [ "$(cid "$WEB")" = "$id0" ] 
check "... it runs" running "$WEB"
check "... two starts in all: docker run's and orchd's" \
    [ "$(count start "$WEB")" = 2 ]
check "... one create in all: docker run's" [ "$(count create "$WEB")" = 1 ]
check "... and no destroy" [ "$(count destroy "$WEB")" = 0 ]

# 4. docker rm -f: the workload goes
docker rm -f "$WEB" >/dev/null
check "docker rm -f: the workload goes" wait_for 20 gone "$WEB"
code=$(get "web$$.test")
check "... its host is routed no more ($code)" [ "$code" != 200 ]
check "... orchd made no container of that name again" \
    sh -c "! docker inspect '$WEB' >/dev/null 2>&1"
check "... one create in all" [ "$(count create "$WEB")" = 1 ]
check "... orchd logged it gone" \
    grep -q "container $WEB is gone, and its workload" "$T/orchd.log"

# 4b. a container recreated while the parent's queue of changes is busy
# (the reaper, stopped, holds the generation of another container's
# change): the old one's drop and the new one's create wait in turn, and
# the drop must not take the facts the create came with
labelled "$WEB" "web$$.test" "$P_WEB" --label org.orchd.idle-timeout=10m
check "made again: a workload" wait_for 20 is_workload "$WEB"
n0=$(wc -l <"$T/orchd.log")
since() { tail -n "+$((n0 + 1))" "$T/orchd.log"; }
reaper=$(child reaper)
kill -STOP "$reaper"
labelled "${TAG}q" "q$$.test" "$P_OFF"
sleep 1
docker rm -f "$WEB" >/dev/null
labelled "$WEB" "web$$.test" "$P_WEB" --label org.orchd.idle-timeout=10m
sleep 2
kill -CONT "$reaper"
check "recreated while the queue was busy: still a workload" \
    wait_for 20 sh -c "grep -c 'container $WEB is a workload' \
    '$T/orchd.log' | grep -qx 3"
adopted() { since | grep -q "$WEB: asleep -> running (restored: adopted"; }
check "... the new container left running and adopted" wait_for 20 adopted
check "... not stopped when the old one's workload went" \
    sh -c "! tail -n '+$((n0 + 1))' '$T/orchd.log' |
    grep -q '$WEB: running -> suspending (removed)'"
code=$(get "web$$.test")
check "... routed to the new container ($code)" [ "$code" = 200 ]
check "... never refused for want of its container's facts" \
    sh -c "! grep -q 'container $WEB is not a workload' '$T/orchd.log'"
docker rm -f "$WEB" "${TAG}q" >/dev/null
check "... and gone with it" wait_for 20 gone "$WEB"

# 4b. frozen (docker pause) when its workload goes: left running, unpaused
write_conf on freeze
kill -HUP "$ORCHD_PID"
labelled "$FRZ" "frz$$.test" "$P_FRZ"
check "a labelled container to freeze is a workload" wait_for 20 \
    is_workload "$FRZ"
code=$(get "frz$$.test")
check "... routed ($code)" [ "$code" = 200 ]
paused() {
	[ "$(docker inspect -f '{{.State.Paused}}' "$1" 2>/dev/null)" = "$2" ]
}
check "... idle, with suspend freeze: paused" wait_for 30 paused "$FRZ" true
check "... frozen" [ "$(field "$FRZ" state)" = frozen ]

# 5. docker labels off: a labelled container is left alone
write_conf off
kill -HUP "$ORCHD_PID"
check "docker labels off: the frozen one's workload goes" wait_for 20 \
    gone "$FRZ"
check "... its container is unpaused" wait_for 20 paused "$FRZ" false
check "... and left running: no stop asked" sh -c "sleep 1;
    [ \"\$(docker inspect -f '{{.State.Running}}' '$FRZ')\" = true ] &&
    ! grep -q '$FRZ: frozen -> suspending' '$T/orchd.log'"
check "... the log says it was unpaused" grep -q \
    "workload $FRZ: its container, left running, unpaused" "$T/orchd.log"
sleep 2
labelled "$OFF" "off$$.test" "$P_OFF"
sleep 3
check "docker labels off: a labelled container is no workload" gone "$OFF"
code=$(get "off$$.test")
check "... and is not routed ($code)" [ "$code" != 200 ]
check "orchd is still running" alive "$ORCHD_PID"

# 6. more labelled containers at start than the API may queue changes
# (64): every one is a workload
stop_orchd
check "orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]
write_conf on
i=0
while [ $i -lt $MANY ]; do
	docker create --name "${TAG}m$i" --network host --user 4242:4242 \
	    --label "org.orchd.instance=$E2E_INSTANCE" \
	    --label "org.orchd.host=m$i.$$.test" \
	    --label "org.orchd.port=$P_OFF" "$IMAGE" /bin/true >/dev/null
	i=$((i + 1))
done
many() {
	[ "$("$ORCHCTL" -s "$SOCK" show workloads 2>/dev/null |
	    grep -c "^${TAG}m[0-9]")" -eq "$MANY" ]
}
start_orchd_or_exit
check "$MANY labelled containers at start: each a workload" \
    wait_for 60 many

e2e_done
