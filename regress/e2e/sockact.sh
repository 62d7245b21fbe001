#!/bin/sh
# Socket activation (issue 33; orchd.conf.5 "socket activation",
# orchd-workload.7).  The parent binds a process workload's port at
# load and holds it while the workload sleeps: ss shows it listening,
# owned by orchd's parent, another process cannot bind it, and a second
# workload on it is refused.  At a wake the socket is the workload's fd 3
# with LISTEN_FDS=1, LISTEN_PID and LISTEN_FDNAMES: the test backend and
# Debian's gunicorn (which takes LISTEN_FDS by itself; its 20.1 fails
# with EBADF when also given --bind fd://3, fd 3 listed twice) serve
# from it, and the first request
# after the wake is answered (no 502, no retry) from the socket's own
# accept queue.  A reload that moves the port closes the old one and
# binds the new.  A workload that ignores LISTEN_FDS and binds the port
# itself is reported as misconfigured, naming socket activation.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports GW P_A P_G P_BAD P_NEW P_X P_6
mkdir -p "$T/log" "$T/app"
testhttp_bin
cat >"$T/app/app.py" <<'EOF'
def application(environ, start_response):
    body = b"hello from gunicorn\n"
    start_response("200 OK", [("Content-Type", "text/plain"),
                              ("Content-Length", str(len(body)))])
    return [body]
EOF
chmod 0755 "$T/app"
chmod 0644 "$T/app/app.py"

workload() {	# workload NAME PORT COMMAND [LINE...]
	n=$1
	p=$2
	c=$3
	shift 3
	printf 'workload "%s" {\n\thost "%s.localhost"\n' "$n" "$n"
	printf '\tcommand "%s"\n\tport %s\n' "$c" "$p"
	printf '\twake timeout 10s\n\tsocket activation\n'
	conf_end "$@"
}
conf() {	# conf PORT-OF-a
	{
		conf_head
		echo "listen on 127.0.0.1 port $GW"
		workload a "$1" "$T/bin/testhttp serve $1"
		if command -v gunicorn >/dev/null 2>&1; then
			workload g "$P_G" "/usr/bin/gunicorn --workers 1 --chdir $T/app app:application" \
			    "directory \"$T/app\""
		fi
		workload bad "$P_BAD" "$T/bin/testhttp serve $P_BAD" \
		    'env "TESTHTTP_NO_LISTEN_FDS=1"'
		workload six "$P_6" "$T/bin/testhttp serve $P_6" \
		    'address "::1"'
	} >"$T/orchd.conf"
}
conf "$P_A"

get() {	# get NAME: status, body in $T/body
	curl -s -o "$T/body" -w '%{http_code}' -m 20 -H "Host: $1.localhost" \
	    "http://127.0.0.1:$GW/"
}
state() {
	"$ORCHCTL" -s "$SOCK" show workload "$1" 2>/dev/null |
	    sed -n 's/^ *state: *//p' | awk '{ print $1 }'
}
# listener PORT: the pid holding the listener on 127.0.0.1:PORT
listener() {
	ss -Htlnp "sport = :$1" 2>/dev/null |
	    sed -n 's/.*pid=\([0-9]*\).*/\1/p' | sort -u | tr '\n' ' '
}

# a second workload on the same port is refused by orchd -n
{
	conf_head
	echo "listen on 127.0.0.1 port $GW"
	workload a "$P_A" "$T/bin/testhttp serve $P_A"
	workload b "$P_A" "$T/bin/testhttp serve $P_A"
} >"$T/two.conf"
check "a second workload on an activated port is refused" \
    sh -c "! '$ORCHD' -n -f '$T/two.conf' 2>'$T/two.err' && grep -q 'port $P_A' '$T/two.err'"
# and a docker workload cannot have it
{
	conf_head
	echo 'workload "d" {'
	echo '	driver docker'
	echo '	image "busybox"'
	echo "	port $P_X"
	echo '	socket activation'
	echo '}'
} >"$T/docker.conf"
check "socket activation is refused for a docker workload, saying why" \
    sh -c "! '$ORCHD' -n -f '$T/docker.conf' 2>'$T/docker.err' && grep -q 'Docker cannot pass a listening socket' '$T/docker.err'"

# -v: the gateway's debug lines say when a connect was refused and retried
start_orchd_or_exit -v

# asleep: the port is held by the parent
check "asleep: a is asleep" [ "$(state a)" = asleep ]
"$ORCHCTL" -s "$SOCK" show workload a >"$T/show.a" 2>&1
check "show workload says socket activation" \
    grep -Eq '^ *socket activation: *(yes|on|true)' "$T/show.a"
