#!/bin/sh
# /metrics after known traffic, and /healthz, against the real daemons:
# requests for unknown hosts counted exactly; a workload's request
# duration histogram counting its answers, its bytes in and out at least
# the bodies sent; its memory once it stopped; the parent's start time;
# the reload gauge going to 0 after a bad reload and back to 1 after a
# good one; HEAD /metrics with the head of GET and no body; /healthz
# without the key, "ok" and nothing more, on the API listener and on an
# api host, HEAD too.  Every wait bounded.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports GW API P_APP
KEY=e2e-key-$$-0123456789abcdef
mkdir -p "$T/log" "$T/bin"
testhttp_bin
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"

write_conf() {	# write_conf [EXTRA-LINE]
	conf_head >"$T/orchd.conf"
	cat >>"$T/orchd.conf" <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
api host "api.test"
api allow process
$1

workload "app" {
	host "app.test"
	command "$T/bin/testhttp serve $P_APP"
	port $P_APP
}
CONF
}

metrics() {	# metrics: a fresh /metrics into $T/metrics
	curl -sS -m 30 -H "Authorization: Bearer $KEY" -o "$T/metrics" \
	    "http://127.0.0.1:$API/metrics"
}
metric() {	# metric NAME-AND-LABELS: its value in a fresh /metrics
	metrics
	awk -v m="$1" 'index($0, m " ") == 1 { print $2 }' "$T/metrics"
}
has_metric() {	# has_metric NAME-AND-LABELS
	[ -n "$(metric "$1")" ]
}
code() {	# code CURL-ARGS...: the status alone
	curl -s -m 30 -o /dev/null -w '%{http_code}' "$@"
}
# a number at least another (awk: the values may be floats)
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && a + 0 >= b + 0) }'; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && a + 0 <= b + 0) }'; }
between() { ge "$1" "$2" && le "$1" "$3"; }

write_conf
check "orchd -n accepts the configuration" "$ORCHD" -n -f "$T/orchd.conf"
t_start=$(date +%s)
start_orchd_or_exit

# -- /healthz: no key, "ok", text/plain; on an api host too; HEAD
curl -s -m 10 -D "$T/hh" -o "$T/hb" "http://127.0.0.1:$API/healthz"
check "GET /healthz without a key is 200" grep -q '^HTTP/1.1 200' "$T/hh"
check "... says ok and nothing more ($(head -c 40 "$T/hb"))" \
    [ "$(cat "$T/hb")" = ok ]
check "... as text/plain" grep -qi '^Content-Type: text/plain' "$T/hh"
c=$(code -H "Host: api.test" "http://127.0.0.1:$GW/healthz")
check "/healthz on an api host is 200 ($c)" [ "$c" = 200 ]
c=$(code -I "http://127.0.0.1:$API/healthz")
check "HEAD /healthz is 200 ($c)" [ "$c" = 200 ]
# (the app's answer: its first request, waking it)
c=$(code -H "Host: app.test" "http://127.0.0.1:$GW/healthz")
check "/healthz on a workload's host is the workload's ($c)" [ "$c" = 200 ]
c=$(code "http://127.0.0.1:$API/metrics")
check "... while /metrics still wants the key ($c)" [ "$c" = 401 ]

c=$(code -X POST "http://127.0.0.1:$API/healthz")
check "POST /healthz is 405, key or not ($c)" [ "$c" = 405 ]

# -- 3 requests for an unknown host: 3
before=$(metric orchd_requests_unknown_host_total)
check "orchd_requests_unknown_host_total starts at 0 (${before:-none})" \
    [ "$before" = 0 ]
i=0
while [ $i -lt 3 ]; do
	code -H "Host: nobody.test" "http://127.0.0.1:$GW/" >/dev/null
	i=$((i + 1))
done
v=$(metric orchd_requests_unknown_host_total)
check "3 requests for an unknown host: ${v:-none}" [ "$v" = 3 ]

