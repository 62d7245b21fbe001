#!/bin/sh
# Update in place, orchctl restart and drift, against the real daemons.
# PUT and PATCH of API workloads: an asleep one takes its new definition
# and the next wake runs it; PATCH merges (null removes env); a workload
# of the file, a forbidden field, an unknown name, a rename are refused.
# A reload that changes a running workload's command: drift in show
# workloads, show workload and the API; orchctl restart clears it; with
# on change restart a reload replaces it at once.  Under load (wrk if
# installed, else curl) and over HTTP/2, a new port is replaced side by
# side and a new command on the same port in place, without a failed
# request; with on change next wake a new port waits for the next
# start, the gateway reaching the running one meanwhile; a replacement
# that cannot start leaves the old one running.  orchctl update is a
# PUT, replaced as on change says, and orchctl keep a PATCH that
# restarts nothing.  Updates survive a restart.  With Docker, a new image
# tag under load.  Every wait and every loop bounded.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

base=$((20000 + $$ % 12000))
GW=$(free_port "$base")
API=$(free_port $((GW + 1)))
P_CONF=$(free_port $((API + 1)))
P1=$(free_port $((P_CONF + 1)))
P2=$(free_port $((P1 + 1)))
P3=$(free_port $((P2 + 1)))
P4=$(free_port $((P3 + 1)))
PK=$(free_port $((P4 + 1)))

KEY=e2e-key-$$-0123456789abcdef
mkdir -p "$T/log" "$T/bin" "$T/run"
# the workloads run as uids of their own: what they write, anyone may
chmod 0777 "$T/run"
cp "$BUILD/regress/testhttp" "$T/bin/testhttp"
chmod 0755 "$T/bin" "$T/bin/testhttp"
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"

write_conf() {	# write_conf [EXTRA-GLOBAL-LINE] [CONF-COMMAND-TAG]
	cat >"$T/orchd.conf" <<CONF
user "_orchd"
database "$T/db/orchd.db"
socket "$SOCK"
$(conf_instance)
log directory "$T/log"
wake timeout 10s
listen on 127.0.0.1 port $GW
listen on 127.0.0.1 port $PK http2 prior knowledge
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
api allow process
# the container shares the host's network: --bridge=none here
api allow network host
$1

workload "conf" {
	host "conf.test"
	command "$T/bin/testhttp serve $P_CONF $T/run/conf-${2:-a}"
	port $P_CONF
	idle timeout 10m
}
CONF
}
write_conf

URL=http://127.0.0.1:$API
GWURL=http://127.0.0.1:$GW
api() {		# api [curl args...]: with the key, the body to stdout
	curl -sS -m 30 -H "Authorization: Bearer $KEY" "$@"
}
# apic METHOD PATH [BODY]: the body, then the status on a line of its own
apic() {
	if [ -n "${3:-}" ]; then
		curl -sS -m 30 -H "Authorization: Bearer $KEY" -X "$1" \
		    -H 'Content-Type: application/json' -d "$3" \
		    -w '\n%{http_code}' "$URL$2"
	else
		curl -sS -m 30 -H "Authorization: Bearer $KEY" -X "$1" \
		    -w '\n%{http_code}' "$URL$2"
	fi
}
last() { printf '%s\n' "$1" | tail -n 1; }
body() { printf '%s\n' "$1" | sed '$d'; }
field() {	# field JSON NAME: a top-level field, as python prints it
	printf '%s' "$1" | python3 -c 'import json, sys
o = json.load(sys.stdin)
v = o.get(sys.argv[1])
print(json.dumps(v) if not isinstance(v, str) else v)' "$2" 2>/dev/null
}
get() { api "$URL/v1/workloads/$1"; }
state_is() {	# state_is NAME STATE
	[ "$(field "$(get "$1")" state)" = "$2" ]
}
hello() {	# hello HOST: the gateway proxies it
	[ "$(curl -s -m 20 -H "Host: $1" "$GWURL/")" = "hello from testhttp" ]
}
listening() {	# listening PORT
	ss -Htln "sport = :$1" 2>/dev/null | grep -q .
}
serving() {	# serving PORT TAG: the process listening there is TAG's
	pgrep -f "testhttp serve $1 $T/run/$2\$" >/dev/null
}
app_body() {	# app_body NAME PORT TAG [MORE-JSON]
	printf '{"name": "%s", "hosts": ["%s.test"], ' "$1" "$1"
	printf '"command": "%s serve %s %s", "port": %s%s}' \
	    "$T/bin/testhttp" "$2" "$T/run/$3" "$2" "${4:-}"
}
# patch_app PORT TAG [MORE-JSON]: app's command to serve as TAG on PORT
patch_app() {
	apic PATCH /v1/workloads/app "$(printf \
	    '{"command": "%s serve %s %s"%s}' "$T/bin/testhttp" "$1" \
	    "$T/run/$2" "${3:-}")"
}
# history_has NAME PATTERN: its history in show workload has a line
history_has() {
	ctl show workload "$1" | grep -q "$2"
}
TEN=', "idle_timeout": "10m"'

