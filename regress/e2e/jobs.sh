#!/bin/sh
# One-shot jobs ("run once"), process workloads: a migration that writes
# a file and exits 0, the app that depends on it started only after,
# with the file there; the next wake does not run it again, nor does a
# restart of orchd (the store remembers), but a change of its definition
# does; "run once every wake" runs at each wake; a migration that
# depends on the database runs once that answers; the API's jobs, with
# no host or port, read back from the store; orchctl wake of a job
# returns when it is done or failed; a job that exits 3 fails the wake:
# the app's held request gets 503 naming the job and its exit status,
# and orchctl logs shows what it printed; the history records each run.
# orchd -n: run timeout without run once, a job with a host, kept warm.
# With Docker: a container job's exit status, 0 and 4, and one on a
# network of its own, nothing published.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports GW API P_APP P_APP2 P_APP3 P_DAPP P_AAPP P_DB P_APP4
KEY=e2e-key-$$-0123456789abcdef
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
mkdir -p "$T/log" "$T/bin" "$T/run"
chmod 0777 "$T/run"
cp "$BUILD/regress/testhttp" "$T/bin/testhttp"
# the migration: a second's work, then the table it makes
cat >"$T/bin/migrate.sh" <<EOF
#!/bin/sh
echo "migrate \$MIGRATION" >>"$T/run/order"
sleep 1
echo "table" >"$T/run/table"
echo "migrated"
exit 0
EOF
cat >"$T/bin/app.sh" <<EOF
#!/bin/sh
if [ -e "$T/run/table" ]; then
	echo "app start, table there" >>"$T/run/order"
else
	echo "app start, no table" >>"$T/run/order"
fi
exec $T/bin/testhttp serve \$1
EOF
cat >"$T/bin/seed.sh" <<EOF
#!/bin/sh
echo seed >>"$T/run/seeds"
EOF
# a migration that needs the database up
cat >"$T/bin/migdb.sh" <<EOF
#!/bin/sh
if /usr/bin/curl -s -m 2 -o /dev/null http://127.0.0.1:$P_DB/; then
	echo "migdb, db up" >>"$T/run/order2"
	exit 0
fi
echo "migdb, db down" >>"$T/run/order2"
exit 1
EOF
cat >"$T/bin/bad.sh" <<EOF
#!/bin/sh
echo "error: relation users already exists"
exit 3
EOF
chmod 0755 "$T/bin" "$T/bin/"*
: >"$T/run/order"
: >"$T/run/seeds"
: >"$T/run/order2"
chmod 0666 "$T/run/order" "$T/run/seeds" "$T/run/order2"

write_conf() {	# write_conf MIGRATION
	conf_head >"$T/orchd.conf"
	cat >>"$T/orchd.conf" <<CONF
reaper interval 1s
wake timeout 10s
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
api allow process

workload "migrate" {
	command "$T/bin/migrate.sh"
	env "MIGRATION=$1"
	run once
}
workload "app" {
	host "app.test"
	depends on "migrate"
	command "$T/bin/app.sh $P_APP"
	port $P_APP
}
workload "seed" {
	command "$T/bin/seed.sh"
	run once every wake
	run timeout 5s
}
workload "app2" {
	host "app2.test"
	depends on "seed"
	command "$T/bin/testhttp serve $P_APP2"
	port $P_APP2
}
workload "bad" {
	command "$T/bin/bad.sh"
	run once
}
workload "db" {
	host "db.test"
	command "$T/bin/testhttp serve $P_DB"
	port $P_DB
}
workload "migdb" {
	command "$T/bin/migdb.sh"
	depends on "db"
	run once
}
workload "app4" {
	host "app4.test"
	depends on "migdb"
	depends on "db"
	command "$T/bin/testhttp serve $P_APP4"
	port $P_APP4
}
workload "app3" {
	host "app3.test"
	depends on "bad"
	command "$T/bin/testhttp serve $P_APP3"
	port $P_APP3
}
CONF
}
write_conf v1

ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
is_state() { ctl show workloads | grep -Eq "^$1 +$2 "; }
lines() { wc -l <"$1" | tr -d ' '; }
code() { curl -s -m 30 -o "$T/body" -w '%{http_code}' "$@"; }
get() { code -H "Host: $1" "http://127.0.0.1:$GW/"; }
migrations() { grep -c '^migrate' "$T/run/order"; }