# -- a workload's traffic: 2 x 100000 bytes out, 5000 in, 5 answers
head -c 5000 /dev/zero | tr '\0' x >"$T/body"
n200=0
for p in '/big?100000' '/big?100000' / /; do
	[ "$(code -H "Host: app.test" "http://127.0.0.1:$GW$p")" = 200 ] &&
	    n200=$((n200 + 1))
done
[ "$(code -H "Host: app.test" --data-binary "@$T/body" \
    "http://127.0.0.1:$GW/echo")" = 200 ] && n200=$((n200 + 1))
check "5 requests to app answered 200 ($n200)" [ "$n200" -eq 5 ]
# and its /healthz before: 6 answers
metrics
val() { awk -v m="$1" 'index($0, m " ") == 1 { print $2 }' "$T/metrics"; }
r2=$(val 'orchd_requests_total{workload="app",code="2xx"}')
hc=$(val 'orchd_request_duration_seconds_count{workload="app"}')
hi=$(val 'orchd_request_duration_seconds_bucket{workload="app",le="+Inf"}')
hs=$(val 'orchd_request_duration_seconds_sum{workload="app"}')
h60=$(val 'orchd_request_duration_seconds_bucket{workload="app",le="60"}')
check "requests_total 2xx is 6 (${r2:-none})" [ "$r2" = 6 ]
check "the duration histogram counts the 6 (${hc:-none}, +Inf ${hi:-none})" \
    [ "$hc" = 6 -a "$hi" = 6 ]
check "... all under a minute, a wake included (${h60:-none})" [ "$h60" = 6 ]
check "... its sum is above 0 and below 60 s (${hs:-none})" \
    sh -c "awk -v s='$hs' 'BEGIN { exit !(s > 0 && s < 60) }'"
nb=$(grep -c '^orchd_request_duration_seconds_bucket{workload="app",' \
    "$T/metrics")
check "15 buckets, +Inf included ($nb)" [ "$nb" -eq 15 ]
tx=$(val 'orchd_workload_sent_bytes_total{workload="app"}')
rx=$(val 'orchd_workload_received_bytes_total{workload="app"}')
check "sent bytes at least the bodies, 200040 (${tx:-none})" ge "$tx" 200040
check "... and not a lot more (${tx:-none} <= 210000)" le "$tx" 210000
check "received bytes at least the 5000-byte body (${rx:-none})" ge "$rx" 5000
check "... and not a lot more (${rx:-none} <= 7000)" le "$rx" 7000
ub=$(val orchd_requests_unknown_host_total)
check "... the unknown hosts' requests are nobody's (still ${ub:-none})" \
    [ "$ub" = 3 ]

# -- the parent's start time
st=$(val process_start_time_seconds)
check "process_start_time_seconds is orchd's start (${st:-none}, $t_start)" \
    between "$st" $((t_start - 5)) $(($(date +%s) + 1))
check "... with a HELP and a TYPE" \
    grep -q '^# TYPE process_start_time_seconds gauge' "$T/metrics"

# -- HEAD /metrics: the head of GET, no body
python3 - "$API" "$KEY" >"$T/head.out" <<'EOF'
import socket, sys
port, key = int(sys.argv[1]), sys.argv[2]
def ask(method):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(("%s /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
               "%s\r\nConnection: close\r\n\r\n" % (method, key)).encode())
    data = b""
    while True:
        b = s.recv(65536)
        if not b:
            break
        data += b
    s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    fields = dict(l.split(": ", 1) for l in lines[1:])
    return lines[0], fields, body
gs, gf, gb = ask("GET")
hs, hf, hb = ask("HEAD")
print("status", gs == hs, hs)
print("names", sorted(gf) == sorted(hf), sorted(hf))
print("type", gf.get("Content-Type") == hf.get("Content-Type"))
print("length", int(hf.get("Content-Length", "0")) > 1000)
print("body", len(hb))
EOF
cat "$T/head.out"
check "HEAD /metrics: the status of GET" grep -q '^status True HTTP/1.1 200' \
    "$T/head.out"
check "... the same header fields" grep -q '^names True' "$T/head.out"
check "... the same Content-Type" grep -q '^type True' "$T/head.out"
check "... a Content-Length of the body it would be" \
    grep -q '^length True' "$T/head.out"
check "... and no body" grep -q '^body 0$' "$T/head.out"

# -- the reload gauge: 1, 0 after a bad reload, 1 again after a good one
ok1=$(metric orchd_config_last_reload_successful)
ts1=$(metric orchd_config_last_reload_success_timestamp_seconds)
check "orchd_config_last_reload_successful is 1 at start (${ok1:-none})" \
    [ "$ok1" = 1 ]
check "... its time the start's (${ts1:-none})" \
    between "$ts1" $((t_start - 5)) "$(date +%s)"
sleep 1.2
echo "this is not orchd.conf" >>"$T/orchd.conf"
"$ORCHCTL" -s "$SOCK" reload >/dev/null 2>&1
check "a bad reload flips it to 0" \
    wait_for 10 sh -c "curl -s -m 5 -H 'Authorization: Bearer $KEY' \
    http://127.0.0.1:$API/metrics | grep -q '^orchd_config_last_reload_successful 0$'"
ts2=$(metric orchd_config_last_reload_success_timestamp_seconds)
check "... and leaves the success time (${ts2:-none} = ${ts1:-none})" \
    [ "$ts2" = "$ts1" ]
# a workload made through the API is no load of the file
P_MADE=$(free_port $((P_APP + 1)))
c=$(curl -s -m 30 -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $KEY" \
    -X POST --data-binary "{\"name\": \"made\", \"hosts\": [\"made.test\"],
    \"command\": \"$T/bin/testhttp serve $P_MADE\", \"port\": $P_MADE}" \
    "http://127.0.0.1:$API/v1/workloads")
check "a workload made through the API meanwhile ($c)" [ "$c" = 201 ]
v=$(metric orchd_config_last_reload_successful)
ts2=$(metric orchd_config_last_reload_success_timestamp_seconds)
check "... leaves the gauge at 0 (${v:-none}) and the time (${ts2:-none})" \
    [ "$v" = 0 -a "$ts2" = "$ts1" ]
write_conf "# reloaded"
"$ORCHCTL" -s "$SOCK" reload >/dev/null 2>&1
check "a good reload flips it back to 1" \
    wait_for 10 sh -c "curl -s -m 5 -H 'Authorization: Bearer $KEY' \
    http://127.0.0.1:$API/metrics | grep -q '^orchd_config_last_reload_successful 1$'"
ts3=$(metric orchd_config_last_reload_success_timestamp_seconds)
check "... with a later success time (${ts3:-none} > ${ts1:-none})" \
    ge "$ts3" "$((ts1 + 1))"
v=$(metric 'orchd_request_duration_seconds_count{workload="app"}')
check "the reload keeps the workload's counts (${v:-none})" [ "$v" = 6 ]

# -- memory: none before the workload stopped, measured at its stop
check "no memory sample before a stop" \
    sh -c "! grep -q '^orchd_workload_memory_bytes{workload=\"app\"}' \
    '$T/metrics'"
"$ORCHCTL" -s "$SOCK" suspend app >/dev/null 2>&1
check "after a suspend, orchd_workload_memory_bytes{workload=\"app\"}" \
    wait_for 10 has_metric 'orchd_workload_memory_bytes{workload="app"}'
m=$(metric 'orchd_workload_memory_bytes{workload="app"}')
check "... is above 100 KiB and below 1 GiB (${m:-none})" \
    between "$m" 102400 1073741824

# -- every line is still a HELP, a TYPE or a sample
NAME='[a-zA-Z_:][a-zA-Z0-9_:]*'
LABEL='[a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*"'
NUM='(NaN|[+-]Inf|[-+]?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?)'
grep -Ev "^# HELP $NAME .*\$|^# TYPE $NAME (counter|gauge|histogram|summary|untyped)\$|^$NAME(\{$LABEL(,$LABEL)*\})? $NUM\$" \
    "$T/metrics" >"$T/badlines"
check "every line of /metrics is a HELP, a TYPE or a sample" \
    [ ! -s "$T/badlines" ]
head -5 "$T/badlines"

e2e_done
