#!/bin/sh
# kill -9 of each of orchd's six processes (the parent, the spawner, the
# store, the gateway, the reaper, runtimed) in the middle of a wake
# storm: 8 concurrent requests to each of three sleeping process
# workloads, slow to start, and to one docker workload.  Each time: a
# killed child ends orchd (status 1, the child named in the log, first);
# a killed parent takes its children with it; no workload process is
# left once orchd is gone; no workload was started twice; a restart
# finds a sound database (integrity_check), every workload in its true
# state and started by nobody, a running container adopted, none left
# running unadopted, and every workload served by the next request.
# Figures: how long orchd took to exit, the storm's answers, the
# restart's time, the restarted parent's RSS and descriptors.
#
# The docker workload is left out, saying so, where no Docker daemon
# answers.  Loopback only, every wait bounded; the containers made here
# are removed.
. "$(dirname "$0")/../e2e/lib.sh"
e2e_init "$1"
need_root
ensure_user

IMAGE=orchd-test/busybox:latest
TAG=ks$$
DOCK=${TAG}d
PROCS="${TAG}a ${TAG}b ${TAG}c"
DB=$T/db/orchd.db
V=$(mktemp -d /tmp/orchd-faults-vol.XXXXXX)
chmod 0755 "$V"
DOCKER=
have_docker && DOCKER=1

ks_cleanup() {
	if [ -n "$ORCHD_PID" ] && kill -0 "$ORCHD_PID" 2>/dev/null; then
		kill -TERM "$ORCHD_PID" 2>/dev/null
		wait_gone "$ORCHD_PID" 10
	fi
	[ -z "$DOCKER" ] || docker rm -f "$(cname "$DOCK")" >/dev/null 2>&1
	rm -rf "$V"
	e2e_cleanup
}
trap ks_cleanup EXIT

port_base 17
ports GW P_A P_B P_C P_D
mkdir -p "$T/log" "$V/www"
testhttp_bin
echo "hello from a container" >"$V/www/index.html"
# the container counts its starts in the volume, then serves
cat >"$V/run.sh" <<'EOF'
#!/bin/sh
echo start >>/v/starts
exec /bin/httpd -f -p "127.0.0.1:$PORT" -h /v/www
EOF
: >"$V/starts"
chmod 0666 "$V/starts"
chmod -R a+rX "$V"

conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
idle timeout 5m
wake timeout 30s

listen on 127.0.0.1 port $GW

CONF
set -- $P_A $P_B $P_C
for w in $PROCS; do
	: >"$T/$w.starts"
	chmod 0666 "$T/$w.starts"
	cat >>"$T/orchd.conf" <<CONF
workload "$w" {
	host "$w.test"
	command "$T/bin/testhttp serve $1 $T/$w.starts"
	env "TESTHTTP_DELAY=1500"
	port $1
}
CONF
	shift
done
if [ -n "$DOCKER" ]; then
	cat >>"$T/orchd.conf" <<CONF
workload "$DOCK" {
	host "$DOCK.test"
	driver docker
	image "$IMAGE"
	command "/bin/sh /v/run.sh"
	network host
	env "PORT=$P_D"
	volume "$V" "/v"
	port $P_D
	health path "/index.html"
	stop signal KILL
}
CONF
	ALL="$PROCS $DOCK"
else
	echo "# no Docker daemon answers: the docker workload left out"
	ALL=$PROCS
fi

ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
lines() { wc -l <"$1" | tr -d ' '; }
starts() {	# starts WORKLOAD: how many times it was started so far
	if [ "$1" = "$DOCK" ]; then
		lines "$V/starts"
	else
		lines "$T/$1.starts"
	fi
}
state() {
	ctl show workload "$1" 2>/dev/null | awk '$1 == "state:" { print $2 }'
}
state_is() { [ "$(state "$1")" = "$2" ]; }
code() {	# code WORKLOAD: the status of GET /, a line
	curl -s -m 40 -o /dev/null -w '%{http_code}\n' -H "Host: $1.test" \
	    "http://127.0.0.1:$GW/index.html"
}
# orphans: the workload processes of this run outside any container
# (a container runs on, to be adopted)
orphans() {
	for p in $(uid_procs); do
		grep -q docker "/proc/$p/cgroup" 2>/dev/null || echo "$p"
	done
}
no_orphan() { [ -z "$(orphans)" ]; }
# running_adopted: each container of this run that runs is the
# container of a workload orchd says is running
running_adopted() {
	[ -n "$DOCKER" ] || return 0
	r=$(docker ps -q --filter "name=^$(cname "$DOCK")\$")
	[ -z "$r" ] || state_is "$DOCK" running
}
snapshot() {	# snapshot: every workload's start count, in $T/starts.NAME
	for w in $ALL; do
		starts "$w" >"$T/starts.$w"
	done
}
# started_since WORKLOAD: its starts since the last snapshot
started_since() { echo $(($(starts "$1") - $(cat "$T/starts.$1"))); }