start_orchd_or_exit

# -- an API workload, woken once, then asleep
out=$(apic POST /v1/workloads "$(app_body app "$P1" v1 "$TEN")")
check "POST creates app ($(last "$out"))" [ "$(last "$out")" = 201 ]
check "app answers through the gateway" hello app.test
check "... run as v1 on port $P1" serving "$P1" v1
"$ORCHCTL" -s "$SOCK" suspend app >/dev/null 2>&1
check "app is suspended" wait_for 15 state_is app asleep

# -- PUT to an asleep workload: the next wake runs the new definition
out=$(apic PUT /v1/workloads/app "$(app_body app "$P2" v2 "$TEN")")
check "PUT of an asleep workload: 200 ($(last "$out"))" \
    [ "$(last "$out")" = 200 ]
check "... answered with the new definition (port $P2)" \
    [ "$(field "$(body "$out")" port)" = "$P2" ]
check "... and its state, asleep" \
    [ "$(field "$(body "$out")" state)" = asleep ]
check "... nothing was started by it" \
    [ ! -e "$T/run/v2" ]
check "the next request wakes it" hello app.test
check "... as the new command, on the new port" serving "$P2" v2
check "... and nothing listens on the old one" eval "! listening $P1"
check "GET shows the new command" \
    [ "$(field "$(get app)" command)" = "$T/bin/testhttp serve $P2 $T/run/v2" ]

# -- PATCH merges: env set, then removed with null
"$ORCHCTL" -s "$SOCK" suspend app >/dev/null 2>&1
out=$(apic PATCH /v1/workloads/app \
    '{"env": ["A=1", "B=2"], "wake_timeout": "20s"}')
check "PATCH: 200 ($(last "$out"))" [ "$(last "$out")" = 200 ]
check "... env set" [ "$(field "$(body "$out")" env)" = '["A=1", "B=2"]' ]
check "... the rest kept (port $P2)" \
    [ "$(field "$(body "$out")" port)" = "$P2" ]
check "... wake timeout set" \
    [ "$(field "$(body "$out")" wake_timeout)" = 20 ]
out=$(apic PATCH /v1/workloads/app '{"env": null, "wake_timeout": null}')
check "PATCH with null: 200 ($(last "$out"))" [ "$(last "$out")" = 200 ]
check "... env removed" [ "$(field "$(body "$out")" env)" = '[]' ]
check "... wake timeout back to the global one" \
    [ "$(field "$(body "$out")" wake_timeout)" = 10 ]
check "... the command kept" [ "$(field "$(body "$out")" command)" = \
    "$T/bin/testhttp serve $P2 $T/run/v2" ]

# -- refused
out=$(apic PUT /v1/workloads/conf "$(app_body conf "$P_CONF" c)")
check "PUT to a workload of the file: 409 ($(last "$out"))" \
    [ "$(last "$out")" = 409 ]
check "... saying where it is defined" \
    eval "body \"\$out\" | grep -q 'defined in the configuration file'"