check "asleep: port $P_A listens, held by orchd's parent" \
    [ "$(listener "$P_A")" = "$ORCHD_PID " ]
check "asleep: another process cannot bind port $P_A" \
    sh -c "! python3 -c 'import socket; s = socket.socket(); s.bind((\"127.0.0.1\", $P_A))' 2>/dev/null"
check "asleep: nobody cannot bind it either" \
    sh -c "! setpriv --reuid=nobody --regid=nogroup --clear-groups python3 -c 'import socket; s = socket.socket(); s.bind((\"127.0.0.1\", $P_A))' 2>/dev/null"

# the wake: the first request is served from the queue, no 502
r=$(get a)
check "wake: the first request is answered 200" [ "$r" = 200 ]
check "wake: by the test backend on fd 3" grep -q "hello from testhttp" "$T/body"
check "wake: a is running" [ "$(state a)" = running ]
pid=$(pgrep -f "testhttp serve $P_A" | head -1)
check "wake: the workload has the socket as fd 3" \
    sh -c "[ \"\$(readlink /proc/$pid/fd/3)\" = \"\$(readlink /proc/$ORCHD_PID/fd/\$(ls -l /proc/$ORCHD_PID/fd | awk -v i=\"\$(readlink /proc/$pid/fd/3)\" '\$NF == i { print \$9; exit }'))\" ]"
check "wake: the gateway's connect was never refused, nothing retried" \
    sh -c "! grep -Eq 'a refused a connection|connect to a:|a: not ready' '$T/orchd.log'"
check "wake: ready at the first readiness check, nothing polled" \
    grep -q "workload a: ready after 1 attempts" "$T/orchd.log"

# asleep again: still held
"$ORCHCTL" -s "$SOCK" suspend a >/dev/null 2>&1
wait_for 10 sh -c "[ \"\$('$ORCHCTL' -s '$SOCK' show workload a | sed -n 's/^ *state: *//p' | awk '{print \$1}')\" = asleep ]"
check "suspended: port $P_A still held by orchd's parent" \
    [ "$(listener "$P_A")" = "$ORCHD_PID " ]
r=$(get a)
check "second wake: 200 again" [ "$r" = 200 ]

# gunicorn, socket activated
if command -v gunicorn >/dev/null 2>&1; then
	r=$(get g)
	check "gunicorn: the first request is answered 200" [ "$r" = 200 ]
	check "gunicorn: its page" grep -q "hello from gunicorn" "$T/body"
else
	skip_gunicorn=1
	echo "# gunicorn not installed: its case skipped"
fi

# IPv6: the socket on ::1, held and passed alike
check "IPv6: [::1]:$P_6 held by orchd's parent" \
    sh -c "ss -Htlnp 'sport = :$P_6' | grep -F '[::1]' | grep -q 'pid=$ORCHD_PID,'"
r=$(get six)
check "IPv6: the first request is answered 200 ($r)" [ "$r" = 200 ]

# misconfigured: binds its own port
r=$(get bad)
check "misconfigured: the request fails ($r)" [ "$r" != 200 ]
wait_for 10 sh -c "'$ORCHCTL' -s '$SOCK' show workload bad | grep -q 'socket activation'"
check "misconfigured: show workload names socket activation" \
    sh -c "'$ORCHCTL' -s '$SOCK' show workload bad | grep -q 'misconfigured for socket activation'"
check "misconfigured: orchd's log says so" \
    grep -q "bad: misconfigured for socket activation" "$T/orchd.log"

# reload with a's port moved: the old one closed, the new one held
conf "$P_NEW"
"$ORCHCTL" -s "$SOCK" suspend a >/dev/null 2>&1
wait_for 10 sh -c "[ \"\$('$ORCHCTL' -s '$SOCK' show workload a | sed -n 's/^ *state: *//p' | awk '{print \$1}')\" = asleep ]"
"$ORCHCTL" -s "$SOCK" reload >/dev/null 2>&1
wait_for 10 sh -c "ss -Htln 'sport = :$P_NEW' | grep -q ."
check "reload: the new port $P_NEW is held by orchd's parent" \
    [ "$(listener "$P_NEW")" = "$ORCHD_PID " ]
check "reload: the old port $P_A is closed" \
    sh -c "! ss -Htln 'sport = :$P_A' | grep -q ."
r=$(get a)
check "reload: a wakes on its new port" [ "$r" = 200 ]

stop_orchd
check "stopped: the port is free again" \
    sh -c "! ss -Htln 'sport = :$P_NEW' | grep -q ."
e2e_done
