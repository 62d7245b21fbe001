#!/bin/sh
# The HTTP API against the real daemons: every endpoint without a token,
# with a wrong one and with the right one; bad JSON, an oversized body,
# unknown fields, a duplicate and a bad name; create, routed, woken,
# deleted, then 404 and no longer routed; a workload made through the
# API that survives SIGHUP and a restart, and a reload that would clash
# with it refused; keepwarm, wake, suspend, logs, history; /metrics in
# the Prometheus text format, line by line; the key file's mode, and
# ORCHD_KEY; a guesser slowed down while proxying stays fast; the store
# stopped (503, Retry-After); a slow API client.  Every wait bounded.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports GW API P_CONF P_WEB P_KEEP P_WARM

KEY=e2e-key-$$-0123456789abcdef
mkdir -p "$T/log" "$T/bin"
cp "$BUILD/regress/testhttp" "$T/bin/testhttp"
# a workload that says something on its way up: its log
cat >"$T/bin/app.sh" <<EOF
#!/bin/sh
echo "line one of \$1"
echo "line two of \$1"
echo "output of \$1"
exec $T/bin/testhttp serve \$2
EOF
chmod 0755 "$T/bin" "$T/bin/testhttp" "$T/bin/app.sh"
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"

write_conf() {	# write_conf [EXTRA-GLOBAL-LINE]
	conf_head >"$T/orchd.conf"
	cat >>"$T/orchd.conf" <<CONF
wake timeout 10s
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api host "api.test"
api key file "$T/api.key"
# the API creates process workloads here
api allow process
$1

workload "conf" {
	host "conf.test"
	command "$T/bin/app.sh conf $P_CONF"
	port $P_CONF
}
CONF
}
write_conf

URL=http://127.0.0.1:$API
GWURL=http://127.0.0.1:$GW
# api [curl args...]: with the key, the body to stdout
api() {
	curl -sS -m 30 -H "Authorization: Bearer $KEY" "$@"
}
# code [curl args...]: the status alone
code() {
	curl -s -m 30 -o /dev/null -w '%{http_code}' "$@"
}
# field JSON NAME: one top-level field of a JSON object, as python prints it
field() {
	printf '%s' "$1" | python3 -c 'import json, sys
o = json.load(sys.stdin)
v = o.get(sys.argv[1])
print(json.dumps(v) if not isinstance(v, str) else v)' "$2" 2>/dev/null
}
names() {	# the names of the workloads listed
	api "$URL/v1/workloads" | python3 -c 'import json, sys
print(" ".join(w["name"] for w in json.load(sys.stdin)["workloads"]))'
}
listed() {	# listed NAME
	names | grep -qw "$1"
}
names_are() {	# names_are "A B C"
	[ "$(names)" = "$1" ]
}
has() {		# has TEXT PATTERN
	printf '%s' "$1" | grep -q -- "$2"
}
last() {	# the last line of TEXT: the status post() appends
	printf '%s\n' "$1" | tail -n 1
}
fields_are() {	# fields_are JSON NAME=VALUE...
	fj=$1
	shift
	for kv in "$@"; do
		fv=$(field "$fj" "${kv%%=*}")
		if [ "$fv" != "${kv#*=}" ]; then
			echo "  ${kv%%=*} is $fv"
			return 1
		fi
	done
}
rfc3339() {	# rfc3339 TEXT
	printf '%s' "$1" | grep -Eq \
	    '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$'
}
history_ends_waking_running() {	# history_ends_waking_running JSON
	printf '%s' "$1" | python3 -c 'import json, sys
h = json.load(sys.stdin)["history"]
assert [t["to"] for t in h][-2:] == ["waking", "running"], h
assert h[-2]["reason"] == "request", h
assert all(t["time"].endswith("Z") for t in h), h'
}
faster() {	# faster SECONDS LIMIT
	awk -v t="$1" -v l="$2" 'BEGIN { exit !(t < l) }'
}
slower() {	# slower SECONDS LIMIT
	awk -v t="$1" -v l="$2" 'BEGIN { exit !(t > l) }'
}
metrics_code() {	# metrics_code ADDRESS: /metrics without a token
	[ "$(curl -s -o /dev/null -w '%{http_code}' --interface "$1" \
	    "$URL/metrics")" = 200 ]
}
generation() {	# the configuration generation the gateway runs
	"$ORCHCTL" -s "$SOCK" show summary |
	    awk '$1 == "gateway" { print $NF }'
}
generation_past() {	# generation_past N
	[ "$(generation)" -gt "$1" ]
}
stopped() {	# stopped PORT: nothing answers there
	! curl -s -m 1 "http://127.0.0.1:$1/" >/dev/null
}
state_of() {	# state_of NAME STATE: through the API
	[ "$(field "$(api "$URL/v1/workloads/$1")" state)" = "$2" ]
}
routed() {	# routed HOST: the gateway proxies it
	[ "$(curl -s -m 20 -H "Host: $1" "$GWURL/")" = "hello from testhttp" ]
}
create_body() {	# create_body NAME PORT [MORE-JSON]
	printf '{"name": "%s", "hosts": ["%s.test"], "command": "%s %s %s", "port": %s, "idle_timeout": "10m"%s}' \
	    "$1" "$1" "$T/bin/app.sh" "$1" "$2" "$2" "${3:-}"
}