out=$(apic PATCH /v1/workloads/conf '{"idle_timeout": "1m"}')
check "PATCH to a workload of the file: 409 ($(last "$out"))" \
    [ "$(last "$out")" = 409 ]
out=$(apic PATCH /v1/workloads/app '{"user": "nobody"}')
check "PATCH setting user: 403 ($(last "$out"))" [ "$(last "$out")" = 403 ]
out=$(apic PUT /v1/workloads/app \
    "$(app_body app "$P2" v2 ', "user": "nobody"')")
check "PUT with user: 403 ($(last "$out"))" [ "$(last "$out")" = 403 ]
check "... the definition unchanged" \
    [ "$(field "$(get app)" user)" = null ]
out=$(apic PUT /v1/workloads/nothere "$(app_body nothere "$P3" x)")
check "PUT to no such workload: 404 ($(last "$out"))" \
    [ "$(last "$out")" = 404 ]
out=$(apic PATCH /v1/workloads/app '{"name": "other"}')
check "PATCH renaming: 400 ($(last "$out"))" [ "$(last "$out")" = 400 ]
out=$(apic PATCH /v1/workloads/app '{"port": "eighty"}')
check "PATCH with a bad port: 400 ($(last "$out"))" \
    [ "$(last "$out")" = 400 ]
out=$(apic PATCH /v1/workloads/app '[1]')
check "PATCH that is not an object: 400 ($(last "$out"))" \
    [ "$(last "$out")" = 400 ]
out=$(apic PUT /v1/workloads/app \
    '{"name": "app", "hosts": ["conf.test"], "command": "/bin/true",
    "port": 1}')
check "PUT taking another's host: 409 ($(last "$out"))" \
    [ "$(last "$out")" = 409 ]

# -- drift: a reload changes the command of a running workload
ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
check "conf answers" hello conf.test
check "... as conf-a" serving "$P_CONF" conf-a
check "app answers" hello app.test
write_conf "" b
check "a reload changes conf's command" eval "ctl reload >/dev/null"
check "... show workloads marks conf running*" \
    eval "ctl show workloads | grep -q '^conf  *running\\* '"
check "... and says what the mark means" \
    eval "ctl show workloads | grep -q '^\\* runs with an older definition'"
check "... app, unchanged, is not marked" \
    eval "ctl show workloads | grep -q '^app  *running '"
check "... show workload conf names the field: command" \
    history_has conf '^drift: *command changed since it started'
check "... in JSON too" [ "$(ctl -j show workload conf |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["drift"])')" = \
    "['command']" ]
check "... and in the API" [ "$(field "$(get conf)" drift)" = '["command"]' ]
check "... the old command still runs" serving "$P_CONF" conf-a

# -- orchctl restart: in place, with the definition it has now
out=$(ctl restart conf 2>&1)
check "orchctl restart conf ($out)" [ "$out" = "conf is running again" ]
check "... runs the new command" serving "$P_CONF" conf-b
check "... the old one is gone" eval "! serving $P_CONF conf-a"
check "... no longer marked" \
    eval "! ctl show workloads | grep -q '^conf  *running\\*'"
check "... no drift in show workload" \
    eval "! ctl show workload conf | grep -q '^drift:'"
check "... its history says replaced, orchctl restart" \
    history_has conf 'running  *suspending  *replaced  *orchctl restart'
check "... and it answers" hello conf.test
out=$(ctl restart nothere 2>&1)
check "orchctl restart of no such workload fails ($out)" \
    eval "printf '%s' \"\$out\" | grep -q 'no such workload'"
ctl suspend app >/dev/null 2>&1
out=$(ctl restart app 2>&1)
check "orchctl restart of an asleep workload is refused ($out)" \
    eval "printf '%s' \"\$out\" | grep -q 'only a running workload'"

# -- on change restart: a reload replaces conf at once, in place
write_conf "on change restart" c
check "a reload with on change restart" eval "ctl reload >/dev/null"
check "... replaces conf at once" wait_for 15 serving "$P_CONF" conf-c
check "... the old one is gone" wait_for 15 eval "! serving $P_CONF conf-b"
check "... it answers" hello conf.test
check "... without drift" eval "! ctl show workload conf | grep -q '^drift:'"
# back to next wake for the rest
write_conf "" c
ctl reload >/dev/null 2>&1

