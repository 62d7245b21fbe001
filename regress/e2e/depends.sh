#!/bin/sh
# depends on: an app and the database it depends on, both process
# workloads.  A request to the sleeping app wakes the database first,
# the app starting only once it answers; 20 requests at once, one start
# each; the database kept up while the app runs past its idle timeout,
# then suspended by its own once the app sleeps; orchctl suspend app
# leaves it, orchctl wake app wakes both, orchctl suspend of the
# database is refused while the app runs; a dependency that never
# starts answers the app's requests 503 with its name; orchctl show
# workload lists both ways.  Two dependencies that can only start
# together, each waiting for the other to have started: woken side by
# side.  A chain whose last fails: the whole chain in the 503.  The
# API: depends_on naming nothing or the workload itself 400, deleting
# one depended on 409, a reload removing one refused.  orchd -n: a cycle
# at its line.  With Docker: a container that depends on a process
# workload, adopted running after a restart, wakes it.  (deps.sh is
# tools/deps.sh's.)
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports GW API P_DB P_APP P_APP2 P_BROKEN P_ADB P_AAPP P_WEB P_LEFT \
    P_RIGHT P_MID P_TOP
KEY=e2e-key-$$-0123456789abcdef
DB_IDLE=4
APP_IDLE=9

mkdir -p "$T/log" "$T/bin"
cp "$BUILD/regress/testhttp" "$T/bin/testhttp"
# the database: a second before it listens, so that a start of the app
# that did not wait for it would find it closed
cat >"$T/bin/db.sh" <<EOF
#!/bin/sh
echo "db start" >>"$T/order"
sleep 1
exec $T/bin/testhttp serve $P_DB $T/db.starts
EOF
# the app: says whether the database answered when it started
cat >"$T/bin/app.sh" <<EOF
#!/bin/sh
if /usr/bin/curl -s -m 2 -o /dev/null http://127.0.0.1:$P_DB/; then
	echo "app start, db up" >>"$T/order"
else
	echo "app start, db down" >>"$T/order"
fi
exec $T/bin/testhttp serve \$1 \$2
EOF
printf '#!/bin/sh\necho "broken start" >>%s\nexit 1\n' "$T/order" \
    >"$T/bin/broken.sh"
# left and right: each listens only once the other has started, within
# 8 seconds; started one after the other, the first never would
cat >"$T/bin/pair.sh" <<EOF
#!/bin/sh
touch "$T/run/\$1"
n=0
while [ ! -e "$T/run/\$2" ] && [ \$n -lt 80 ]; do
	sleep 0.1
	n=\$((n + 1))
done
[ -e "$T/run/\$2" ] || exit 1
exec $T/bin/testhttp serve \$3
EOF
mkdir -p "$T/run"
chmod 0777 "$T/run"
: >"$T/order"
: >"$T/db.starts"
: >"$T/app.starts"
: >"$T/app2.starts"
chmod 0755 "$T/bin" "$T/bin/testhttp" "$T/bin/db.sh" "$T/bin/app.sh" \
    "$T/bin/broken.sh" "$T/bin/pair.sh"
chmod 0666 "$T/order" "$T/db.starts" "$T/app.starts" "$T/app2.starts"
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"

