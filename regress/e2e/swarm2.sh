#!/bin/sh
# Two orchd instances against one swarm (the Docker daemon of this
# machine, a one-node swarm): their own gateways on their own ports,
# their own state directories, stores, sockets and instance names, one
# workload.  20 concurrent cold requests split between them cause one
# scale-up; each writes its last use into the label
# org.orchd.seen.INSTANCE; idle on one but busy on the other (repeated
# requests, then one slow request longer than the idle timeout) it is
# not suspended; idle on both it is scaled to 0; a change made by hand
# to the service survives a wake; a new definition replaced in place
# by one instance (orchctl restart) just after a use at the other is
# scaled to 0 then updated, both labels kept; one killed (kill -9, its
# whole tree), the other serves and suspends alone, the dead one's label
# no hold on it.
#
# The swarm as in swarm.sh: initialised if need be and left so; skipped,
# saying why, where it cannot start.  Loopback only, network host, every
# wait bounded; the service made here is removed.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
need_docker
ensure_user
need_swarm init

IMAGE=orchd-test/busybox:latest
TAG=sa$$
W=${TAG}w
A=a-$TAG
B=b-$TAG
IDLE=6
EVENTS_PID=
B_PID=

sw2_cleanup() {
	if [ "$FAILED" -gt 0 ]; then
		echo "# what the two instances said of the service:"
		grep -hE "seen|suspend|scaled|used it|not ours" \
		    "$T/orchd.log" "$T/b/orchd.log" 2>/dev/null | tail -n 40
	fi
	if [ -n "$B_PID" ] && kill -0 "$B_PID" 2>/dev/null; then
		kill -TERM "$B_PID" 2>/dev/null
		wait_gone "$B_PID" 10
	fi
	[ -z "$EVENTS_PID" ] || kill "$EVENTS_PID" 2>/dev/null
	docker service rm "orchd-$W" >/dev/null 2>&1
	e2e_cleanup
}
trap sw2_cleanup EXIT

port_base 13
ports GWA GWB P
mkdir -p "$T/log" "$T/b/log"

# conf DIR GATEWAY-PORT INSTANCE [LINE]: an orchd with the one workload,
# LINE added to its block.  Its
# task serves index.html, and a CGI that answers after 15 s, its header
# lines ended by CRLF as gatewayd wants them.  CMD is the command as
# orchd.conf writes it: \" and \\ there are the file's escapes.
CMD='/bin/sh -c '\''mkdir -p /tmp/w/cgi-bin && cd /tmp/w && echo hello >index.html && echo \"#!/bin/sh\" >cgi-bin/slow && echo sleep 15 >>cgi-bin/slow && echo \"printf \\\"Content-Type: text/plain\\r\\n\\r\\nslow\\\"\" >>cgi-bin/slow && chmod 755 cgi-bin/slow && exec httpd -f -p 127.0.0.1:'"$P"' -h /tmp/w'\'
conf() {
	# the second instance's uids are apart from the first's
	_low=$E2E_UID_LOW
	[ "$1" = "$T" ] || _low=$E2E_UID_LOW2
	conf_head | sed "s|$T/|$1/|; /^instance name /d; /^workload uids /d"
	echo "workload uids \"$_low-$((_low + 15))\""
	cat <<CONF
idle timeout ${IDLE}s
wake timeout 60s
reaper interval 1s
instance name "$3"

listen on 127.0.0.1 port $2

workload "$W" {
	host "w.test"
	driver swarm
	image "$IMAGE"
	command "$CMD"
	network host
	port $P
	health path "/index.html"
	stop signal KILL
	$4
}
CONF
}
conf "$T" "$GWA" "$A" >"$T/orchd.conf"
conf "$T/b" "$GWB" "$B" >"$T/b/orchd.conf"
B_SOCK=$T/b/orchd.sock