# -- the key file is checked before anything starts
chmod 0644 "$T/api.key"
"$ORCHD" -n -f "$T/orchd.conf" >"$T/mode.out" 2>&1
st=$?
check "an api key file readable by others is refused (status $st)" \
    [ "$st" -ne 0 ]
check "... saying so" grep -q "api key file $T/api.key is readable by others" \
    "$T/mode.out"
"$ORCHD" -d -f "$T/orchd.conf" >"$T/mode2.out" 2>&1 &
mp=$!
check "orchd does not start with it" wait_gone "$mp" 10
chmod 0600 "$T/api.key"

check "orchd starts" start_orchd

# -- authentication: every endpoint, from an address each, so that no
# address fails often enough to be slowed down
ENDPOINTS="GET:/v1/workloads POST:/v1/workloads GET:/v1/workloads/conf
DELETE:/v1/workloads/conf POST:/v1/workloads/conf/keepwarm
POST:/v1/workloads/conf/wake POST:/v1/workloads/conf/suspend
GET:/v1/workloads/conf/logs GET:/v1/workloads/conf/history GET:/metrics"
i=10
for e in $ENDPOINTS; do
	m=${e%%:*}
	p=${e#*:}
	i=$((i + 1))
	c=$(code -X "$m" --interface "127.0.0.$i" "$URL$p")
	check "$m $p without a token: 401 (got $c)" [ "$c" = 401 ]
	c=$(code -X "$m" --interface "127.0.1.$i" \
	    -H "Authorization: Bearer not-$KEY" "$URL$p")
	check "$m $p with a wrong token: 401 (got $c)" [ "$c" = 401 ]
done
curl -s -m 10 -D "$T/h401" -o /dev/null --interface 127.0.2.1 \
    "$URL/v1/workloads"
check "401 carries WWW-Authenticate: Bearer" \
    grep -qi '^WWW-Authenticate: Bearer' "$T/h401"
c=$(code -H "Authorization: Basic $KEY" --interface 127.0.2.2 \
    "$URL/v1/workloads")
check "another scheme is not a bearer token (got $c)" [ "$c" = 401 ]
c=$(code -H "Authorization: Bearer ${KEY}x" --interface 127.0.2.3 \
    "$URL/v1/workloads")
check "a token with the key as a prefix is refused (got $c)" [ "$c" = 401 ]

# -- with the token
out=$(api "$URL/v1/workloads")
check "GET /v1/workloads lists the configured workload" \
    [ "$(names)" = "conf" ]
c=$(code -H "Authorization: Bearer $KEY" -H 'Host: api.test' \
    "$GWURL/v1/workloads")
check "the API through the gateway's listener by api host (got $c)" \
    [ "$c" = 200 ]
c=$(code -H 'Host: api.test' "$GWURL/v1/workloads")
check "... with the key there too (got $c)" [ "$c" = 401 ]
c=$(code -H "Authorization: Bearer $KEY" "$URL/v1/nothing")
check "an unknown path: 404 (got $c)" [ "$c" = 404 ]
curl -s -m 10 -D "$T/h405" -o /dev/null -X PUT \
    -H "Authorization: Bearer $KEY" "$URL/v1/workloads"
check "a wrong method: 405 with Allow" \
    sh -c "grep -q '^HTTP/1.1 405' '$T/h405' &&
        grep -qi '^Allow: GET, POST' '$T/h405'"
c=$(code -H "Authorization: Bearer $KEY" "$URL/v1/workloads/nope")
check "GET an unknown workload: 404 (got $c)" [ "$c" = 404 ]
c=$(code -H "Authorization: Bearer $KEY" "$URL/v1/workloads/-bad")
check "a bad name in the path: 400 (got $c)" [ "$c" = 400 ]
out=$(api "$URL/v1/workloads/nope")
check "errors are JSON with an error field" \
    [ "$(field "$out" error)" = "no such workload" ]
out=$(api "$URL/v1/workloads/conf")
check "GET one: its fields" fields_are "$out" name=conf state=asleep \
    driver=process 'hosts=["conf.test"]' keep_warm=false idle_timeout=300 \
    last_seen=null started_at=null wakes=0 "port=$P_CONF" source=config

# -- creating: what is refused, and why
post() {	# post BODY: status and body
	curl -s -m 30 -H "Authorization: Bearer $KEY" -w '\n%{http_code}' \
	    -X POST --data-binary "$1" "$URL/v1/workloads"
}
out=$(post '{"name": "x", ')
check "bad JSON: 400" [ "$(last "$out")" = 400 ]
check "... saying it is not JSON" has "$out" '"error":"invalid JSON'
out=$(post '[1, 2]')
check "not an object: 400" [ "$(last "$out")" = 400 ]
out=$(post "$(create_body web1 "$P_WEB" ', "colour": "blue"')")
check "an unknown field: 400" [ "$(last "$out")" = 400 ]
check "... naming it" has "$out" 'unknown field .*colour'
out=$(post "$(create_body web1 "$P_WEB" ', "port": "high"')")
check "a duplicate field: 400" [ "$(last "$out")" = 400 ]
out=$(post '{"name": "web1", "hosts": ["web1.test"], "command": "/bin/true", "port": 70000}')
check "a bad field: 400" [ "$(last "$out")" = 400 ]
check "... naming it" has "$out" 'field .*port.*: must be'
out=$(post '{"name": "web1", "hosts": ["web1.test"], "command": "/bin/true", "port": 1, "idle_timeout": "10 parsecs"}')
check "a bad duration: 400 naming it" has "$out" 'idle_timeout'
out=$(post '{"name": "web1", "hosts": ["web1.test"], "port": 1}')
check "a process without a command: 400" [ "$(last "$out")" = 400 ]
out=$(post "$(create_body web1 "$P_WEB" ', "stop_signal": "SIGSTOP"')")
check "a bad stop signal: 400" [ "$(last "$out")" = 400 ]
check "... naming it" has "$out" 'stop_signal.*unknown signal'
out=$(post "$(create_body web1 "$P_WEB" ', "stop_timeout": "1h"')")
check "a stop timeout over 5m: 400 naming it" has "$out" 'stop_timeout'
out=$(post "$(create_body web1 "$P_WEB" ', "init": false')")
check "init for a process: 400" [ "$(last "$out")" = 400 ]
check "... saying why" has "$out" 'init is only for driver docker'
out=$(post '{"name": "bad name!", "hosts": ["b.test"], "command": "/bin/true", "port": 1}')
check "a bad name: 400" [ "$(last "$out")" = 400 ]
check "... saying so" has "$out" 'invalid name'
out=$(post '{"name": "conf", "hosts": ["other.test"], "command": "/bin/true", "port": 1}')
check "the name of a configured workload: 409" [ "$(last "$out")" = 409 ]
out=$(post '{"name": "other", "hosts": ["conf.test"], "command": "/bin/true", "port": 1}')
check "a host already routed: 409" [ "$(last "$out")" = 409 ]
out=$(post '{"name": "other", "hosts": ["api.test"], "command": "/bin/true", "port": 1}')
check "the api host: 409" [ "$(last "$out")" = 409 ]
head -c 1100000 /dev/zero | tr '\0' ' ' >"$T/big.json"
curl -s -m 30 -D "$T/h413" -o /dev/null -H "Authorization: Bearer $KEY" \
    -H 'Expect:' --data-binary "@$T/big.json" "$URL/v1/workloads"
check "a body over 1 MiB: 413, and the connection closed" \
    sh -c "grep -q '^HTTP/1.1 413' '$T/h413' &&
        grep -qi '^Connection: close' '$T/h413'"
c=$(code -H "Authorization: Bearer $KEY" -H 'Transfer-Encoding: chunked' \
    --data-binary "@$T/big.json" "$URL/v1/workloads")
check "a chunked body over 1 MiB: 413 (got $c)" [ "$c" = 413 ]
printf 'POST /v1/workloads HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer %s\r\nContent-Length: 99999999999\r\n\r\n' \
    "$KEY" | "$T/bin/testhttp" raw "$API" 3 >"$T/huge.out"
check "a huge Content-Length is answered 413 at once" \
    grep -q '^HTTP/1.1 413' "$T/huge.out"
# 80 clients at once, each sending 3 MB: every one reads its 413, none
# gets a reset (after the answer the gateway reads and discards the rest)
head -c 3000000 /dev/zero | tr '\0' ' ' >"$T/big3.json"
pids=
for i in $(seq 1 80); do
	curl -s -m 60 -o /dev/null -w '%{http_code}\n' \
	    -H "Authorization: Bearer $KEY" -H 'Expect:' \
	    --data-binary "@$T/big3.json" "$URL/v1/workloads" \
	    >"$T/par413.$i" 2>&1 &
	pids="$pids $!"
done
# shellcheck disable=SC2086
wait $pids
n=$(cat "$T"/par413.* | grep -c '^413$')
check "80 clients at once sending 3 MB all get the 413 ($n)" [ "$n" -eq 80 ]

# -- create, routed, woken, deleted
curl -s -m 30 -D "$T/h201" -o "$T/web1.json" \
    -H "Authorization: Bearer $KEY" -X POST \
    --data-binary "$(create_body web1 "$P_WEB")" "$URL/v1/workloads"
check "create: 201 with Location" sh -c "
    grep -q '^HTTP/1.1 201' '$T/h201' &&
    grep -qi '^Location: /v1/workloads/web1' '$T/h201'"
out=$(cat "$T/web1.json")
check "... answering the workload, asleep, idle timeout in seconds" \
    fields_are "$out" name=web1 state=asleep idle_timeout=600 source=api \
    wake_timeout=10 'hosts=["web1.test"]'
out=$(post "$(create_body web1 "$P_WEB")")
check "the same name again: 409" [ "$(last "$out")" = 409 ]
check "the new workload is routed and woken by a request" routed web1.test
out=$(api "$URL/v1/workloads/web1")
check "... and is running, with a wake" fields_are "$out" state=running \
    wakes=1
check "... started_at in RFC 3339 UTC" rfc3339 "$(field "$out" started_at)"
check "... last_seen in RFC 3339 UTC" rfc3339 "$(field "$out" last_seen)"
check "it is in the list" listed web1
out=$(api "$URL/v1/workloads/web1/history")
check "its history: waking, then running" history_ends_waking_running "$out"
out=$(api "$URL/v1/workloads/web1/logs")
check "its logs hold its output" has "$out" 'output of web1'
out=$(api "$URL/v1/workloads/web1/logs?tail=1")
check "?tail=1: only the last line" [ "$out" = "output of web1" ]
c=$(code -H "Authorization: Bearer $KEY" "$URL/v1/workloads/web1/logs?tail=x")
check "a bad tail: 400 (got $c)" [ "$c" = 400 ]
out=$(api -X POST "$URL/v1/workloads/web1/suspend")
check "suspend: asleep when answered" \
    [ "$(field "$out" state)" = asleep ]
out=$(api -X POST "$URL/v1/workloads/web1/wake")
check "wake: running when answered" [ "$(field "$out" state)" = running ]
c=$(code -H "Authorization: Bearer $KEY" -X POST \
    "$URL/v1/workloads/nope/wake")
check "wake an unknown workload: 404 (got $c)" [ "$c" = 404 ]
c=$(code -H "Authorization: Bearer $KEY" -X DELETE "$URL/v1/workloads/conf")
check "delete a configured workload: 409 (got $c)" [ "$c" = 409 ]
out=$(api -X DELETE "$URL/v1/workloads/web1")
check "delete: 200" [ "$(field "$out" deleted)" = true ]
c=$(code -H "Authorization: Bearer $KEY" "$URL/v1/workloads/web1")
check "then GET: 404 (got $c)" [ "$c" = 404 ]
c=$(code -H 'Host: web1.test' "$GWURL/")
check "and it is no longer routed (got $c)" [ "$c" = 404 ]
check "and it was stopped" wait_for 15 stopped "$P_WEB"
c=$(code -H "Authorization: Bearer $KEY" -X DELETE "$URL/v1/workloads/web1")
check "delete it again: 404 (got $c)" [ "$c" = 404 ]

# -- keepwarm
out=$(post "$(create_body warm1 "$P_WARM")")
check "create warm1" [ "$(last "$out")" = 201 ]
c=$(code -H "Authorization: Bearer $KEY" -X POST -d '{"enabled": 1}' \
    "$URL/v1/workloads/warm1/keepwarm")
check "keepwarm with a bad body: 400 (got $c)" [ "$c" = 400 ]
out=$(api -X POST -d '{"enabled": true}' "$URL/v1/workloads/warm1/keepwarm")
check "keepwarm true: reports keep_warm: true" \
    [ "$(field "$out" keep_warm)" = true ]
check "... and boots it" wait_for 15 state_of warm1 running
out=$(api "$URL/v1/workloads/warm1")
check "GET reports keep_warm: true" [ "$(field "$out" keep_warm)" = true ]
c=$(code -H "Authorization: Bearer $KEY" -X POST \
    "$URL/v1/workloads/warm1/suspend")
check "a kept-warm workload is not suspended: 409 (got $c)" [ "$c" = 409 ]

# -- it survives SIGHUP, and a restart
out=$(post "$(create_body keeper "$P_KEEP" \
    ', "stop_signal": "int", "stop_timeout": "1m"')")
check "create keeper, with a stop signal and timeout" \
    [ "$(last "$out")" = 201 ]
check "... answered as a name and seconds" fields_are "$(api \
    "$URL/v1/workloads/keeper")" stop_signal=SIGINT stop_timeout=60
gen=$(generation)
kill -HUP "$ORCHD_PID"
check "SIGHUP reloads" wait_for 10 generation_past "$gen"
check "after SIGHUP it is still there" listed keeper
check "... and routed" routed keeper.test
# a workload in the file with its name: the reload is refused
cp "$T/orchd.conf" "$T/orchd.conf.good"
cat >>"$T/orchd.conf" <<CONF
workload "keeper" {
	host "keeper2.test"
	command "/bin/true"
	port 1
}
CONF
"$ORCHCTL" -s "$SOCK" reload >"$T/reload.out" 2>&1
st=$?
check "a reload naming an API workload is refused (status $st)" [ "$st" -ne 0 ]
check "... saying why" grep -q \
    "workload keeper already exists (created through the API)" "$T/reload.out"
cp "$T/orchd.conf.good" "$T/orchd.conf"
check "keeper is still routed" routed keeper.test

stop_orchd; st=$STATUS
check "orchd stops (status $st)" [ "$st" -eq 0 ]
ORCHD_PID=
check "orchd starts again" start_orchd
check "after a restart the API's workloads are back" \
    names_are "conf keeper warm1"
check "... routed" routed keeper.test
check "... with their stop signal and timeout" fields_are "$(api \
    "$URL/v1/workloads/keeper")" stop_signal=SIGINT stop_timeout=60
check "... and kept warm ones woken" wait_for 15 state_of warm1 running

# -- metrics: public after a reload saying so, every line's shape checked
write_conf "api metrics public"
kill -HUP "$ORCHD_PID"
check "after the reload, /metrics needs no token" \
    wait_for 10 metrics_code 127.0.3.1
c=$(code --interface 127.0.3.2 "$URL/v1/workloads")
check "... but the rest still does (got $c)" [ "$c" = 401 ]
curl -s -m 10 -D "$T/hmetrics" -o "$T/metrics" "$URL/metrics"
check "/metrics is text/plain version 0.0.4" \
    grep -qi '^Content-Type: text/plain; version=0.0.4' "$T/hmetrics"
NAME='[a-zA-Z_:][a-zA-Z0-9_:]*'
LABEL='[a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*"'
NUM='(NaN|[+-]Inf|[-+]?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?)'
grep -Ev "^# HELP $NAME .*\$|^# TYPE $NAME (counter|gauge|histogram|summary|untyped)\$|^$NAME(\{$LABEL(,$LABEL)*\})? $NUM\$" \
    "$T/metrics" >"$T/badlines"
check "every line of /metrics is a HELP, a TYPE or a sample" \
    [ ! -s "$T/badlines" ]
[ -s "$T/badlines" ] && head -5 "$T/badlines"
check "every metric is named orchd_, but the processes' start, memory and CPU" \
    sh -c "! grep -v '^#' '$T/metrics' | grep -v '^process_start_time_seconds ' |
    grep -Ev '^process_(resident_memory_bytes|cpu_seconds_total)\{process=' |
    grep -qv '^orchd_'"
check "every sample's family has a TYPE" sh -c "
    for n in \$(grep -v '^#' '$T/metrics' | sed 's/[{ ].*//;s/_bucket\$//;s/_sum\$//;s/_count\$//' | sort -u); do
        grep -q \"^# TYPE \$n \" '$T/metrics' || exit 1
    done"
routed keeper.test
curl -s -m 10 -o "$T/metrics" "$URL/metrics"
for m in 'orchd_requests_total{workload="keeper",code="2xx"} [1-9]' \
    'orchd_wakes_total{workload="keeper"} [1-9]' \
    'orchd_wake_duration_seconds_count{workload="keeper"} [1-9]' \
    'orchd_wake_duration_seconds_bucket{workload="keeper",le="+Inf"} [1-9]' \
    'orchd_workload_state{workload="keeper",state="running"} 1' \
    'orchd_workload_state{workload="keeper",state="asleep"} 0' \
    'orchd_workload_asleep_seconds_total{workload="conf"} ' \
    'orchd_requests_in_flight{workload="conf"} 0' \
    'orchd_parked_requests{workload="conf"} 0' \
    'orchd_upstream_errors_total{workload="conf"} 0' \
    'orchd_wake_failures_total{workload="conf"} 0' \
    'orchd_open_connections [1-9]' \
    'orchd_api_auth_failures_total [1-9]'; do
	check "metrics: $m" grep -q "^$m" "$T/metrics"
done

# -- ORCHD_KEY overrides the file, and no child inherits it
stop_orchd
ORCHD_PID=
ORCHD_KEY=env-$KEY
export ORCHD_KEY
check "orchd starts with ORCHD_KEY" start_orchd
unset ORCHD_KEY
c=$(code -H "Authorization: Bearer env-$KEY" "$URL/v1/workloads")
check "ORCHD_KEY is the key (got $c)" [ "$c" = 200 ]
c=$(code -H "Authorization: Bearer $KEY" --interface 127.0.4.1 \
    "$URL/v1/workloads")
check "... and the file's is not (got $c)" [ "$c" = 401 ]
gw=$(child gateway)
check "the gateway's environment has no ORCHD_KEY" \
    sh -c "! tr '\0' '\n' </proc/$gw/environ | grep -q ORCHD_KEY"
KEY=env-$KEY

# -- a guesser is slowed down; proxying is not
for i in 1 2 3 4 5; do
	code -H 'Authorization: Bearer guess' --interface 127.0.5.1 \
	    "$URL/v1/workloads" >/dev/null
done
curl -s -m 30 -o /dev/null -w '%{time_total}' \
    -H 'Authorization: Bearer guess' --interface 127.0.5.1 \
    "$URL/v1/workloads" >"$T/slow.time" &
sp=$!
sleep 0.2
t=$(curl -s -m 10 -o /dev/null -w '%{time_total}' -H 'Host: conf.test' \
    "$GWURL/")
wait $sp
check "repeated wrong tokens are answered slower ($(cat "$T/slow.time")s)" \
    slower "$(cat "$T/slow.time")" 0.5
check "while proxying on another connection stays fast (${t}s)" \
    faster "$t" 0.5
c=$(code -H "Authorization: Bearer $KEY" --interface 127.0.6.1 \
    "$URL/v1/workloads")
check "another address is not slowed (got $c)" [ "$c" = 200 ]

# -- a slow API client holds only its own connection
(printf 'POST /v1/workloads HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer %s\r\nContent-Length: 100\r\n\r\n{"na' "$KEY"
    sleep 3) | "$T/bin/testhttp" raw "$API" 5 >/dev/null &
sp=$!
sleep 0.3
t=$(curl -s -m 10 -o /dev/null -w '%{time_total}' -H 'Host: conf.test' \
    "$GWURL/")
check "a half-sent API body does not slow proxying (${t}s)" faster "$t" 0.5
t=$(curl -s -m 10 -o /dev/null -w '%{time_total}' \
    -H "Authorization: Bearer $KEY" "$URL/v1/workloads")
check "... nor the API (${t}s)" faster "$t" 0.5
wait $sp

# -- the store stopped: 503 with Retry-After, proxying goes on
store=$(child store)
kill -STOP "$store"
curl -s -m 30 -D "$T/h503" -o /dev/null -H "Authorization: Bearer $KEY" \
    "$URL/v1/workloads"
check "the store stopped: 503 with Retry-After" \
    sh -c "grep -q '^HTTP/1.1 503' '$T/h503' &&
        grep -qi '^Retry-After: ' '$T/h503'"
check "... and proxying goes on" routed conf.test
out=$(post "$(create_body late "$((P_WARM + 1))")")
check "a create the store does not write: 503" [ "$(last "$out")" = 503 ]
kill -CONT "$store"
sleep 0.5
c=$(code -H "Authorization: Bearer $KEY" "$URL/v1/workloads/late")
check "... and it was not made (got $c)" [ "$c" = 404 ]
out=$(post "$(create_body late "$((P_WARM + 1))")")
check "once the store is back, it can be (201)" [ "$(last "$out")" = 201 ]

check "orchctl sees the API's workloads" \
    sh -c "'$ORCHCTL' -s '$SOCK' show workloads | grep -qw keeper"
check "orchd is still whole" sh -c "'$ORCHCTL' -s '$SOCK' show summary >/dev/null"
stop_orchd; st=$STATUS
check "orchd stops cleanly (status $st)" [ "$st" -eq 0 ]
ORCHD_PID=
e2e_done
