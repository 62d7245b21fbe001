#!/bin/sh
# orchd as a systemd service, without systemd: a datagram socket stands
# in for NOTIFY_SOCKET and receives READY=1 once the gateway answers,
# STATUS= lines with the counts as a workload runs and another fails,
# RELOADING=1 and READY=1 around a reload (a refused one too), STOPPING=1
# at SIGTERM; no child nor workload inherits NOTIFY_SOCKET; an abstract
# socket name works.  With JOURNAL_STREAM naming stderr, each log line
# starts with its priority (<3> an error, <6> information); unset or
# naming another file, no prefix.  The version: orchd -V, orchctl -V,
# orchctl show version (and -j), orchd_build_info in /metrics.  All on
# loopback, every wait bounded.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

PYTHON=/usr/bin/python3
if ! "$PYTHON" -c 'import socket' 2>/dev/null; then
	skip "needs $PYTHON"
fi
ports GW P_WEB P_BROKEN API
VERSION=$(sed -n 's/^#define ORCHD_VERSION[^"]*"\(.*\)"$/\1/p' \
    "$(dirname "$0")/../../common/version.h")
NOTIFY=$T/notify.sock
NLOG=$T/notify.log
LISTENER=

# the workloads run as uids of their own: their programs readable
mkdir -p "$T/log"
cp "$BUILD/regress/testhttp" "$T/testhttp"
chmod 0755 "$T/testhttp"

conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
wake timeout 10s
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api metrics public

workload "web" {
	host "web.test"
	command "'$T/testhttp' serve $P_WEB"
	port $P_WEB
}
workload "broken" {
	host "broken.test"
	command "/bin/false"
	port $P_BROKEN
}
CONF

# systemd's part: each datagram a line of $NLOG, its newlines as spaces;
# it ends by itself after 120 s
cat >"$T/listener.py" <<'EOF'
import os, socket, sys, time
path, log = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind('\0' + path[1:] if path.startswith('@') else path)
s.settimeout(0.5)
end = time.time() + 120
with open(log, 'a', buffering=1) as f:
    f.write('listening\n')
    while time.time() < end:
        try:
            d = s.recv(4096)
        except socket.timeout:
            continue
        f.write(d.decode(errors='replace').replace('\n', ' ') + '\n')
EOF
start_listener() {	# start_listener ADDRESS
	: >"$NLOG"
	"$PYTHON" "$T/listener.py" "$1" "$NLOG" &
	LISTENER=$!
	wait_for 10 grep -q '^listening$' "$NLOG"
}
stop_listener() {
	[ -n "$LISTENER" ] && kill "$LISTENER" 2>/dev/null
	wait "$LISTENER" 2>/dev/null
	LISTENER=
}
trap 'stop_listener; e2e_cleanup' EXIT

said() { grep -Eq "$1" "$NLOG"; }		# said REGEX
show() { sed 's/^/#	/' "$1"; }
code() {	# code HOST: the gateway's status for /
	curl -s -m 15 -o /dev/null -w '%{http_code}' -H "Host: $1" \
	    "http://127.0.0.1:$GW/"
}
# the environment of a process has no NOTIFY_SOCKET
no_notify_env() {
	[ -r "/proc/$1/environ" ] &&
	    ! tr '\0' '\n' <"/proc/$1/environ" | grep -q '^NOTIFY_SOCKET='
}

check "the stand-in for systemd listens" start_listener "$NOTIFY"
: >"$T/orchd.log"
JOURNAL_STREAM=$(stat -c '%d:%i' "$T/orchd.log")
export JOURNAL_STREAM
NOTIFY_SOCKET=$NOTIFY start_orchd_or_exit

# 1. READY=1, and then the listener answers
check "READY=1" wait_for 20 said '^READY=1$'
c=$(code unknown.test)
check "the gateway answers once READY=1 came ($c)" [ "$c" = 404 ]
check "STATUS=2 workloads, 0 running, 0 failed" \
    wait_for 10 said '^STATUS=2 workloads, 0 running, 0 failed$'

# 2. the counts follow the states
c=$(code web.test)
check "web answers ($c)" [ "$c" = 200 ]
check "STATUS= says 1 running" \
    wait_for 10 said '^STATUS=2 workloads, 1 running, 0 failed$'
c=$(code broken.test)
check "broken fails ($c)" [ "$c" = 503 ]
check "STATUS= says 1 failed" \
    wait_for 10 said '^STATUS=2 workloads, 1 running, 1 failed$'

# 3. neither the children nor the workloads inherit NOTIFY_SOCKET
for p in runtime store gateway reaper; do
	pid=$(child "$p")
	check "$p has no NOTIFY_SOCKET" no_notify_env "$pid"
done
pid=$(pgrep -f "testhttp serve $P_WEB" | head -n 1)
check "the workload has no NOTIFY_SOCKET" no_notify_env "$pid"

# 4. the version, from both programs and from the daemon
check "the version is in common/version.h ($VERSION)" \
    sh -c "echo '$VERSION' | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+$'"
check "orchd -V" sh -c "[ \"\$('$ORCHD' -V)\" = 'orchd $VERSION' ]"
check "orchctl -V" sh -c "[ \"\$('$ORCHCTL' -V)\" = 'orchctl $VERSION' ]"
"$ORCHCTL" -s "$SOCK" show version >"$T/out" 2>&1
printf 'orchctl %s\norchd %s\n' "$VERSION" "$VERSION" >"$T/want"
check "orchctl show version: the client's and the daemon's" \
    cmp -s "$T/out" "$T/want"