# -- replaced under load: count what is not a 2xx
# load HOST SECS FILE [PATH]: requests for SECS seconds; FILE gets one
# status a line ("000": no answer), or wrk's report where wrk is
# installed (the test installs nothing)
load() {
	if command -v wrk >/dev/null 2>&1; then
		wrk -t 2 -c 8 -d "${2}s" --timeout 20s -H "Host: $1" \
		    "$GWURL${4:-/}" >"$3" 2>&1
		return
	fi
	_end=$(($(date +%s) + $2))
	_n=0
	while [ "$(date +%s)" -lt "$_end" ] && [ $_n -lt 3000 ]; do
		curl -s -m 20 -o /dev/null -w '%{http_code}\n' \
		    -H "Host: $1" "$GWURL${4:-/}"
		_n=$((_n + 1))
	done >"$3"
}
# load_failures FILE: non-2xx answers and errors, from either
load_failures() {
	if grep -q 'Requests/sec' "$1"; then
		awk '/Non-2xx or 3xx responses:/ { n += $NF }
		    /Socket errors:/ { gsub(",", ""); n += $4 + $6 + $8 + $10 }
		    END { print n + 0 }' "$1"
	else
		grep -vc '^2' "$1"
	fi
}
# slow HOST MS FILE: one request answered after MS ms, its status to
# FILE: in flight while a replacement begins, it must be answered
slow() {
	curl -s -m 30 -o /dev/null -w '%{http_code}\n' -H "Host: $1" \
	    "$GWURL/slow?$2" >"$3" 2>&1
}
# h2load HOST SECS FILE: the same over HTTP/2 (prior knowledge), each a
# stream through the gateway's pseudo-connections: "CODE VERSION" a line
h2load() {
	_end=$(($(date +%s) + $2))
	_n=0
	while [ "$(date +%s)" -lt "$_end" ] && [ $_n -lt 3000 ]; do
		curl -s -m 20 --http2-prior-knowledge -o /dev/null \
		    -w '%{http_code} %{http_version}\n' -H "Host: $1" \
		    "http://127.0.0.1:$PK/"
		_n=$((_n + 1))
	done >"$3"
}
# h2_failures FILE: what was not a 200 over HTTP/2
h2_failures() { grep -vc '^200 2$' "$1"; }
# load_count FILE: the requests made
load_count() {
	if grep -q 'Requests/sec' "$1"; then
		awk '/requests in/ { print $1 }' "$1"
	else
		wc -l <"$1" | tr -d ' '
	fi
}

check "app answers" hello app.test
# a new port: side by side
load app.test 6 "$T/load1" &
lp=$!
h2load app.test 6 "$T/h2load1" &
hp=$!
sleep 1
slow app.test 3000 "$T/slow1" &
sp=$!
sleep 0.3
out=$(patch_app "$P3" v3 ", \"port\": $P3, \"on_change\": \"restart\"")
check "PATCH of a new port to app under load: 200 ($(last "$out"))" \
    [ "$(last "$out")" = 200 ]
check "... the new process runs on the new port" wait_for 15 serving "$P3" v3
check "... the old one stops" wait_for 15 eval "! serving $P2 v2"
wait $lp
wait $sp
wait $hp
n=$(load_count "$T/load1")
f=$(load_failures "$T/load1")
check "... $n requests, none failed ($f)" [ "$f" = 0 ] && [ "$n" -gt 0 ]
n=$(wc -l <"$T/h2load1" | tr -d ' ')
f=$(h2_failures "$T/h2load1")
check "... $n over HTTP/2, none failed ($f)" [ "$f" = 0 ] && [ "$n" -gt 0 ]
check "... a slow one in flight to the old one answered ($(cat "$T/slow1"))" \
    [ "$(cat "$T/slow1")" = 200 ]
check "... app answers" hello app.test
check "... its history says replaced side by side" \
    history_has app 'running  *running  *replaced  *replaced side by side'
