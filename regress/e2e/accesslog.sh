#!/bin/sh
# accesslog: the access log and the workloads' log files.  A line per
# request with the right fields, in the combined format and in JSON:
# requests routed, for an unknown host, to the API and malformed ones;
# a WebSocket's line when it closes, with the tunnel's bytes and time;
# the wait for a wake on the first request after a sleep, and none on
# the next; the bytes each way.  The protocol: HTTP/1.0, HTTP/1.1, and
# HTTP/2.0 for the streams of curl --http2 on a TLS listener, with the
# real client's address.  Ignored requests (ignore path) answered by
# orchd while app sleeps: a line each, two on one connection.  logrotate's rename, then SIGUSR1 and
# then orchctl log reopen: new lines in the new file, the access log's
# and a workload's (one that opens /dev/stdout, too).  A file that
# cannot be opened stops the start and refuses a reload, the old file
# kept.  log max size caps a workload's log: NAME.log and NAME.log.1,
# each at most the cap, cut at a line's end, the last line kept.  With
# prefork 2, a burst of 500 requests at once, long lines: every line
# whole, none lost, none dropped.  The shipped logrotate file, run by
# logrotate if it is there.  access log syslog: a message a line, to a
# /dev/log of the test's in a mount namespace.  Every wait bounded.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

base=$((20000 + $$ % 12000))
GW=$(free_port "$base")
API=$(free_port $((GW + 1)))
P_APP=$(free_port $((API + 1)))
P_CHATTY=$(free_port $((P_APP + 1)))
TLS=$(free_port $((P_CHATTY + 1)))
KEY=e2e-key-$$-0123456789abcdef
PYTHON=/usr/bin/python3
ALOG=$T/log/access.log
CAP=8192

mkdir -p "$T/log" "$T/bin"
cp "$BUILD/regress/testhttp" "$T/bin/testhttp"
: >"$T/app.starts"
chmod 0755 "$T/bin" "$T/bin/testhttp"
chmod 0666 "$T/app.starts"
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
# 400 numbered lines of 64 bytes at each start, 25 KiB: over the cap
cat >"$T/bin/chatty.sh" <<EOF
#!/bin/sh
i=1000
while [ \$i -lt 1400 ]; do
	echo "chatty line \$i ................................................"
	i=\$((i + 1))
done
exec $T/bin/testhttp serve $P_CHATTY
EOF
chmod 0755 "$T/bin/chatty.sh"

# a TLS listener for HTTP/2 (ALPN h2), where openssl and curl can
TLSLINE=
if command -v openssl >/dev/null 2>&1 && curl -V | grep -qw HTTP2; then
	mkdir -p "$T/pki"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
	    -nodes -keyout "$T/pki/key.pem" -out "$T/pki/cert.pem" -days 2 \
	    -subj "/CN=app.test" \
	    -addext "subjectAltName=DNS:app.test,DNS:a.test" \
	    2>/dev/null && chmod 0600 "$T/pki/key.pem" &&
	    TLSLINE="listen on 127.0.0.1 port $TLS tls certificate \
\"$T/pki/cert.pem\" key \"$T/pki/key.pem\""
fi

# a line of the log, either format, as tab-separated fields:
# OK client time method target protocol status in out duration workload
# wake host referer agent ("-" for none), or BAD and the line
cat >"$T/alog.py" <<'EOF'
import datetime, json, re, sys

Q = r'"((?:[^"\\]|\\.)*)"'
COMBINED = re.compile(r'^(\S+) - - \[([^\]]+)\] (?:"(\S+) (\S+) (HTTP/1\.[01]|HTTP/2\.0)"|"-") '
    r'(\d{3}) (\d+) ' + Q + ' ' + Q + ' ' + Q +
    r' (\d+) (\d+\.\d{3}) (\S+) (-|\d+\.\d{3})$')
UNQ = re.compile(r'\\(["\\])')

def unq(s, present):
    return UNQ.sub(r'\1', s) if present else '-'

def combined(line):
    m = COMBINED.match(line)
    if m is None:
        return None
    g = m.groups()
    datetime.datetime.strptime(g[1], '%d/%b/%Y:%H:%M:%S +0000')
    # "-" quoted is an absent field: the test never sends a lone "-"
    q = [unq(x, x != '-') for x in g[7:10]]
    return [g[0], g[1], g[2] or '-', g[3] or '-', g[4] or '-', g[5], g[10],
        g[6], g[11], g[12], g[13], q[2], q[0], q[1]]

