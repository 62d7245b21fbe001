#!/bin/sh
# Maintenance and a reload (orchd-workload.7): a workload put in
# maintenance while a request to it is in flight runs on until that is
# answered (it drains).  A reload meanwhile that changes its definition,
# with "on change restart", must not start the new definition: not side
# by side (a new port) nor in place (a new command on the same port).
# It stays down once drained, answers 503 with its message, and its next
# start, once maintenance is off, takes the new definition.  A wake under
# way that waits for a slow dependency when maintenance is turned on
# does not start the workload once the dependency runs.  Every start
# path asks runtimed's one gate (maint.c, maint_gate).  Loopback only,
# every wait bounded.
#
#	sh regress/e2e/maint_replace.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

port_base 58
ports GW P_OLD P_NEW P_DB P_APP
testhttp_bin
for f in old new inplace db app; do
	: >"$T/$f.starts"
	chmod 0666 "$T/$f.starts"
done
# write_conf PORT STARTS: the one workload on PORT, counting its starts
write_conf() {
	{
		conf_head
		cat <<CONF
reaper interval 1s
wake timeout 10s
on change restart
listen on 127.0.0.1 port $GW
workload "mr-web" {
	host "web.test"
	command "$T/bin/testhttp serve $1 $T/$2.starts"
	port $1
}
workload "mr-db" {
	host "db.test"
	command "$T/bin/testhttp serve $P_DB $T/db.starts"
	port $P_DB
	env "TESTHTTP_DELAY=3000"
}
workload "mr-app" {
	host "app.test"
	depends on "mr-db"
	command "$T/bin/testhttp serve $P_APP $T/app.starts"
	port $P_APP
}
CONF
	} >"$T/orchd.conf"
}
write_conf "$P_OLD" old
start_orchd_or_exit

ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
starts() { wc -l <"$T/$1.starts" | tr -d ' '; }
get() {
	curl -sS -m 20 -H "Host: web.test" -o "$T/r.body" \
	    -w '%{http_code}' "http://127.0.0.1:$GW${1:-/}" 2>/dev/null
}
state() {
	ctl -j show workload mr-web 2>/dev/null | python3 -c '
import json, sys
o = json.load(sys.stdin)
o = o[0] if isinstance(o, list) else o
print(o["state"])' 2>/dev/null
}
is_state() { [ "$(state)" = "$1" ]; }
listening() { curl -s -m 2 -o /dev/null "http://127.0.0.1:$1/" 2>/dev/null; }
# slow MS: a request in flight for MS ms, its status in $T/slow.code
slow() {
	curl -sS -m 20 -H "Host: web.test" -o /dev/null -w '%{http_code}' \
	    "http://127.0.0.1:$GW/slow?$1" >"$T/slow.code" 2>/dev/null &
	SLOW=$!
	sleep 1
}

# --- side by side: a new port while it drains into maintenance
code=$(get)
check "a request wakes it ($code)" [ "$code" = 200 ]
slow 4000
check "maintenance on while a request is in flight" ctl maintenance \
    mr-web on --message 'moving racks'
check "... it drains: still running" is_state running
write_conf "$P_NEW" new
check "a reload gives it a new port" eval "ctl reload >/dev/null"
sleep 2
check "... its new definition did not start" [ "$(starts new)" = 0 ]
check "... nothing listens on the new port" eval "! listening $P_NEW"
code=$(get)
check "a request gets 503 ($code)" [ "$code" = 503 ]
check "... with its message" grep -q 'in maintenance: moving racks' \
    "$T/r.body"
wait "$SLOW"
check "the request in flight was answered ($(cat "$T/slow.code"))" \
    [ "$(cat "$T/slow.code")" = 200 ]
check "... then it was suspended" wait_for 10 is_state asleep
sleep 2
check "... and stays down" is_state asleep
check "... the new definition never started" [ "$(starts new)" = 0 ]
check "... nor the old one again" [ "$(starts old)" = 1 ]
code=$(get)
check "still 503 ($code) with its message" sh -c "[ $code = 503 ] &&
    grep -q 'in maintenance: moving racks' '$T/r.body'"

# --- off: the next request starts the new definition
check "maintenance off" ctl maintenance mr-web off
code=$(get)
check "the next request wakes it ($code)" [ "$code" = 200 ]
check "... on its new definition" [ "$(starts new)" = 1 ]

# --- in place: a new command on the same port while it drains
slow 4000
check "maintenance on again, a request in flight" ctl maintenance \
    mr-web on --message 'in place'
write_conf "$P_NEW" inplace
check "a reload gives it a new command" eval "ctl reload >/dev/null"
wait "$SLOW"
check "... then it was suspended" wait_for 10 is_state asleep
sleep 2
check "... and stays down" is_state asleep
check "... its new command never started" [ "$(starts inplace)" = 0 ]
code=$(get)
check "a request gets 503 ($code) with its message" sh -c "[ $code = 503 ] &&
    grep -q 'in maintenance: in place' '$T/r.body'"

# --- a wake that waits for its dependency: maintenance on meanwhile
curl -sS -m 20 -H "Host: app.test" -o "$T/app.body" -w '%{http_code}' \
    "http://127.0.0.1:$GW/" >"$T/app.code" 2>/dev/null &
APP=$!
sleep 1
appstate() {	# appstate [NAME]: its state, without "/maint"
	ctl show workloads 2>/dev/null | awk -v n="${1:-mr-app}" \
	    '$1 == n { sub("/.*", "", $2); print $2 }'
}
check "mr-app waits for mr-db ($(appstate))" [ "$(appstate)" = waking ]
check "maintenance on mr-app meanwhile" ctl maintenance mr-app on \
    --message 'app paused'
wait "$APP"
dbrunning() { [ "$(appstate mr-db)" = running ]; }
check "mr-db came up" wait_for 15 dbrunning
sleep 1
check "... mr-app never started" [ "$(starts app)" = 0 ]
check "... its request got 503 ($(cat "$T/app.code"))" \
    [ "$(cat "$T/app.code")" = 503 ]
st=$(appstate)
check "... mr-app is not up ($st)" sh -c "[ $st = failed ] || [ $st = asleep ]"
code=$(curl -sS -m 20 -H "Host: app.test" -o "$T/r.body" -w '%{http_code}' \
    "http://127.0.0.1:$GW/" 2>/dev/null)
check "a new request: 503 with its message ($code)" sh -c "[ $code = 503 ] &&
    grep -q 'in maintenance: app paused' '$T/r.body'"
check "maintenance off" ctl maintenance mr-app off
code=$(curl -sS -m 20 -H "Host: app.test" -o /dev/null -w '%{http_code}' \
    "http://127.0.0.1:$GW/" 2>/dev/null)
check "the next request wakes it ($code)" [ "$code" = 200 ]
check "... started once" [ "$(starts app)" = 1 ]

e2e_done