check "orchd -n takes run once, run once every wake, run timeout" \
    "$ORCHD" -n -f "$T/orchd.conf"
"$ORCHD" -nv -f "$T/orchd.conf" >"$T/nv.out" 2>&1
check "orchd -nv prints them back" sh -c "grep -q '^	run once\$' $T/nv.out &&
    grep -q '^	run once every wake\$' $T/nv.out &&
    grep -q '^	run timeout 5s\$' $T/nv.out"

start_orchd_or_exit

c=$(get app.test)
check "a request to the app: 200 after the migration ($c)" [ "$c" = 200 ]
check "the migration ran first, the app found its table: \
$(tr '\n' ';' <"$T/run/order")" [ "$(cat "$T/run/order")" = "migrate v1
app start, table there" ]
check "the job is asleep again, done" is_state migrate asleep
ctl -j show workload migrate >"$T/m.json"
check "its history: waking for app, then asleep, job done" python3 -c '
import json, sys
h = json.load(open(sys.argv[1]))["history"]
w = [x for x in h if x["to"] == "waking" and x["message"] == "for app"]
d = [x for x in h if x["to"] == "asleep" and
    x["message"] == "job done: exited with status 0"]
sys.exit(not (w and d))' "$T/m.json"
check "orchctl logs migrate: what it printed" sh -c \
    "$ORCHCTL -s $SOCK logs migrate | grep -q migrated"

# the next wake: the job is not run again
ctl suspend app >/dev/null 2>&1
wait_for 10 is_state app asleep
c=$(get app.test)
check "the app woken again ($c), the job not run again ($(migrations))" \
    [ "$c" = 200 -a "$(migrations)" -eq 1 ]

# a restart of orchd: the store remembers the success
stop_orchd
start_orchd_or_exit
c=$(get app.test)
check "after a restart of orchd: not run again ($c, $(migrations))" \
    [ "$c" = 200 -a "$(migrations)" -eq 1 ]

# a new definition: run again at the next wake
ctl suspend app >/dev/null 2>&1
wait_for 10 is_state app asleep
write_conf v2
ctl reload >/dev/null 2>&1
c=$(get app.test)
check "its definition changed: run again before the app ($c): \
$(tail -n 2 "$T/run/order" | tr '\n' ';')" \
    [ "$c" = 200 -a "$(migrations)" -eq 2 -a \
    "$(tail -n 2 "$T/run/order")" = "migrate v2
app start, table there" ]

# a job that depends on the database, and an app on both
c=$(get app4.test)
check "a job depending on the database: run once it answers, then the \
app ($c): $(tr '\n' ';' <"$T/run/order2")" \
    [ "$c" = 200 -a "$(cat "$T/run/order2")" = "migdb, db up" ]
check "the database and the app run, the job asleep" sh -c \
    "$ORCHCTL -s $SOCK show workloads | grep -Eq '^db +running ' &&
    $ORCHCTL -s $SOCK show workloads | grep -Eq '^app4 +running ' &&
    $ORCHCTL -s $SOCK show workloads | grep -Eq '^migdb +asleep '"

# run once every wake
c=$(get app2.test)
ctl suspend app2 >/dev/null 2>&1
wait_for 10 is_state app2 asleep
c2=$(get app2.test)
check "every wake: run at each of two wakes ($c $c2, $(lines "$T/run/seeds"))" \
    [ "$c" = 200 -a "$c2" = 200 -a "$(lines "$T/run/seeds")" -eq 2 ]

# the API: a job with no host and no port, and an app depending on it
post() {	# post JSON: the status, the body in $T/body
	curl -s -m 30 -o "$T/body" -w '%{http_code}' -X POST \
	    -H "Authorization: Bearer $KEY" -d "$1" \
	    "http://127.0.0.1:$API/v1/workloads"
}
c=$(post "{\"name\": \"ajob\", \"command\": \"$T/bin/seed.sh\",
    \"run_once\": \"once\", \"run_timeout\": 5}")
check "API: a job without host or port ($c): $(cat "$T/body")" [ "$c" = 201 ]
c=$(post "{\"name\": \"aapp\", \"hosts\": [\"aapp.test\"],
    \"port\": $P_AAPP, \"depends_on\": [\"ajob\"],
    \"command\": \"$T/bin/testhttp serve $P_AAPP\"}")
check "API: an app depending on it ($c)" [ "$c" = 201 ]
n=$(lines "$T/run/seeds")
c=$(get aapp.test)
check "API: the app starts after the job ran ($c, $n -> $(lines "$T/run/seeds"))" \
    [ "$c" = 200 -a "$(lines "$T/run/seeds")" -eq $((n + 1)) ]
c=$(post "{\"name\": \"ajob2\", \"command\": \"/bin/true\",
    \"run_once\": \"once\", \"hosts\": [\"ajob2.test\"], \"port\": 1}")
check "API: a job with a host: 400 ($c): $(cat "$T/body")" \
    sh -c "[ $c = 400 ] && grep -q 'serves no host' $T/body"
c=$(post "{\"name\": \"ajob3\", \"command\": \"/bin/true\",
    \"run_once\": \"sometimes\"}")
check "API: run_once \"sometimes\": 400 ($c): $(cat "$T/body")" [ "$c" = 400 ]
check "orchctl show workload: run once" sh -c \
    "$ORCHCTL -s $SOCK show workload seed | grep -Eq '^run once: +every_wake\$'"
# the API's job read back from the store at a restart, not run again
stop_orchd
start_orchd_or_exit
n=$(lines "$T/run/seeds")
c=$(get aapp.test)
check "API: after a restart, the job is back and not run again ($c, \
$n -> $(lines "$T/run/seeds"))" sh -c "[ $c = 200 ] &&
    [ \$(wc -l <$T/run/seeds) -eq $n ] &&
    $ORCHCTL -s $SOCK show workloads | grep -Eq '^ajob +asleep '"

# orchctl wake of a job: it runs, and the command returns once it is done
n=$(lines "$T/run/seeds")
out=$(timeout 20 "$ORCHCTL" -s "$SOCK" wake seed 2>&1)
rc=$?
check "orchctl wake seed: done ($rc: $out), run ($n -> $(lines "$T/run/seeds"))" \
    [ "$rc" = 0 -a "$(lines "$T/run/seeds")" -eq $((n + 1)) ]
out=$(timeout 20 "$ORCHCTL" -s "$SOCK" wake bad 2>&1)
rc=$?
check "orchctl wake bad: fails, saying why ($rc: $out)" sh -c \
    "[ $rc -ne 0 ] && [ $rc -ne 124 ] && echo \"\$1\" | grep -q 'status 3'" sh "$out"

# a failing job: the app's request 503, naming the job and its status
c=$(get app3.test)
check "a job that exits 3: the app's request 503 ($c): $(head -c 200 "$T/body")" \
    sh -c "[ $c = 503 ] && grep -q 'bad' $T/body &&
    grep -q 'exited with status 3' $T/body"
check "the app did not start" sh -c "! $ORCHCTL -s $SOCK show workloads |
    grep -Eq '^app3 +running '"
check "the job failed" is_state bad failed
check "orchctl logs bad: its last words" sh -c \
    "$ORCHCTL -s $SOCK logs bad | grep -q 'relation users already exists'"
ctl -j show workload bad >"$T/b.json"
check "its history: failed, exited with status 3" python3 -c '
import json, sys
h = json.load(open(sys.argv[1]))["history"]
sys.exit(not any(x["to"] == "failed" and
    x["message"] == "job failed: exited with status 3" for x in h))' \
    "$T/b.json"
stop_orchd

# orchd -n: what a job cannot be
bad_conf() {	# bad_conf WHAT EXPECTED LINES...
	what=$1 want=$2
	shift 2
	{ conf_head; echo 'workload "j" {'; echo '	command "/bin/true"'
	  conf_end "$@"; } >"$T/bad.conf"
	out=$("$ORCHD" -n -f "$T/bad.conf" 2>&1)
	check "orchd -n refuses $what: $out" sh -c \
	    "! $ORCHD -n -f $T/bad.conf >/dev/null 2>&1 &&
	    echo \"\$1\" | grep -q \"\$2\"" sh "$out" "$want"
}
bad_conf "run timeout without run once" "for a job" "port 1" \
    "run timeout 5s"
bad_conf "a job with a host" "serves no host" "run once" 'host "j.test"'
bad_conf "a job kept warm" "not kept warm" "run once" "keep warm"
bad_conf "run once twice" "already set" "run once" "run once every wake"
bad_conf "run timeout 0" "positive" "run once" "run timeout 0s"

# docker: the container's exit status
JOB=jobs$$job
if have_docker; then
	NET=jobs$$net
	trap 'docker rm -f "orchd-$E2E_INSTANCE-$JOB" >/dev/null 2>&1;
	    docker network rm "$NET" >/dev/null 2>&1; e2e_cleanup' EXIT
	dconf() {	# dconf EXIT-STATUS [NETWORK]
		conf_head >"$T/orchd.conf"
		cat >>"$T/orchd.conf" <<CONF
listen on 127.0.0.1 port $GW
wake timeout 20s
workload "$JOB" {
	driver docker
	image "orchd-test/busybox:latest"
	command "/bin/sh -c 'echo container job; exit $1'"
	network ${2:-host}
	run once
}
workload "dapp" {
	host "dapp.test"
	depends on "$JOB"
	command "$T/bin/testhttp serve $P_DAPP"
	port $P_DAPP
}
CONF
	}
	dconf 4
	start_orchd_or_exit
	c=$(get dapp.test)
	check "docker: a container job that exits 4: 503 ($c): $(head -c 200 "$T/body")" \
	    sh -c "[ $c = 503 ] && grep -q '$JOB' $T/body &&
	    grep -q 'exited with status 4' $T/body"
	check "docker: orchctl logs of the job" sh -c \
	    "$ORCHCTL -s $SOCK logs $JOB | grep -q 'container job'"
	dconf 0
	ctl reload >/dev/null 2>&1
	sleep 1
	c=$(get dapp.test)
	check "docker: changed to exit 0, the app starts after it ($c)" \
	    [ "$c" = 200 ]
	check "docker: the job asleep, done" is_state "$JOB" asleep
	stop_orchd
	# a job's container still running at a restart is not adopted as
	# running: stopped, and it runs again at the next wake
	dconf "0; sleep 60"
	sed -i "s/exit 0; sleep 60/sleep 60; exit 0/" "$T/orchd.conf"
	start_orchd_or_exit
	get dapp.test >/dev/null 2>&1 &
	jrun() {
		[ "$(docker inspect -f '{{.State.Running}}' \
		    "orchd-$E2E_INSTANCE-$JOB" 2>/dev/null)" = true ]
	}
	check "docker: a long job's container runs" wait_for 15 jrun
	stop_orchd
	check "... and outlives orchd's stop" jrun
	start_orchd_or_exit
	check "... a restarted orchd stops it (within 20 s)" \
	    wait_for 20 sh -c "! docker inspect -f '{{.State.Running}}' \
	    'orchd-$E2E_INSTANCE-$JOB' | grep -q true"
	check "... it is asleep, not running" is_state "$JOB" asleep
	check "... the log says why" grep -q \
	    "$JOB: its job's container .* found running: stopped" \
	    "$T/orchd.log"
	stop_orchd
	wait
	# on a network of its own: no port, nothing published
	if docker network create "$NET" >/dev/null 2>&1; then
		dconf 0 "\"$NET\""
		start_orchd_or_exit
		ctl suspend dapp >/dev/null 2>&1
		c=$(get dapp.test)
		fmt='{{.HostConfig.NetworkMode}} {{.State.ExitCode}}'
		fmt="$fmt {{len .HostConfig.PortBindings}}"
		st=$(docker inspect -f "$fmt" "orchd-$E2E_INSTANCE-$JOB" 2>&1)
		check "docker: a job on a network, without a port: done \
($c, $st)" [ "$c" = 200 -a "$st" = "$NET 0 0" ]
		stop_orchd
	else
		echo "# skipped the network case: docker network create failed"
	fi
	docker rm -f "orchd-$E2E_INSTANCE-$JOB" >/dev/null 2>&1
	docker network rm "$NET" >/dev/null 2>&1
else
	echo "# skipped the container cases: no Docker, or no test image"
fi

e2e_done