quiet() { "$@" >/dev/null 2>&1; }
code() {	# code GATEWAY-PORT [PATH]: the status of one request
	curl -s -m 60 -o /dev/null -w '%{http_code}' -H "Host: w.test" \
	    "http://127.0.0.1:$1${2:-/index.html}"
}
state() {
	"$ORCHCTL" -s "$2" show workload "$1" 2>/dev/null |
	    awk '$1 == "state:" { print $2 }'
}
state_is() { [ "$(state "$1" "$3")" = "$2" ]; }
replicas() {
	docker service inspect -f '{{.Spec.Mode.Replicated.Replicas}}' \
	    "orchd-$W" 2>/dev/null
}
replicas_are() { [ "$(replicas)" = "$1" ]; }
seen() {	# seen INSTANCE: its label on the service
	docker service inspect -f \
	    "{{index .Spec.Labels \"org.orchd.seen.$1\"}}" "orchd-$W" \
	    2>/dev/null
}
has_seen() { [ -n "$(seen "$1")" ] && [ "$(seen "$1")" != "<no value>" ]; }
seen_within() {	# seen_within INSTANCE SECONDS: its label that young
	_s=$(seen "$1")
	case "$_s" in ''|*[!0-9]*) return 1 ;; esac
	[ $(($(date +%s) - _s)) -le "$2" ]
}
svcenv() {
	docker service inspect -f \
	    '{{join .Spec.TaskTemplate.ContainerSpec.Env ","}}' "orchd-$W" \
	    2>/dev/null
}
env_has() {	# env_has NAME=VALUE: in the service's spec
	case ",$(svcenv)," in *",$1,"*) return 0 ;; esac
	return 1
}

check "orchd -nv prints the instance name" sh -c "\"$ORCHD\" -nv -f \
    \"$T/orchd.conf\" 2>/dev/null | grep -qx 'instance name \"$A\"'"

# scale-ups of the service, from the daemon's service events as they
# come: its create, and each update whose replicas.new is not 0 (a label
# written is an update without replicas.new)
docker events --filter type=service --format \
    '{{.Action}} {{.Actor.Attributes.name}} {{index .Actor.Attributes "replicas.new"}}' \
    >"$T/events" 2>/dev/null &
EVENTS_PID=$!
ups() {
	sleep 0.5
	awk -v n="orchd-$W" '$2 == n && ($1 == "create" ||
	    ($1 == "update" && $3 != "" && $3 != "0"))' "$T/events" | wc -l
}
downs() {	# scales to 0
	sleep 0.5
	awk -v n="orchd-$W" '$2 == n && $1 == "update" && $3 == "0"' \
	    "$T/events" | wc -l
}

start_orchd_or_exit -v
"$ORCHD" -d -v -f "$T/b/orchd.conf" >>"$T/b/orchd.log" 2>&1 &
B_PID=$!
check "a second orchd starts" wait_for 20 "$ORCHCTL" -s "$B_SOCK" \
    show summary

# 1. 20 concurrent cold requests, odd ones to the second: one scale-up
i=0
while [ $i -lt 20 ]; do
	gw=$GWA
	[ $((i % 2)) -eq 1 ] && gw=$GWB
	code "$gw" >"$T/c.$i" &
	i=$((i + 1))
done
wait_for 70 sh -c "[ \$(cat $T/c.* 2>/dev/null | wc -c) -ge 60 ]"
served=$(cat "$T"/c.* | grep -o 200 | wc -l)
check "20 cold requests split over two gateways: 20 served (got $served)" \
    [ "$served" -eq 20 ]
n=$(ups)
check "one scale-up between them (service events: $n)" [ "$n" -eq 1 ]
check "one task made for them" [ "$(docker service ps -q "orchd-$W" |
    wc -l)" -eq 1 ]
check "running at the first" wait_for 10 state_is "$W" running "$SOCK"
check "running at the second" wait_for 10 state_is "$W" running "$B_SOCK"
check "label org.orchd.seen.$A written" wait_for 10 has_seen "$A"
check "label org.orchd.seen.$B written" wait_for 10 has_seen "$B"
task=$(docker service ps -q "orchd-$W" | head -n 1)

# 2. idle at the first, used at the second every second for 3 idle
# timeouts: it runs on, at both
kept=1
i=0
while [ $i -lt $((3 * IDLE)) ]; do
	[ "$(code "$GWB")" = 200 ] || kept=0
	replicas_are 1 || kept=0
	sleep 1
	i=$((i + 1))
done
check "busy at the second, idle at the first: not suspended" [ "$kept" = 1 ]
check "the first is running still" state_is "$W" running "$SOCK"
check "the first said why" grep -q "idle here, but instance $B used it" \
    "$T/orchd.log"
check "the label follows the use ($(seen "$B"), now $(date +%s))" \
    [ $(($(date +%s) - $(seen "$B"))) -lt "$IDLE" ]
check "the task is the same: labels written do not redeploy it" \
    [ "$(docker service ps -q "orchd-$W" | head -n 1)" = "$task" ]