check "... no drift" [ "$(field "$(get app)" drift)" = '[]' ]

# the same port: in place, the requests held
load app.test 6 "$T/load2" &
lp=$!
h2load app.test 6 "$T/h2load2" &
hp=$!
sleep 1
slow app.test 3000 "$T/slow2" &
sp=$!
sleep 0.3
out=$(patch_app "$P3" v4)
check "PATCH of a new command, same port, under load: 200 ($(last "$out"))" \
    [ "$(last "$out")" = 200 ]
check "... the new process runs" wait_for 15 serving "$P3" v4
check "... the old one is gone" wait_for 15 eval "! serving $P3 v3"
wait $lp
wait $sp
wait $hp
n=$(load_count "$T/load2")
f=$(load_failures "$T/load2")
check "... $n requests, none failed ($f)" [ "$f" = 0 ] && [ "$n" -gt 0 ]
n=$(wc -l <"$T/h2load2" | tr -d ' ')
f=$(h2_failures "$T/h2load2")
check "... $n over HTTP/2, none failed ($f)" [ "$f" = 0 ] && [ "$n" -gt 0 ]
check "... a slow one in flight answered before the stop ($(cat "$T/slow2"))" \
    [ "$(cat "$T/slow2")" = 200 ]
check "... its history says replaced, new definition" \
    history_has app 'running  *suspending  *replaced  *new definition'

# -- next wake, the default: a new port while it runs changes nothing yet
out=$(patch_app "$P4" v5 ", \"port\": $P4, \"on_change\": null")
check "PATCH of a new port with on change next wake: 200 ($(last "$out"))" \
    [ "$(last "$out")" = 200 ]
check "... the running process runs on" serving "$P3" v4
check "... and the gateway still reaches it there" hello app.test
check "... drift: command, port" \
    [ "$(field "$(get app)" drift)" = '["command", "port"]' ]
ctl suspend app >/dev/null 2>&1
check "... suspended, the next request runs the new one" hello app.test
check "... on the new port" serving "$P4" v5
check "... without drift" [ "$(field "$(get app)" drift)" = '[]' ]

# -- a replacement that does not start: the old instance runs on
out=$(apic PATCH /v1/workloads/app "{\"command\": \"$T/bin/nothere\", \
    \"port\": $P1, \"on_change\": \"restart\"}")
check "PATCH of a command that cannot start: 200 ($(last "$out"))" \
    [ "$(last "$out")" = 200 ]
check "... the history says it was not replaced" wait_for 15 \
    history_has app 'replaced  *not replaced: '
check "... the old one runs on" serving "$P4" v5
check "... and answers" hello app.test
check "... the drift is shown" \
    [ "$(field "$(get app)" drift)" = '["command", "port"]' ]
check "... nothing listens on the port it did not take" \
    eval "! listening $P1"
tried() { grep -c 'app: its new definition did not start' "$T/orchd.log"; }
n=$(tried)
ctl reload >/dev/null 2>&1
sleep 1
check "... a reload that changes nothing of it does not try again" \
    [ "$(tried)" = "$n" ]

# -- a change while a replacement starts is the next replacement's
out=$(apic PATCH /v1/workloads/app "{\"command\": \"/bin/sh -c 'sleep 2; \
    exec $T/bin/testhttp serve $P1 $T/run/v6'\", \"port\": $P1}")
check "PATCH of a new port, its start slow: 200 ($(last "$out"))" \
    [ "$(last "$out")" = 200 ]
out=$(patch_app "$P1" v7)
check "... PATCH of a new command meanwhile: 200 ($(last "$out"))" \
    [ "$(last "$out")" = 200 ]
check "... the first replaces the old one" wait_for 15 serving "$P1" v6
check "... then the second replaces it in place" wait_for 15 \
    serving "$P1" v7
check "... the others are gone" wait_for 15 \
    eval "! serving $P1 v6 && ! serving $P4 v5"
check "... no drift is left" wait_for 5 \
    eval "[ \"\$(field \"\$(get app)\" drift)\" = '[]' ]"
check "... it answers" hello app.test

