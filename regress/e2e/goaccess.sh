#!/bin/sh
# goaccess (Debian's) reads orchd's access log, both formats, with the
# command lines orchd.conf(5) gives: a live orchd writes the combined
# format, then JSON, for the same traffic (a wake, 200s and a 404 of
# the workload's, a host no workload serves, the API, a target and a
# User-Agent with quotes, backslashes and bytes past ASCII, HTTP/1.0, a
# request line that is no HTTP); goaccess must parse every line (no
# failed request, as many valid as lines, goaccess exiting 0), with the
# right statuses, hosts and the workload's answer time.  Every wait
# bounded.
#
#	sh regress/e2e/goaccess.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
command -v goaccess >/dev/null || skip "no goaccess"
command -v python3 >/dev/null || skip "no python3"
command -v mandoc >/dev/null || skip "no mandoc"
SRC=$(cd "$(dirname "$0")/../.." && pwd)

ports GW API P_APP
KEY=e2e-key-$$-0123456789abcdef
ALOG=$T/log/access.log
mkdir -p "$T/log" "$T/bin"
testhttp_bin
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"

write_conf() {	# write_conf FORMAT
	conf_head >"$T/orchd.conf"
	cat >>"$T/orchd.conf" <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
access log "$ALOG"
access log format "$1"

workload "app" {
	host "app.test"
	command "$T/bin/testhttp serve $P_APP"
	port $P_APP
}
CONF
}

# raw REQUEST-TEXT: sent as it is on one connection, the answer dropped
raw() {
	python3 - "$GW" "$1" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
s.sendall(sys.argv[2].encode("latin-1").decode("unicode_escape")
          .encode("latin-1"))
try:
    while s.recv(65536):
        pass
except OSError:
    pass
s.close()
PY
}

# traffic: the same each time; 11 lines
traffic() {
	code() { curl -s -m 30 -o /dev/null -w '%{http_code}' "$@"; }
	c=$(code -H "Host: app.test" "http://127.0.0.1:$GW/")
	check "... a request wakes app ($c)" [ "$c" = 200 ]
	code -H "Host: app.test" "http://127.0.0.1:$GW/big?5000" >/dev/null
	code -H "Host: app.test" -A 'agent "quoted" \back' \
	    -e "http://ref.test/x" "http://127.0.0.1:$GW/status/404" >/dev/null
	code -H "Host: app.test" --http1.0 "http://127.0.0.1:$GW/" >/dev/null
	code -H "Host: nobody.test" "http://127.0.0.1:$GW/" >/dev/null
	code -H "Authorization: Bearer $KEY" \
	    "http://127.0.0.1:$API/v1/workloads" >/dev/null
	code -H "Host: app.test" "http://127.0.0.1:$GW/a%22b?q=\\x" >/dev/null
	raw 'GET /raw HTTP/1.1\r\nHost: app.test\r\nUser-Agent: caf\xe9 "q" \\\r\nConnection: close\r\n\r\n'
	raw 'NONSENSE\r\n\r\n'
	raw 'BREW /pot HTTP/1.1\r\nHost: app.test\r\nConnection: close\r\n\r\n'
	code -H "Host: app.test" "http://127.0.0.1:$GW/" >/dev/null
	wait_for 10 sh -c "[ \$(wc -l <'$ALOG') -ge 10 ]"
}

# the command lines orchd.conf(5) gives, one a file: $T/ga.0, ga.1 ...
mandoc -Tascii "$SRC/man/orchd.conf.5" | sed 's/.\x08//g' |
    awk -v dir="$T" -v n=0 '/^ *goaccess access\.log/ { on = 1 }
    on && /^ *$/ { on = 0; n++ } on { print >(dir "/ga." n) }'
check "orchd.conf(5) gives two goaccess command lines" \
    [ -s "$T/ga.0" -a -s "$T/ga.1" -a ! -e "$T/ga.2" ]

# report NAME GOACCESS-ARGS...: goaccess's report as JSON, its output in
# $T/NAME.out, its exit status in $T/NAME.status
report() {
	_n=$1
	shift
	goaccess "$ALOG" --no-global-config -o "$T/$_n.json" "$@" \
	    >"$T/$_n.out" 2>&1
	echo $? >"$T/$_n.status"
}
# manual NAME N: the Nth command line of the manual, on the access log
manual() {
	(cd "$T/log" && eval "$(cat "$T/ga.$2")" --no-global-config \
	    -o "$T/$1.json") >"$T/$1.out" 2>&1
	echo $? >"$T/$1.status"
}
field() {	# field NAME PYTHON-EXPRESSION-ON-r
	python3 -c "import json, sys; r = json.load(open(sys.argv[1]));
print($2)" "$T/$1.json" 2>/dev/null
}
verify() {	# verify NAME DESCRIPTION [full]: full, with hosts and times
	lines=$(wc -l <"$ALOG")
	check "$2: goaccess exits 0 ($(cat "$T/$1.status"))" \
	    [ "$(cat "$T/$1.status")" = 0 ]
	v=$(field "$1" 'r["general"]["valid_requests"]')
	f=$(field "$1" 'r["general"]["failed_requests"]')
	check "$2: goaccess reads every one of the $lines lines (${v:-none} valid, ${f:-none} failed)" \
	    [ "${v:-none}/${f:-none}" = "$lines/0" ]
	[ "$f" = 0 ] || grep -a '==' "$T/$1.out"
	s=$(field "$1" '" ".join(sorted(d["data"] for d in
	    r["status_codes"]["data"]))')
	check "$2: ... with 2xx and 4xx statuses ($s)" \
	    sh -c "echo '$s' | grep -q '2xx.*4xx'"
	d=$(field "$1" 'r["general"]["start_date"]')
	check "$2: ... dated today ($d)" \
	    [ "$d" = "$(date -u +%d/%b/%Y)" ]
	[ "$3" = full ] || return 0
	h=$(field "$1" '" ".join(sorted(d["data"] for d in r["vhosts"]["data"]))')
	check "$2: ... and the hosts ($h)" \
	    sh -c "echo '$h' | grep -q 'app.test' && echo '$h' | grep -q 'nobody.test'"
	t=$(field "$1" 'r["requests"]["metadata"]["cumts"]["total"]["value"]')
	check "$2: ... and the answer times, in microseconds (${t:-none})" \
	    [ "${t:-0}" -gt 0 ]
}

# -- the combined format: goaccess's own COMBINED, and orchd's fields
write_conf combined
start_orchd_or_exit
traffic
stop_orchd
head -3 "$ALOG"
report comb --log-format=COMBINED
verify comb "combined, --log-format=COMBINED"
manual combx 0
verify combx "combined, with the host and the time" full

# -- JSON
mv "$ALOG" "$T/log/combined.log"
write_conf json
start_orchd_or_exit
traffic
stop_orchd
head -3 "$ALOG"
manual json 1
verify json "json" full

e2e_done