KEYS = ['time', 'client', 'host', 'method', 'target', 'protocol', 'status',
    'bytes_in', 'bytes_out', 'duration', 'workload', 'wake', 'referer',
    'user_agent']

def js(line):
    o = json.loads(line)
    if sorted(o) != sorted(KEYS):
        return None
    datetime.datetime.strptime(o['time'], '%Y-%m-%dT%H:%M:%S.%fZ')
    for k in ('status', 'bytes_in', 'bytes_out'):
        if not isinstance(o[k], int):
            return None
    for k in ('duration',):
        if not isinstance(o[k], (int, float)):
            return None
    if o['wake'] is not None and not isinstance(o['wake'], (int, float)):
        return None
    v = lambda k: '-' if o[k] is None else str(o[k])
    d = lambda k: '-' if o[k] is None else '%.3f' % o[k]
    return [v('client'), v('time'), v('method'), v('target'),
        v('protocol'), v('status'), v('bytes_in'), v('bytes_out'),
        d('duration'), v('workload'), d('wake'), v('host'), v('referer'),
        v('user_agent')]

for raw in open(sys.argv[1], 'rb'):
    line = raw.decode('ascii', 'replace').rstrip('\n')
    try:
        f = js(line) if line.startswith('{') else combined(line)
    except (ValueError, KeyError):
        f = None
    print('BAD\t' + line if f is None else 'OK\t' + '\t'.join(f))
EOF

fields() {	# fields FILE: its lines, parsed, to $T/fields
	$PYTHON "$T/alog.py" "$1" >"$T/fields"
}
# the Nth field (1: OK) of the last line whose target is $1
last_for() {	# last_for TARGET N
	fields "$ALOG"
	awk -F '\t' -v t="$1" -v n="$2" '$5 == t { v = $n } END { print v }' \
	    "$T/fields"
}
logged() {	# logged TARGET [FILE]: a line for it is in the file
	grep -Fq " $1 " "${2:-$ALOG}" || grep -Fq "\"target\":\"$1\"" \
	    "${2:-$ALOG}"
}
get() {		# get PATH [curl args]: app's answer's status
	p=$1
	shift
	geth app.test "$p" "$@"
}
geth() {	# geth HOST PATH [curl args]: the status
	h=$1
	p=$2
	shift 2
	curl -s -m 30 -o /dev/null -w '%{http_code}\n' -H "Host: $h" \
	    "$@" "http://127.0.0.1:$GW$p"
}
tget() {	# tget PATH [curl args]: status and HTTP version, over TLS
	p=$1
	shift
	curl -s -m 30 --cacert "$T/pki/cert.pem" -o /dev/null \
	    --resolve "app.test:$TLS:127.0.0.1" \
	    -w '%{http_code} %{http_version}\n' "$@" "https://app.test:$TLS$p"
}
ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
is_state() {	# is_state NAME STATE
	ctl show workloads | grep -Eq "^$1 +$2 "
}
metric() {	# metric NAME: its value in a fresh /metrics
	curl -sS -m 30 -H "Authorization: Bearer $KEY" \
	    "http://127.0.0.1:$API/metrics" | awk -v m="$1" \
	    'index($0, m " ") == 1 { print $2 }'
}
# the access log's lines dropped, for any reason (buffer, held)
drops() {
	curl -sS -m 30 -H "Authorization: Bearer $KEY" \
	    "http://127.0.0.1:$API/metrics" | awk '
	    index($0, "orchd_access_log_dropped_total{") == 1 { n += $2; m++ }
	    END { if (m == 2) print n }'
}