# -- orchctl update is a PUT: the same replacement, as on change says
app_body app "$P1" v8 ', "on_change": "restart"' >"$T/app8.json"
out=$(ctl update app "$T/app8.json" 2>&1)
check "orchctl update of running app, on change restart ($out)" \
    [ "$out" = "app updated" ]
check "... replaces it at once, in place" wait_for 15 serving "$P1" v8
check "... the old one is gone" wait_for 15 eval "! serving $P1 v7"
check "... its history says replaced, new definition" wait_for 5 \
    history_has app 'running  *suspending  *replaced  *new definition'
check "... it answers" hello app.test
app_body app "$P2" v9 "$TEN" | ctl update app - >"$T/upd9.out" 2>&1
check "orchctl update from standard input, next wake" \
    grep -qx "app updated" "$T/upd9.out"
check "... the running process runs on" serving "$P1" v8
check "... and the gateway still reaches it there" hello app.test
check "... drift: command, port" \
    [ "$(field "$(get app)" drift)" = '["command", "port"]' ]
check "... show workloads marks it running*" \
    eval "ctl show workloads | grep -q '^app  *running\\* '"
out=$(ctl keep app 2>&1)
check "orchctl keep of app, a PATCH of expire_after 0 ($out)" \
    [ "$out" = "app never expires" ]
check "... GET says expire_after 0" [ "$(field "$(get app)" expire_after)" = 0 ]
check "... the rest of the update kept (port $P2)" \
    [ "$(field "$(get app)" port)" = "$P2" ]
check "... the running process untouched" serving "$P1" v8
ctl suspend app >/dev/null 2>&1
check "... suspended, the next request runs the update" hello app.test
check "... on its port" serving "$P2" v9
app_body conf "$P_CONF" x | ctl update conf - >"$T/updc.out" 2>&1
check "orchctl update of the file's workload is refused" \
    grep -q "defined in the configuration file" "$T/updc.out"
app_body app "$P2" v9 ', "user": "nobody"' | ctl update app - \
    >"$T/updu.out" 2>&1
check "orchctl update setting user is refused by the policy" \
    grep -q '"user" is set in orchd.conf only' "$T/updu.out"
app_body app "$P1" v7 ', "on_change": "restart"' | ctl update app - \
    >/dev/null 2>&1
check "orchctl update back to v7, on change restart" wait_for 15 \
    serving "$P1" v7

# -- updates are durable: a restart of orchd keeps them
stop_orchd
check "orchd stops" [ "$STATUS" = 0 ]
start_orchd_or_exit
check "app's definition after a restart is the last update's" \
    [ "$(field "$(get app)" command)" = "$T/bin/testhttp serve $P1 $T/run/v7" ]
check "... its on change too" [ "$(field "$(get app)" on_change)" = restart ]

# -- two gateways (prefork): each holds, and each says when it is done
stop_orchd
write_conf "prefork 2" c
start_orchd_or_exit
check "conf answers through either gateway" hello conf.test
load conf.test 5 "$T/load4" &
lp=$!
sleep 1
sps=
for i in 1 2 3 4; do
	slow conf.test 2000 "$T/slow4.$i" &
	sps="$sps $!"
done
sleep 0.3
t0=$(now_ms)
out=$(ctl restart conf 2>&1)
t1=$(now_ms)
check "orchctl restart under load with two gateways ($out)" \
    [ "$out" = "conf is running again" ]
wait $lp $sps
check "... slow ones in flight answered, whichever gateway had them" \
    [ "$(cat "$T/slow4.1" "$T/slow4.2" "$T/slow4.3" "$T/slow4.4" |
    tr -d '\n')" = 200200200200 ]
n=$(load_count "$T/load4")
f=$(load_failures "$T/load4")
check "... $n requests, none failed ($f)" [ "$f" = 0 ] && [ "$n" -gt 0 ]
# a gateway that never answered the hold would cost its 30 s bound
check "... both gateways answered the hold ($((t1 - t0)) ms)" \
    eval "[ $((t1 - t0)) -lt 25000 ] &&
    ! grep -q 'conf: requests still in flight after' \"\$T/orchd.log\""