write_conf() {	# write_conf [WITHOUT-DB]
	conf_head >"$T/orchd.conf"
	cat >>"$T/orchd.conf" <<CONF
reaper interval 1s
wake timeout 10s
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
api allow process

workload "broken" {
	host "broken.test"
	command "$T/bin/broken.sh"
	port $P_BROKEN
}
workload "app2" {
	host "app2.test"
	depends on "broken"
	command "$T/bin/app.sh $P_APP2 $T/app2.starts"
	port $P_APP2
}
workload "web" {
	host "web.test"
	depends on "left"
	depends on "right"
	command "$T/bin/testhttp serve $P_WEB"
	port $P_WEB
}
workload "left" {
	host "left.test"
	command "$T/bin/pair.sh left right $P_LEFT"
	port $P_LEFT
}
workload "right" {
	host "right.test"
	command "$T/bin/pair.sh right left $P_RIGHT"
	port $P_RIGHT
}
workload "top" {
	host "top.test"
	depends on "mid"
	command "$T/bin/testhttp serve $P_TOP"
	port $P_TOP
}
workload "mid" {
	host "mid.test"
	depends on "broken"
	command "$T/bin/testhttp serve $P_MID"
	port $P_MID
}
CONF
	[ -n "$1" ] && return 0
	cat >>"$T/orchd.conf" <<CONF
workload "app" {
	host "app.test"
	depends on "db"		# further down
	command "$T/bin/app.sh $P_APP $T/app.starts"
	port $P_APP
	idle timeout ${APP_IDLE}s
}
workload "db" {
	host "db.test"
	command "$T/bin/db.sh"
	port $P_DB
	idle timeout ${DB_IDLE}s
}
CONF
}
write_conf

ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
is_state() {	# is_state NAME STATE
	ctl show workloads | grep -Eq "^$1 +$2 "
}
lines() { wc -l <"$1" | tr -d ' '; }
api() { curl -sS -m 30 -H "Authorization: Bearer $KEY" "$@"; }
code() { curl -s -m 30 -o "$T/body" -w '%{http_code}' "$@"; }
# when (epoch seconds) NAME last went from state FROM to TO, from the store
went() {	# went NAME FROM TO
	ctl -j show workload "$1" | python3 -c 'import json, sys, datetime
h = json.load(sys.stdin)["history"]
t = [x["time"] for x in h
    if x["from"] == sys.argv[1] and x["to"] == sys.argv[2]]
if not t:
	print(0)
	sys.exit(0)
d = datetime.datetime.fromisoformat(t[-1].replace("Z", "+00:00"))
print(int(d.timestamp()))' "$2" "$3"
}

start_orchd_or_exit

# twenty requests at once to the sleeping app
HEAD=$(printf 'GET / HTTP/1.1\r\nHost: app.test\r\nConnection: close\r\n\r\nx')
HEAD=${HEAD%x}
"$BUILD/regress/testhttp" burst "$GW" 20 40 "$HEAD" >"$T/burst.out"
n200=$(grep -c '^200 ' "$T/burst.out")
check "20 requests at once to the sleeping app: all 200 ($n200)" \
    [ "$n200" -eq 20 ]
check "one start of the app ($(lines "$T/app.starts"))" \
    [ "$(lines "$T/app.starts")" -eq 1 ]
check "one start of the database it depends on ($(lines "$T/db.starts"))" \
    [ "$(lines "$T/db.starts")" -eq 1 ]