# ... and one slow request at the second, longer than twice the idle
# timeout (the first's label is older than that by then)
code "$GWB" /cgi-bin/slow >"$T/slow" &
slow=$!
kept=1
i=0
while [ $i -lt $((2 * IDLE)) ]; do
	sleep 1
	replicas_are 1 || kept=0
	i=$((i + 1))
done
wait_gone "$slow" 60
c=$(cat "$T/slow")
check "a slow request at the second is answered ($c)" [ "$c" = 200 ]
check "while it lasted, not suspended" [ "$kept" = 1 ]

# ... and a new definition (env) at both, which the first replaces in
# place (orchctl restart) just after a use at the second: a
# replacement's scale to 0 is no suspend for idleness, which the
# second's use would hold up; and the new spec keeps both labels
conf "$T" "$GWA" "$A" 'env "V=2"' >"$T/orchd.conf"
conf "$T/b" "$GWB" "$B" 'env "V=2"' >"$T/b/orchd.conf"
check "the second reloads a new definition" \
    quiet "$ORCHCTL" -s "$B_SOCK" reload
check "the first too" quiet "$ORCHCTL" -s "$SOCK" reload
c=$(code "$GWB")
check "used at the second ($c)" [ "$c" = 200 ]
check "its label says so" wait_for 10 seen_within "$B" 2
bseen=$(seen "$B")
age=$(($(date +%s) - bseen))
down=$(downs)
out=$("$ORCHCTL" -s "$SOCK" restart "$W" 2>&1)
check "orchctl restart at the first, the second's use ${age}s old ($out)" \
    [ "$out" = "$W is running again" ]
check "... its service scaled to 0 first ($down, then $(downs))" \
    [ "$(downs)" -gt "$down" ]
check "... then updated: it has the new env ($(svcenv))" env_has V=2
check "... the second's label kept ($(seen "$B"), was $bseen)" \
    [ "$(seen "$B")" -ge "$bseen" ]
check "... the first's label there" has_seen "$A"
check "... its history says replaced" sh -c "\"$ORCHCTL\" -s \"$SOCK\" \
    show workload $W | grep -q 'suspending  *replaced  *orchctl restart'"
check "... one replica" replicas_are 1

# 3. idle at both: scaled to 0
check "idle at both: scaled to 0 (within 40 s)" wait_for 40 replicas_are 0
check "asleep at the first" wait_for 20 state_is "$W" asleep "$SOCK"
check "asleep at the second" wait_for 20 state_is "$W" asleep "$B_SOCK"

# 4. a change made by hand to the asleep service is kept over a wake
quiet docker service update -d --env-add ORCHD_HANDMADE=1 "orchd-$W"
c=$(code "$GWA")
check "woken after a change by hand ($c)" [ "$c" = 200 ]
check "the change by hand is kept" sh -c "docker service inspect -f \
    '{{json .Spec.TaskTemplate.ContainerSpec.Env}}' orchd-$W |
    grep -q ORCHD_HANDMADE=1"
check "one replica" replicas_are 1

# 5. the second used it last, then dies with its whole tree: the first
# serves, and suspends alone once that use is the idle timeout old
last=$(seen "$B")
c=$(code "$GWB")
check "used at the second ($c)" [ "$c" = 200 ]
check "its label says so" wait_for 10 sh -c "[ \"\$(docker service \
    inspect -f '{{index .Spec.Labels \"org.orchd.seen.$B\"}}' \
    orchd-$W)\" -gt $last ]"
pids=$(tree "$B_PID")
kill -KILL $pids 2>/dev/null
check "the second is gone" wait_gone "$B_PID" 10
wait "$B_PID" 2>/dev/null
B_PID=
c=$(code "$GWA")
check "the first serves alone ($c)" [ "$c" = 200 ]
check "and suspends alone (within 40 s)" wait_for 40 replicas_are 0
check "asleep at the first" wait_for 20 state_is "$W" asleep "$SOCK"
check "the dead one's label is there, an old time" has_seen "$B"
c=$(code "$GWA")
check "woken again by the first alone ($c)" [ "$c" = 200 ]
check "one replica" replicas_are 1

stop_orchd
check "orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]
for f in "$T/orchd.log" "$T/b/orchd.log"; do
	grep -E 'AddressSanitizer|runtime error:' "$f" >/dev/null &&
	    fail "sanitizer report in $f"
done

e2e_done