write_conf() {	# write_conf PREFORK FORMAT [ACCESS-LOG-LINE]
	conf_head >"$T/orchd.conf"
	cat >>"$T/orchd.conf" <<CONF
${3:-access log \"$ALOG\"}
access log format $2
log max size $CAP
prefork $1
idle timeout 1h
reaper interval 1s
ignore path "/up*" answer 200
listen on 127.0.0.1 port $GW
$TLSLINE
api listen on 127.0.0.1 port $API
api key file "$T/api.key"

workload "app" {
	host "app.test"
	command "$T/bin/testhttp serve $P_APP $T/app.starts /dev/stdout"
	port $P_APP
}
workload "chatty" {
	host "chatty.test"
	command "$T/bin/chatty.sh"
	port $P_CHATTY
}
CONF
}

# -- a file that cannot be opened: no start
write_conf 1 combined "access log \"$T/no/such/dir/access.log\""
check "orchd -n does not open the file" "$ORCHD" -n -f "$T/orchd.conf"
"$ORCHD" -d -f "$T/orchd.conf" >"$T/nostart.log" 2>&1 &
p=$!
wait_gone "$p" 10 || kill -KILL "$p" 2>/dev/null
wait "$p"
st=$?
check "orchd does not start without its access log (status $st)" \
    [ "$st" -ne 0 ]
check "and says why: $(grep 'access log' "$T/nostart.log" | head -n 1)" \
    grep -q "access log: log directory $T/no/such/dir: No such file" \
    "$T/nostart.log"

# -- the combined format
write_conf 1 combined
"$ORCHD" -nv -f "$T/orchd.conf" >"$T/nv.out" 2>&1
check "orchd -nv prints the access log" grep -qx "access log \"$ALOG\"" \
    "$T/nv.out"
check "... its format" grep -qx "access log format combined" "$T/nv.out"
check "... and log max size" grep -qx "log max size 8K" "$T/nv.out"
start_orchd_or_exit
check "the access log is made, mode 0640, root's" \
    [ "$(stat -c '%a %u' "$ALOG" 2>/dev/null)" = "640 0" ]

# the first request wakes app, held; the second is not
check "a request with Referer and User-Agent wakes app: 200" [ "$(get \
    '/first?a=1&b=%22' -e 'http://ref.test/x' -A 'agent "quoted" \ 1')" = 200 ]
check "and another: 200" [ "$(get /second)" = 200 ]
check "its lines come within 2 s" wait_for 4 logged /second
fields "$ALOG"
cat "$T/fields"
check "every line parses" sh -c "! grep -q '^BAD' '$T/fields'"
f=$(awk -F '\t' '$5 == "/first?a=1&b=%22"' "$T/fields")
fld() { echo "$f" | cut -f "$1"; }
check "client 127.0.0.1" [ "$(fld 2)" = 127.0.0.1 ]
check "method GET, HTTP/1.1" [ "$(fld 4) $(fld 6)" = "GET HTTP/1.1" ]
check "status 200" [ "$(fld 7)" = 200 ]
check "the host, app.test" [ "$(fld 13)" = app.test ]
check "the workload, app" [ "$(fld 11)" = app ]
check "the referer" [ "$(fld 14)" = http://ref.test/x ]
check "the user agent, its quote and backslash escaped: $(fld 15)" \
    [ "$(fld 15)" = 'agent "quoted" \ 1' ]
check "... as \\\" and \\\\ in the file" \
    grep -Fq '"agent \"quoted\" \\ 1"' "$ALOG"
check "bytes in: its head ($(fld 8))" [ "$(fld 8)" -ge 100 ]
check "bytes out: the answer, head and 20-byte body ($(fld 9))" \
    [ "$(fld 9)" -ge 50 ]
check "the wake it waited for is marked ($(fld 12) s)" \
    sh -c "[ '$(fld 12)' != - ]"
check "and is at most its duration ($(fld 10) s)" $PYTHON -c \
    "import sys; sys.exit(not 0 <= float('$(fld 12)') <= float('$(fld 10)'))"
f=$(awk -F '\t' '$5 == "/second"' "$T/fields")
check "the next request is not marked ($(fld 12))" [ "$(fld 12)" = - ]

# the protocol: HTTP/1.0, and HTTP/2 streams through their pseudo-connections
check "an HTTP/1.0 request: 200" [ "$(get /http10 --http1.0)" = 200 ]
check "its line says HTTP/1.0" wait_for 4 grep -Fq '"GET /http10 HTTP/1.0" 200 ' \
    "$ALOG"
if [ -n "$TLSLINE" ]; then
	out=$(tget /h2-one --http2 -A 'h2 agent' -e http://ref.test/h2)
	check "curl --http2 over TLS: 200 on HTTP/2 ($out)" [ "$out" = "200 2" ]
	out=$(tget /h2-two --http2 -o /dev/null \
	    "https://app.test:$TLS/h2-three" | xargs)
	check "two streams on one connection: 200 2 200 2 ($out)" \
	    [ "$out" = "200 2 200 2" ]
	out=$(tget /h11-tls --http1.1)
	check "HTTP/1.1 on the same TLS listener ($out)" [ "$out" = "200 1.1" ]
	check "their lines come" wait_for 4 logged /h11-tls
	check "... and the streams'" wait_for 4 logged /h2-three
	fields "$ALOG"
	check "every line parses" sh -c "! grep -q '^BAD' '$T/fields'"
	f=$(awk -F '\t' '$5 == "/h2-one"' "$T/fields")
	check "an h2 stream's line says HTTP/2.0, as nginx's does" \
	    [ "$(fld 4) $(fld 6) $(fld 7)" = "GET HTTP/2.0 200" ]
	check "... its client is the client's, 127.0.0.1, copied to its stream" \
	    [ "$(fld 2)" = 127.0.0.1 ]
	check "... host, workload, referer and agent: $(fld 13) $(fld 11)" \
	    [ "$(fld 13) $(fld 11) $(fld 14) $(fld 15)" = \
	    "app.test app http://ref.test/h2 h2 agent" ]
	check "... bytes each way ($(fld 8) in, $(fld 9) out)" \
	    [ "$(fld 8)" -gt 0 -a "$(fld 9)" -ge 20 ]
	# its head went out as HEADERS: counted as HTTP/1.1 would write it
	check "... bytes out: the head too, not the 20-byte body alone" \
	    [ "$(fld 9)" -ge 50 ]
	check "... in the file as \"GET /h2-one HTTP/2.0\" 200" \
	    grep -Fq '"GET /h2-one HTTP/2.0" 200 ' "$ALOG"
	n=$(awk -F '\t' '($5 == "/h2-two" || $5 == "/h2-three") &&
	    $6 == "HTTP/2.0" && $7 == 200 && $2 == "127.0.0.1"' "$T/fields" |
	    wc -l)
	check "two streams of one connection: a line each ($n)" [ "$n" -eq 2 ]
	f=$(awk -F '\t' '$5 == "/h11-tls"' "$T/fields")
	check "HTTP/1.1 over TLS says HTTP/1.1" [ "$(fld 6) $(fld 7)" = \
	    "HTTP/1.1 200" ]
else
	echo "# no openssl, or curl without HTTP/2: HTTP/2 is not run"
fi

# bodies both ways: a 3000-byte POST, a 5000-byte answer
head -c 3000 /dev/zero | tr '\0' x >"$T/body"
check "a POST of 3000 bytes: 200" \
    [ "$(get /echo -X POST --data-binary @"$T/body")" = 200 ]
check "a GET of 5000 bytes: 200" [ "$(get '/big?5000')" = 200 ]
check "their lines come" wait_for 4 logged '/big?5000'
n=$(last_for /echo 8)
check "bytes in of the POST: head and body, 3000 to 3300 ($n)" \
    [ "$n" -ge 3000 -a "$n" -le 3300 ]
n=$(last_for '/big?5000' 9)
check "bytes out of the GET: 5000 to 5300 ($n)" \
    [ "$n" -ge 5000 -a "$n" -le 5300 ]

# an unknown host, the API, a malformed request
c=$(geth nobody.test /nowhere)
check "an unknown host: 404 ($c)" [ "$c" = 404 ]
c=$(curl -s -m 30 -o /dev/null -w '%{http_code}' -H "Authorization: \
Bearer $KEY" "http://127.0.0.1:$API/v1/workloads")
check "the API: 200 ($c)" [ "$c" = 200 ]
printf 'GET /bad path HTTP/1.1\r\nHost: app.test\r\n\r\n' |
    "$BUILD/regress/testhttp" raw "$GW" 2 >"$T/bad.out"
check "a malformed request: 400" grep -q '^HTTP/1.1 400' "$T/bad.out"
check "their lines come" wait_for 4 logged /v1/workloads
check "... the malformed one's too" wait_for 4 grep -q '"-" 400 ' "$ALOG"
fields "$ALOG"
check "every line parses" sh -c "! grep -q '^BAD' '$T/fields'"
f=$(awk -F '\t' '$5 == "/nowhere"' "$T/fields")
check "unknown host: status 404, host nobody.test, no workload" \
    [ "$(fld 7) $(fld 13) $(fld 11)" = "404 nobody.test -" ]
f=$(awk -F '\t' '$5 == "/v1/workloads"' "$T/fields")
check "the API: 200, no workload" [ "$(fld 7) $(fld 11)" = "200 -" ]
f=$(awk -F '\t' '$7 == "400"' "$T/fields" | tail -n 1)
check "malformed: 400, no request, some bytes in ($(fld 8))" \
    [ "$(fld 4) $(fld 11)" = "- -" -a "$(fld 8)" -gt 0 ]
check "the bearer key is never in the log" sh -c "! grep -q '$KEY' '$ALOG'"

# a WebSocket: its line when it closes, with every byte of the tunnel
UPGRADE='GET /ws HTTP/1.1\r\nHost: app.test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n'
(printf "$UPGRADE"; printf '0123456789'; sleep 1; printf '0123456789') |
    "$BUILD/regress/testhttp" raw "$GW" 3 >"$T/ws.out"
check "a WebSocket: 101, echoed" grep -q '0123456789' "$T/ws.out"
check "its line comes once it closes" wait_for 4 logged /ws
n=$(last_for /ws 8)
m=$(last_for /ws 9)
check "status 101, in: its 149-byte head and 20 bytes ($n), out: ($m)" \
    [ "$(last_for /ws 7)" = 101 -a "$n" -eq 169 -a "$m" -ge 60 ]
check "its duration is the tunnel's, a second or more ($(last_for /ws 10))" \
    $PYTHON -c "import sys; sys.exit(float('$(last_for /ws 10)') < 1)"

# -- log max size: chatty said 400 lines of 64 bytes at its start
check "chatty wakes: 200" [ "$(geth chatty.test /)" = 200 ]
check "its last line is in its log" \
    wait_for 5 grep -q 'chatty line 1399' "$T/log/chatty.log"
s0=$(stat -c %s "$T/log/chatty.log")
s1=$(stat -c %s "$T/log/chatty.log.1" 2>/dev/null || echo none)
check "chatty.log is at most $CAP bytes ($s0)" [ "$s0" -le "$CAP" ]
check "chatty.log.1 is at most $CAP bytes ($s1)" \
    [ "$s1" != none ] && [ "$s1" -le "$CAP" ] && [ "$s1" -gt $((CAP / 2)) ]
check "no chatty.log.2" [ ! -e "$T/log/chatty.log.2" ]
check "both end at a line's end" sh -c "[ \"\$(tail -c 1 '$T/log/chatty.log' |
    od -An -c | tr -d ' ')\" = '\\n' ] && [ \"\$(tail -c 1 \
    '$T/log/chatty.log.1' | od -An -c | tr -d ' ')\" = '\\n' ]"
check "chatty.log.1 goes on in chatty.log, line after line" sh -c "
    a=\$(tail -n 1 '$T/log/chatty.log.1' | cut -d' ' -f3)
    b=\$(head -n 1 '$T/log/chatty.log' | cut -d' ' -f3)
    [ \$((a + 1)) -eq \"\$b\" ]"
check "every line whole" sh -c "! cat '$T/log/chatty.log.1' \
    '$T/log/chatty.log' | grep -Ev '^chatty line [0-9]{4} \\.{48}\$'"
check "chatty.log is chatty's uid's" \
    [ "$(stat -c %u "$T/log/chatty.log")" -ne 0 ]

# -- logrotate: rename, then SIGUSR1; rename, then orchctl log reopen
check "app logs its requests through /dev/stdout" \
    wait_for 4 grep -q '^GET /second$' "$T/log/app.log"
mv "$ALOG" "$ALOG.1"
mv "$T/log/app.log" "$T/log/app.log.1"
check "after a rename: 200" [ "$(get /before-usr1)" = 200 ]
check "... its line goes to the renamed file" wait_for 4 logged /before-usr1 \
    "$ALOG.1"
check "... and app's to its renamed file" \
    wait_for 4 grep -q '^GET /before-usr1$' "$T/log/app.log.1"
kill -USR1 "$ORCHD_PID"
check "SIGUSR1 reopens (the log says so)" \
    wait_for 5 grep -q 'log files reopened' "$T/orchd.log"
check "a new access log is made" [ -f "$ALOG" ]
check "after SIGUSR1: 200" [ "$(get /after-usr1)" = 200 ]
check "... its line goes to the new file" wait_for 4 logged /after-usr1
check "... not to the old one" sh -c "! grep -q after-usr1 '$ALOG.1'"
check "... and app's to a new app.log" \
    wait_for 4 grep -q '^GET /after-usr1$' "$T/log/app.log"
check "... still app's uid's" \
    [ "$(stat -c %u "$T/log/app.log")" = "$(stat -c %u "$T/log/app.log.1")" ]
check "orchd is still running" alive "$ORCHD_PID"
mv "$ALOG" "$ALOG.2"
check "after another rename: 200" [ "$(get /before-reopen)" = 200 ]
check "... its line goes to the renamed file" \
    wait_for 4 logged /before-reopen "$ALOG.2"
out=$(ctl log reopen 2>&1)
check "orchctl log reopen: $out" [ "$out" = "command succeeded" ]
check "after orchctl log reopen: 200" [ "$(get /after-reopen)" = 200 ]
check "... its line goes to the new file" wait_for 4 logged /after-reopen
check "... not to the old one" sh -c "! grep -q after-reopen '$ALOG.2'"
out=$(ctl -j log reopen 2>&1)
check "orchctl -j log reopen: $out" \
    sh -c "echo '$out' | $PYTHON -c 'import json, sys;
sys.exit(json.load(sys.stdin) != {\"result\": \"ok\"})'"

# -- JSON, by a reload; a reload to a file that cannot be opened
write_conf 1 json
check "reload: JSON" ctl reload
check "app is suspended" ctl suspend app
out=$(curl -s -m 30 -o /dev/null -o /dev/null -w '%{http_code} ' \
    -H "Host: app.test" "http://127.0.0.1:$GW/up-one" \
    "http://127.0.0.1:$GW/up-two")
check "two ignored requests on one connection, answered by orchd: $out" \
    [ "$out" = "200 200 " ]
check "app still sleeps" is_state app asleep
check "a request after the sleep: 200" [ "$(get /json-first -A 'json "a"')" = 200 ]
check "and the next: 200" [ "$(get /json-second)" = 200 ]
c=$(geth nobody.test /json-nowhere)
check "an unknown host: $c" [ "$c" = 404 ]
check "their lines come" wait_for 4 logged /json-nowhere
grep '^{' "$ALOG" >"$T/json.log"
fields "$T/json.log"
n=$(grep -c '^OK' "$T/fields")
bad=$(grep -c '^BAD' "$T/fields")
check "JSON lines: objects of the 14 fields ($n, and $bad not)" \
    [ "$n" -ge 3 -a "$bad" -eq 0 ]
f=$(awk -F '\t' '$5 == "/json-first"' "$T/fields")
check "the first after the sleep: 200, app, a wake ($(fld 12))" \
    [ "$(fld 7) $(fld 11)" = "200 app" -a "$(fld 12)" != - ]
check "its user agent, the quote escaped" [ "$(fld 15)" = 'json "a"' ]
f=$(awk -F '\t' '$5 == "/json-second"' "$T/fields")
check "the next: no wake (null)" [ "$(fld 12)" = - ]
check "... as null in the file" grep -q '"target":"/json-second".*"wake":null' \
    "$ALOG"
f=$(awk -F '\t' '$5 == "/json-nowhere"' "$T/fields")
check "unknown host: 404, workload null" [ "$(fld 7) $(fld 11)" = "404 -" ]
for u in /up-one /up-two; do
	f=$(awk -F '\t' -v t=$u '$5 == t' "$T/fields")
	check "ignored $u: its own line, 200, app, no wake" \
	    [ "$(fld 7) $(fld 11) $(fld 12)" = "200 app -" ]
done
if [ -n "$TLSLINE" ]; then
	out=$(tget /json-h2 --http2)
	check "curl --http2: $out" [ "$out" = "200 2" ]
	check "its line: \"protocol\":\"HTTP/2.0\"" wait_for 4 grep -q \
	    '"client":"127.0.0.1",.*"target":"/json-h2","protocol":"HTTP/2.0"' \
	    "$ALOG"
fi
f=$(awk -F '\t' '$5 == "/json-second"' "$T/fields")
check "HTTP/1.1 in JSON: \"protocol\":\"HTTP/1.1\"" [ "$(fld 6)" = HTTP/1.1 ]
write_conf 1 json "access log \"$T/no/such/dir/access.log\""
check "a reload to a file that cannot be opened is refused" \
    sh -c "! \"$ORCHCTL\" -s \"$SOCK\" reload >'$T/reload.out' 2>&1"
check "... saying why: $(cat "$T/reload.out")" \
    grep -q "No such file" "$T/reload.out"
check "the old file goes on: 200" [ "$(get /after-refused)" = 200 ]
check "... its line there" wait_for 4 logged /after-refused

# -- the shipped logrotate file, by logrotate, if it is there
if command -v logrotate >/dev/null 2>&1; then
	sed -e "s|/var/log/orchd/|$T/log/|" \
	    -e "s|/usr/local/sbin/orchctl|$ORCHCTL -s $SOCK|" \
	    "$(dirname "$0")/../../etc/logrotate.d/orchd" >"$T/logrotate.conf"
	logrotate -f -s "$T/logrotate.state" "$T/logrotate.conf" \
	    >"$T/logrotate.out" 2>&1
	st=$?
	check "logrotate -f with the shipped file (status $st)" [ "$st" -eq 0 ]
	cat "$T/logrotate.out"
	check "it made a dated access.log-*" \
	    sh -c "ls '$T/log/' | grep -q '^access.log-[0-9]'"
	check "after logrotate: 200" [ "$(get /after-logrotate)" = 200 ]
	check "... its line in a new access.log" \
	    wait_for 4 logged /after-logrotate
else
	echo "# logrotate is not installed: the shipped file is not run"
fi

metric_drops=$(drops)
check "no line dropped (${metric_drops:-none})" [ "$metric_drops" = 0 ]
# an HTTP/2 stream under way at the stop, its answer held in the gateway
# by the client's shut window (the workloads stop first): the gateway's
# GOAWAY, the stream read whole, then its line handed to the parent
SLOWREAD=
if [ -n "$TLSLINE" ] && $PYTHON -c 'import hpack' 2>/dev/null; then
	$PYTHON "$(dirname "$0")/h2attack.py" slow-read "$TLS" app.test tls \
	    "$T/pki/cert.pem" >"$T/h2stop.out" 2>&1 &
	SLOWREAD=$!
	sleep 1
else
	echo "# no python3-hpack: no stream under way at the stop"
fi
stop_orchd
check "orchd stops: status $STATUS" [ "$STATUS" -eq 0 ]
if [ -n "$SLOWREAD" ]; then
	wait_gone $SLOWREAD 30 || kill $SLOWREAD 2>/dev/null
	wait $SLOWREAD 2>/dev/null
	check "a stream under way at the stop: GOAWAY, then read whole \
($(cat "$T/h2stop.out"))" [ "$(cat "$T/h2stop.out")" = \
	    "slow-read goaway=1 status=200 bytes=60000 complete=1" ]
	check "... and its line is in the file" grep -q \
	    '"target":"/big?60000","protocol":"HTTP/2.0","status":200' "$ALOG"
fi

# -- access log syslog: orchd in a mount namespace of its own, whose
# /dev/log is a socket of the test's (nothing of the host's /dev changes)
if unshare -m --propagation private true 2>/dev/null; then
	cat >"$T/syslog.py" <<'EOF'
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o666)
s.settimeout(1)
end = time.time() + 120
with open(sys.argv[2], 'ab', buffering=0) as out:
    while time.time() < end:
        try:
            m = s.recv(65536)
        except socket.timeout:
            continue
        out.write(m.replace(b'\n', b'\\n') + b'\n')
EOF
	: >"$T/syslog.out"
	$PYTHON "$T/syslog.py" "$T/devlog" "$T/syslog.out" &
	SYSLOGD=$!
	wait_for 5 test -S "$T/devlog"
	cat >"$T/ns.sh" <<EOF
set -e
mkdir -p "$T/dev"
mount -t tmpfs -o mode=0755 tmpfs "$T/dev"
for n in null zero random urandom log; do
	touch "$T/dev/\$n"
done
for n in null zero random urandom; do
	mount --bind "/dev/\$n" "$T/dev/\$n"
done
mount --bind "$T/devlog" "$T/dev/log"
mount --rbind "$T/dev" /dev
exec "$ORCHD" -d -f "$T/orchd.conf"
EOF
	write_conf 1 combined "access log syslog"
	unshare -m --propagation private sh "$T/ns.sh" >>"$T/orchd.log" 2>&1 &
	ORCHD_PID=$!
	if wait_for 20 "$ORCHCTL" -s "$SOCK" show summary; then
		ok "orchd starts with access log syslog"
		i=0
		while [ $i -lt 20 ]; do
			get "/syslog-$i" >/dev/null
			i=$((i + 1))
		done
		syslog_lines() {
			[ "$(grep -c '"GET /syslog-[0-9]* HTTP/1.1" 200 ' \
			    "$T/syslog.out")" -eq 20 ]
		}
		check "20 requests: 20 messages" wait_for 5 syslog_lines
		grep -m 1 'GET /syslog-' "$T/syslog.out"
		check "each a line of its own, daemon's level info (<30>)" \
		    sh -c "! grep 'GET /syslog-' '$T/syslog.out' | grep -v \
		    '^<30>.* \"GET /syslog-[0-9]* HTTP/1.1\" 200 [0-9]* \"-\" \"curl/[^\"]*\" \"app.test\" [0-9]* [0-9.]* app [-0-9.]*\$'"
		stop_orchd
		check "orchd stops: status $STATUS" [ "$STATUS" -eq 0 ]
	else
		fail "orchd starts with access log syslog"
		tail -n 5 "$T/orchd.log"
		kill -TERM "$ORCHD_PID" 2>/dev/null
	fi
	kill "$SYSLOGD" 2>/dev/null
	wait "$SYSLOGD" 2>/dev/null
else
	echo "# unshare -m fails here: access log syslog is not run"
fi

# -- prefork 2: 500 requests at once, long lines, none torn, none lost
rm -f "$ALOG"
write_conf 2 combined
start_orchd_or_exit
check "app wakes: 200" [ "$(get /wake)" = 200 ]
LONG=$(head -c 1500 /dev/zero | tr '\0' p)
AGENT=$(head -c 400 /dev/zero | tr '\0' a)
HEAD=$(printf 'GET /burst/%s HTTP/1.1\r\nHost: app.test\r\nUser-Agent: %s\r\nConnection: close\r\n\r\nx' "$LONG" "$AGENT")
HEAD=${HEAD%x}
"$BUILD/regress/testhttp" burst "$GW" 500 60 "$HEAD" >"$T/burst.out"
n=$(grep -c '^200 ' "$T/burst.out")
check "500 requests at once over 2 gateways: 500 200s ($n)" [ "$n" -eq 500 ]
burst_lines() { [ "$(grep -c " /burst/$LONG " "$ALOG")" -ge 500 ]; }
check "500 lines come" wait_for 10 burst_lines
fields "$ALOG"
n=$(grep -c '^OK' "$T/fields")
bad=$(grep -c '^BAD' "$T/fields")
check "every line parses: $n whole, $bad not" [ "$bad" -eq 0 ]
n=$(awk -F '\t' -v t="/burst/$LONG" '$5 == t && $7 == 200 &&
    $15 == a' a="$AGENT" "$T/fields" | wc -l)
check "500 lines of the burst, each with its 1500-byte path and agent ($n)" \
    [ "$n" -eq 500 ]
metric_drops=$(drops)
check "no line dropped over both gateways (${metric_drops:-none})" \
    [ "$metric_drops" = 0 ]
# the lines a gateway holds go to the file when orchd stops
check "a last request: 200" [ "$(get /last-one)" = 200 ]
stop_orchd
check "orchd stops: status $STATUS" [ "$STATUS" -eq 0 ]
check "the last request's line is in the file" logged /last-one

e2e_done