# -- a container: a new image tag under load, replaced in place
if docker info >/dev/null 2>&1 &&
    sh "$(dirname "$0")/../docker-image.sh" 2>/dev/null; then
	DK=upd$$
	V2=orchd-test/busybox:upd$$
	trap 'docker rm -f "orchd-$E2E_INSTANCE-$DK" >/dev/null 2>&1; docker rmi "$V2" \
	    >/dev/null 2>&1; e2e_cleanup' EXIT
	docker tag orchd-test/busybox:latest "$V2"
	dk_body() {	# dk_body IMAGE
		printf '{"name": "%s", "hosts": ["%s.test"], ' "$DK" "$DK"
		printf '"driver": "docker", "image": "%s", ' "$1"
		printf '"network": "host", "port": %s, ' "$P1"
		printf '"command": "/bin/httpd -f -p 127.0.0.1:%s -h /etc", ' \
		    "$P1"
		printf '"health": "path", "health_path": "/hostname", '
		printf '"on_change": "restart"}'
	}
	dk_image() {
		docker inspect -f '{{.Config.Image}}' "orchd-$E2E_INSTANCE-$DK" 2>/dev/null
	}
	dk_ok() {
		[ "$(curl -s -m 20 -o /dev/null -w '%{http_code}' \
		    -H "Host: $DK.test" "$GWURL/hostname")" = 200 ]
	}
	out=$(apic POST /v1/workloads "$(dk_body orchd-test/busybox:latest)")
	check "a docker workload created ($(last "$out"))" \
	    [ "$(last "$out")" = 201 ]
	check "... answers" dk_ok
	load "$DK.test" 8 "$T/load3" /hostname &
	lp=$!
	sleep 1
	out=$(apic PUT "/v1/workloads/$DK" "$(dk_body "$V2")")
	check "PUT of a new image tag under load: 200 ($(last "$out"))" \
	    [ "$(last "$out")" = 200 ]
	check "... the container is the new image's" wait_for 30 \
	    eval "[ \"\$(dk_image)\" = '$V2' ]"
	check "... and runs" wait_for 30 eval "[ \"\$(docker inspect \
	    -f '{{.State.Running}}' orchd-$E2E_INSTANCE-$DK)\" = true ]"
	wait $lp
	n=$(load_count "$T/load3")
	f=$(load_failures "$T/load3")
	check "... $n requests, none failed ($f)" [ "$f" = 0 ] && [ "$n" -gt 0 ]
	check "... its history says replaced, new definition" history_has \
	    "$DK" 'running  *suspending  *replaced  *new definition'
	check "... no drift" [ "$(field "$(get "$DK")" drift)" = '[]' ]
	# adopted across a restart: only its hash label is known
	stop_orchd
	start_orchd_or_exit
	check "... adopted running after a restart of orchd" wait_for 15 \
	    eval "[ \"\$(field \"\$(get $DK)\" state)\" = running ]"
	check "... without drift" [ "$(field "$(get "$DK")" drift)" = '[]' ]
	out=$(apic PATCH "/v1/workloads/$DK" \
	    '{"image": "orchd-test/busybox:latest", "on_change": "next_wake"}')
	check "... PATCH of its image back, next wake: 200 ($(last "$out"))" \
	    [ "$(last "$out")" = 200 ]
	check "... drift: definition" \
	    [ "$(field "$(get "$DK")" drift)" = '["definition"]' ]
	check "... the container runs on" \
	    [ "$(dk_image)" = "$V2" ]
	out=$(ctl restart "$DK" 2>&1)
	check "... orchctl restart ($out)" [ "$out" = "$DK is running again" ]
	check "... the container is made anew from the image" \
	    [ "$(dk_image)" = orchd-test/busybox:latest ]
	check "... no drift" [ "$(field "$(get "$DK")" drift)" = '[]' ]
	check "... it answers" dk_ok
	apic DELETE "/v1/workloads/$DK" >/dev/null
else
	echo "# no Docker daemon or test image: the docker case is skipped"
fi

e2e_done