check "the database started first, and answered before the app started: \
$(tr '\n' ';' <"$T/order")" \
    [ "$(cat "$T/order")" = "db start
app start, db up" ]
check "both run" sh -c "$ORCHCTL -s $SOCK show workloads |
    grep -Eq '^app +running ' && $ORCHCTL -s $SOCK show workloads |
    grep -Eq '^db +running '"
ctl -j show workload db >"$T/db.json"
check "the database's history says for whom it woke" python3 -c '
import json, sys
h = json.load(open(sys.argv[1]))["history"]
sys.exit(not any(x["to"] == "waking" and x["reason"] == "dependency" and
    x["message"] == "for app" for x in h))' "$T/db.json"
check "show workload app: depends on db" \
    sh -c "$ORCHCTL -s $SOCK show workload app | grep -Eq '^depends on: +db$'"
check "show workload db: its dependents, app" \
    sh -c "$ORCHCTL -s $SOCK show workload db | grep -Eq '^dependents: +app$'"
check "show workload -j: depends_on and dependents" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["definition"]
sys.exit(d.get("dependents") != ["app"] or "depends_on" in d)' "$T/db.json"

# the database outlives its idle timeout under the running app
out=$(ctl suspend db 2>&1)
rc=$?
check "orchctl suspend db while app runs is refused: $out" \
    sh -c "[ $rc -ne 0 ] && echo \"\$1\" |
    grep -q 'app depends on db and is running'" sh "$out"
sleep $((DB_IDLE + 2))
check "past its own idle timeout, the database runs while app does" \
    is_state db running
check "app too (its idle timeout is longer)" is_state app running
check "the app sleeps after its idle timeout" wait_for $((APP_IDLE + 10)) \
    is_state app asleep
check "then the database, by its own idle timeout" \
    wait_for $((DB_IDLE + 10)) is_state db asleep
t_app=$(went app suspending asleep)
t_db=$(went db running suspending)
check "counted from the app's sleep: $((t_db - t_app)) s >= $((DB_IDLE - 1))" \
    [ "$t_app" -gt 0 -a $((t_db - t_app)) -ge $((DB_IDLE - 1)) ]

# orchctl wake app wakes both; orchctl suspend app leaves the database
out=$(ctl wake app 2>&1)
check "orchctl wake app: $out" is_state app running
check "and the database with it" is_state db running
check "a start each ($(lines "$T/app.starts"), $(lines "$T/db.starts"))" \
    [ "$(lines "$T/app.starts")" -eq 2 -a "$(lines "$T/db.starts")" -eq 2 ]
check "orchctl suspend app" sh -c "$ORCHCTL -s $SOCK suspend app >/dev/null"
check "leaves the database running" is_state db running
check "to its own idle timeout" wait_for $((DB_IDLE + 10)) is_state db asleep

# a dependency that never starts: the app's requests get 503 naming it
c=$(code -H 'Host: app2.test' "http://127.0.0.1:$GW/")
check "a request to an app whose dependency fails: $c" [ "$c" = 503 ]
check "the body names the dependency: $(tr '\n' ' ' <"$T/body")" \
    grep -q 'dependency broken did not wake: start failed' "$T/body"
check "the app never started" [ "$(lines "$T/app2.starts")" -eq 0 ]
check "the log says so" grep -q \
    'workload app2: waking -> failed (dependency: broken did not wake' \
    "$T/orchd.log"
out=$(ctl wake app2 2>&1)
rc=$?
check "orchctl wake app2 fails with it: $out" \
    sh -c "[ $rc -ne 0 ] && echo \"\$1\" | grep -q 'broken did not wake'" \
    sh "$out"

# independent dependencies wake side by side
c=$(code -H 'Host: web.test' "http://127.0.0.1:$GW/")
check "two dependencies that start only together: both woken at once ($c)" \
    [ "$c" = 200 ]
check "... and both run" sh -c "$ORCHCTL -s $SOCK show workloads |
    grep -Eq '^left +running ' && $ORCHCTL -s $SOCK show workloads |
    grep -Eq '^right +running '"

# a chain: the failure of the last, through the middle, to the top
c=$(code -H 'Host: top.test' "http://127.0.0.1:$GW/")
check "a chain whose last fails: $c, $(tr '\n' ' ' <"$T/body")" \
    sh -c "[ $c = 503 ] && grep -q \
    'dependency mid did not wake: broken did not wake: start failed' \
    '$T/body'"
check "neither the top nor the middle started" sh -c "! grep -Eq \
    'workload (top|mid): waking -> running' '$T/orchd.log'"

# the API
URL=http://127.0.0.1:$API
body() {	# body NAME PORT [DEPENDS-JSON]
	printf '{"name": "%s", "hosts": ["%s.test"], "port": %s, ' \
	    "$1" "$1" "$2"
	printf '"command": "%s/bin/testhttp serve %s"%s}' \
	    "$T" "$2" "${3:+, \"depends_on\": $3}"
}
c=$(code -X POST -H "Authorization: Bearer $KEY" -d "$(body aapp $P_AAPP \
    '["nothere"]')" "$URL/v1/workloads")
check "API: depends_on a name of no workload: $c $(cat "$T/body")" \
    sh -c "[ $c = 400 ] && grep -q 'no such workload' '$T/body'"
c=$(code -X POST -H "Authorization: Bearer $KEY" -d "$(body aapp $P_AAPP \
    '["db", "aapp"]')" "$URL/v1/workloads")
check "API: depends_on itself, a cycle: $c $(cat "$T/body")" \
    sh -c "[ $c = 400 ] && grep -q 'depends on itself' '$T/body'"
c=$(code -X POST -H "Authorization: Bearer $KEY" -d "$(body adb $P_ADB)" \
    "$URL/v1/workloads")
check "API: a database ($c)" [ "$c" = 201 ]
c=$(code -X POST -H "Authorization: Bearer $KEY" -d "$(body aapp $P_AAPP \
    '["adb", "db"]')" "$URL/v1/workloads")
check "API: an app depending on it and on one of the file ($c)" \
    [ "$c" = 201 ]
c=$(code -X DELETE -H "Authorization: Bearer $KEY" "$URL/v1/workloads/adb")
check "API: deleting the database it depends on: $c $(cat "$T/body")" \
    sh -c "[ $c = 409 ] && grep -q 'aapp depends on it' '$T/body'"
c=$(code -H 'Host: aapp.test' "http://127.0.0.1:$GW/")
check "the API's app wakes with both ($c)" \
    sh -c "[ $c = 200 ] && $ORCHCTL -s $SOCK show workloads |
    grep -Eq '^adb +running ' && $ORCHCTL -s $SOCK show workloads |
    grep -Eq '^db +running '"

# a reload that removes what the API's app depends on
write_conf nodb
out=$(ctl reload 2>&1)
check "a reload removing db is refused: $out" \
    sh -c "echo \"\$1\" | grep -q 'workload db cannot be removed: aapp \
(created through the API) depends on it'" sh "$out"
check "db is still there" sh -c "$ORCHCTL -s $SOCK show workloads |
    grep -Eq '^db '"
write_conf
c=$(code -X DELETE -H "Authorization: Bearer $KEY" "$URL/v1/workloads/aapp")
check "API: the app deleted ($c)" [ "$c" = 200 ]
c=$(code -X DELETE -H "Authorization: Bearer $KEY" "$URL/v1/workloads/adb")
check "API: then its database ($c)" [ "$c" = 200 ]
stop_orchd

# a container adopted at start wakes what it depends on: the process
# database did not outlive orchd, the container did
DAPP=depends$$app
if have_docker; then
	trap 'docker rm -f "orchd-$E2E_INSTANCE-$DAPP" >/dev/null 2>&1; e2e_cleanup' EXIT
	ports P_DAPP
	write_conf
	cat >>"$T/orchd.conf" <<CONF
workload "$DAPP" {
	host "dapp.test"
	driver docker
	image "orchd-test/busybox:latest"
	command "/bin/sh -c 'echo up >/tmp/i; exec httpd -f -p 127.0.0.1:$P_DAPP -h /tmp'"
	network host
	port $P_DAPP
	depends on "db"
}
CONF
	start_orchd_or_exit
	c=$(code -H 'Host: dapp.test' "http://127.0.0.1:$GW/i")
	check "a container that depends on db: woken with it ($c)" \
	    sh -c "[ $c = 200 ] && $ORCHCTL -s $SOCK show workloads |
	    grep -Eq '^db +running '"
	stop_orchd
	start_orchd_or_exit
	check "after a restart the container is adopted" wait_for 20 is_state \
	    "$DAPP" running
	check "and wakes the database for it" wait_for 20 is_state db running
	check "... which its history says" sh -c "$ORCHCTL -s $SOCK -j show \
	    workload db | grep -q 'for $DAPP'"
	stop_orchd
	docker rm -f "orchd-$E2E_INSTANCE-$DAPP" >/dev/null 2>&1
else
	echo "# skipped the container case: no Docker, or no test image"
fi

# orchd -n: a cycle, at the line that closes it
cat >"$T/cycle.conf" <<CONF
workload "a" {
	host "a.test"
	command "/bin/true"
	port 1
	depends on "b"
}
workload "b" {
	host "b.test"
	command "/bin/true"
	depends on "a"
	port 2
}
CONF
out=$("$ORCHD" -n -f "$T/cycle.conf" 2>&1)
rc=$?
check "orchd -n refuses a cycle ($rc)" [ "$rc" -ne 0 ]
check "at its line: $out" sh -c "echo \"\$1\" | grep -q \
    'cycle.conf:10: workload \"b\": depends on \"a\": a cycle: a -> b -> a'" \
    sh "$out"

e2e_done