"$ORCHCTL" -s "$SOCK" -j show version >"$T/out" 2>&1
check "orchctl -j show version" "$PYTHON" -c "import json, sys
d = json.load(open('$T/out'))
sys.exit(d != {'orchctl': '$VERSION', 'orchd': '$VERSION'})"
curl -s -m 10 -o "$T/metrics" "http://127.0.0.1:$API/metrics"
check "orchd_build_info in /metrics" \
    grep -qx "orchd_build_info{version=\"$VERSION\"} 1" "$T/metrics"
check "... with its TYPE" grep -qx '# TYPE orchd_build_info gauge' \
    "$T/metrics"

# 5. a reload: RELOADING=1 with MONOTONIC_USEC, then READY=1
check "orchctl reload" sh -c "'$ORCHCTL' -s '$SOCK' reload >/dev/null"
check "RELOADING=1 MONOTONIC_USEC=" \
    wait_for 10 said '^RELOADING=1 MONOTONIC_USEC=[0-9]+$'
check "READY=1 again" wait_for 10 sh -c "[ \$(grep -c '^READY=1$' '$NLOG') \
    -eq 2 ]"
check "READY=1 after RELOADING=1" \
    sh -c "tail -n 1 '$NLOG' | grep -qx 'READY=1'"

# 6. a refused reload: RELOADING=1 and READY=1 all the same
cp "$T/orchd.conf" "$T/orchd.conf.good"
echo "no such keyword" >>"$T/orchd.conf"
check "orchctl reload of a broken file fails" \
    sh -c "! '$ORCHCTL' -s '$SOCK' reload >/dev/null 2>&1"
check "RELOADING=1 for it" \
    wait_for 10 sh -c "[ \$(grep -c '^RELOADING=1' '$NLOG') -eq 2 ]"
check "and READY=1" \
    wait_for 10 sh -c "[ \$(grep -c '^READY=1$' '$NLOG') -eq 3 ]"
cp "$T/orchd.conf.good" "$T/orchd.conf"

# 7. the journal's priorities
check "<6> on information" grep -q '^<6>parent: startup$' "$T/orchd.log"
check "<3> on an error" \
    grep -Eq '^<3>parent: configuration file .* has errors' "$T/orchd.log"
check "<6> on a child's line" grep -q '^<6>runtime: workload web: ' \
    "$T/orchd.log"
check "every line has a priority" \
    sh -c "! grep -v '^<[0-7]>' '$T/orchd.log' | grep -q ."

# 8. STOPPING=1 at SIGTERM
stop_orchd
check "orchd stops (status $STATUS)" [ "$STATUS" -eq 0 ]
check "STOPPING=1" wait_for 5 said '^STOPPING=1$'
stop_listener
[ "$FAILED" -eq 0 ] || show "$NLOG"

# 9. an abstract socket; no JOURNAL_STREAM, no prefix.  The database's
# directory as systemd's StateDirectory= leaves it at a start (root's,
# 0755, the files in it root's) is given back to the store; the control
# socket's directory is made when missing.
unset JOURNAL_STREAM
mv "$T/orchd.log" "$T/orchd.log.1"
chown -R root:root "$T/db"
chmod 0755 "$T/db"
sed -i "s|^socket .*|socket \"$T/run/orchd.sock\"|" "$T/orchd.conf"
SOCK=$T/run/orchd.sock
check "the stand-in listens on an abstract name" \
    start_listener "@orchd-e2e-$$"
NOTIFY_SOCKET=@orchd-e2e-$$ STATE_DIRECTORY="$T/nothing:$T/db" \
    start_orchd_or_exit
check "the socket's directory made, root's, 0755" \
    [ "$(stat -c '%U %a' "$T/run")" = "root 755" ]
check "the database's directory the store's again, 0700" \
    [ "$(stat -c '%U %a' "$T/db")" = "_orchd 700" ]
check "and its database" \
    [ "$(stat -c '%U' "$T/db/orchd.db")" = "_orchd" ]
c=$(code web.test)
check "web answers, its wake recorded ($c)" [ "$c" = 200 ]
check "the store wrote it" wait_for 10 sh -c "'$ORCHCTL' -s '$SOCK' \
    show workload web | grep -c running | grep -qv '^[01]$'"
check "READY=1 on the abstract socket" wait_for 20 said '^READY=1$'
check "no prefix without JOURNAL_STREAM" grep -q '^parent: startup$' \
    "$T/orchd.log"
stop_orchd
check "STOPPING=1 on it" wait_for 5 said '^STOPPING=1$'
stop_listener
cat "$T/orchd.log.1" >>"$T/orchd.log"

# 10. JOURNAL_STREAM of another file: stderr was redirected, no prefix
printf 'no such keyword\n' >"$T/bad.conf"
: >"$T/other"
: >"$T/n.err"
JOURNAL_STREAM=$(stat -c '%d:%i' "$T/other") \
    "$ORCHD" -n -f "$T/bad.conf" 2>"$T/n.err"
check "another file's JOURNAL_STREAM: no prefix" \
    sh -c "grep -q . '$T/n.err' && ! grep -q '^<' '$T/n.err'"
JOURNAL_STREAM=$(stat -c '%d:%i' "$T/n.err") \
    "$ORCHD" -n -f "$T/bad.conf" 2>>"$T/n.err"
check "stderr's own JOURNAL_STREAM: <3> on orchd -n's error" \
    grep -q '^<3>' "$T/n.err"

e2e_done