# storm: 8 requests at once to each workload, their codes in $T/storm
storm() {
	rm -f "$T"/c.*
	for w in $ALL; do
		for i in 1 2 3 4 5 6 7 8; do
			code "$w" >"$T/c.$w.$i" 2>/dev/null &
		done
	done
}
storm_done() {
	[ "$(cat "$T"/c.* 2>/dev/null | wc -l)" -ge \
	    $(($(echo $ALL | wc -w) * 8)) ]
}

# newlog: the log so far kept in $T/all.log, orchd.log begun again
newlog() {
	cat "$T/orchd.log" >>"$T/all.log" 2>/dev/null
	: >"$T/orchd.log"
}

# ready: orchd (re)started, every workload asleep but a running
# container, which is suspended, so that the storm wakes all
ready() {
	newlog
	t0=$(now_ms)
	start_orchd || return 1
	figure "restart_ms.$1" $(($(now_ms) - t0)) ms
	if [ -n "$DOCKER" ] && ! state_is "$DOCK" asleep; then
		ctl suspend "$DOCK" >/dev/null 2>&1
		wait_for 20 state_is "$DOCK" asleep
	fi
	for w in $ALL; do
		wait_for 10 state_is "$w" asleep || return 1
	done
}

for victim in parent spawner store gateway reaper runtime; do
	if ! ready "$victim"; then
		fail "$victim: orchd starts, every workload asleep"
		tail -n 20 "$T/orchd.log"
		stop_orchd
		continue
	fi
	snapshot
	tree=$(tree "$ORCHD_PID")
	storm
	# in the middle of the wakes: the processes take 1.5 s to listen
	sleep 0.7
	if [ "$victim" = parent ]; then
		pid=$ORCHD_PID
	else
		pid=$(child "$victim")
	fi
	t0=$(now_ms)
	kill -KILL "${pid:-0}"
	# shellcheck disable=SC2086
	check "$victim: orchd and its children end" wait_for 20 all_dead $tree
	ms=$(($(now_ms) - t0))
	figure "exit_ms.$victim" "$ms" ms
	orchd_status
	if [ "$victim" = parent ]; then
		check "$victim: killed (status $STATUS)" [ "$STATUS" -eq 137 ]
	else
		check "$victim: orchd exits 1 (status $STATUS)" \
		    [ "$STATUS" -eq 1 ]
		# the parent's word; a child may say first that its channel
		# to the victim broke, which names the victim too
		first=$(grep "lost child" "$T/orchd.log" | head -n 1)
		check "$victim: named first ($first)" sh -c \
		    "echo '$first' | grep -q 'lost child: $victim'"
	fi
	check "$victim: the storm's requests are answered" wait_for 45 storm_done
	figure "storm_200.$victim" "$(cat "$T"/c.* | grep -c '^200$')" answers
	figure "storm_other.$victim" "$(cat "$T"/c.* | grep -vc '^200$')" \
	    answers
	check "$victim: no workload process left" wait_for 10 no_orphan
	for p in $(orphans); do
		echo "# left: $(ps -o pid=,uid=,args= -p "$p")"
		kill -KILL "$p" 2>/dev/null
	done
	dup=
	total=0
	for w in $ALL; do
		n=$(started_since "$w")
		total=$((total + n))
		[ "$n" -le 1 ] || dup="$dup $w:$n"
	done
	figure "storm_starts.$victim" "$total" starts
	check "$victim: no workload started twice ($dup)" [ -z "$dup" ]
	# the container, if started, runs on: the restart adopts it
	[ -z "$DOCKER" ] ||
	    figure "container_running.$victim" "$(docker ps -q --filter \
	    "name=^$(cname "$DOCK")\$" | wc -l)" containers

	snapshot
	newlog
	t0=$(now_ms)
	if ! start_orchd; then
		fail "$victim: orchd starts again"
		tail -n 20 "$T/orchd.log"
		continue
	fi
	figure "restart_ms.after_$victim" $(($(now_ms) - t0)) ms
	check "$victim: PRAGMA integrity_check says ok" \
	    [ "$(db_sql "$DB" 'PRAGMA integrity_check')" = ok ]
	for w in $PROCS; do
		check "$victim: $w asleep after the restart" \
		    wait_for 10 state_is "$w" asleep
	done
	check "$victim: no container runs unadopted" \
	    wait_for 10 running_adopted
	sleep 1
	quiet=
	for w in $ALL; do
		n=$(started_since "$w")
		[ "$n" -eq 0 ] || quiet="$quiet $w:$n"
	done
	check "$victim: the restart starts nothing ($quiet)" [ -z "$quiet" ]
	bad=
	for w in $ALL; do
		c=$(code "$w")
		[ "$c" = 200 ] || bad="$bad $w:$c"
	done
	check "$victim: then every workload is served ($bad)" [ -z "$bad" ]
	figure "parent_rss.after_$victim" "$(rss_kb "$ORCHD_PID")" KiB
	figure "parent_fds.after_$victim" "$(fds "$ORCHD_PID")" descriptors
	check "$victim: the log says no fatal" \
	    sh -c "! grep -E 'fatal|lost child' '$T/orchd.log'"
	stop_orchd
	check "$victim: orchd stops cleanly (status $STATUS)" \
	    [ "$STATUS" -eq 0 ]
done
ORCHD_PID=
newlog
mv "$T/all.log" "$T/orchd.log"
e2e_done
