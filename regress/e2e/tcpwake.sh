#!/bin/sh
# TCP wake: "listen on" in a workload block, against the real daemons
# with two gateways.  A connection to the sleeping workload's own TCP
# listener wakes it and is held, not a byte read, until it runs; then
# bytes go both ways, its end passed on as a half-close (the client that
# shut its side still reads the answer); 20 connections at once, one
# start.  An open connection keeps the workload up; one silent for its
# tunnel idle timeout does not, and the suspend closes it.  A failed wake
# and a wake timeout close the connections held and say why; max
# connections per address applies.  orchctl and /metrics show them, the
# history says which listener and client woke it.  A client an "ignore
# from" rule names wakes nothing and, to a running workload, is proxied
# without keeping it up.  With Docker: a container on a network of its
# own, reached through its published port, woken by a connection.
# Then real software: PostgreSQL (initdb here, run as its own user) and
# Redis, asleep until psql or redis-cli connects; 20 psql at once, one
# start; an open psql session keeps the database up, its end lets it go.
# Those two are skipped only where their programs are not installed
# (tools/deps.sh installs them).  Every wait bounded.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

GW=$(free_port $((20000 + $$ % 10000)))
API=$(free_port $((GW + 1)))
P_ECHO=$(free_port $((API + 1)))
L_ECHO=$(free_port $((P_ECHO + 1)))
P_QUIET=$(free_port $((L_ECHO + 1)))
L_QUIET=$(free_port $((P_QUIET + 1)))
P_FAIL=$(free_port $((L_QUIET + 1)))
L_FAIL=$(free_port $((P_FAIL + 1)))
P_SLOW=$(free_port $((L_FAIL + 1)))
L_SLOW=$(free_port $((P_SLOW + 1)))
P_PG=$(free_port $((L_SLOW + 1)))
L_PG=$(free_port $((P_PG + 1)))
I_PG=$(free_port $((L_PG + 1)))
P_RD=$(free_port $((I_PG + 1)))
L_RD=$(free_port $((P_RD + 1)))
P_IGN=$(free_port $((L_RD + 1)))
L_IGN=$(free_port $((P_IGN + 1)))
P_BOX=$(free_port $((L_IGN + 1)))
L_BOX=$(free_port $((P_BOX + 1)))
mkdir -p "$T/log" "$T/bin"
cp "$BUILD/regress/testhttp" "$T/bin/testhttp"
chmod 0755 "$T/bin" "$T/bin/testhttp"
for w in echo quiet ign; do
	: >"$T/$w.starts"
	chmod 0666 "$T/$w.starts"
done

PGBIN=/usr/lib/postgresql/15/bin
HAVE_PG=
[ -x "$PGBIN/postgres" ] && [ -x "$PGBIN/initdb" ] &&
    command -v psql >/dev/null 2>&1 && getent passwd postgres >/dev/null &&
    HAVE_PG=1
HAVE_REDIS=
command -v redis-server >/dev/null 2>&1 &&
    command -v redis-cli >/dev/null 2>&1 && HAVE_REDIS=1
# the container and the network it joins are removed at the end
NET=orchd-test-tw
HAVE_DOCKER=
box_cleanup() {
	if [ -n "$ORCHD_PID" ] && kill -0 "$ORCHD_PID" 2>/dev/null; then
		kill -TERM "$ORCHD_PID" 2>/dev/null
		wait_gone "$ORCHD_PID" 10
	fi
	docker rm -f "$(cname tw-box)" >/dev/null 2>&1
	for id in $(docker network ls -q --filter "name=^$NET\$" 2>/dev/null)
	do
		docker network rm "$id" >/dev/null 2>&1
	done
	e2e_cleanup
}
if docker info >/dev/null 2>&1 &&
    sh "$(dirname "$0")/../docker-image.sh" >/dev/null 2>&1; then
	HAVE_DOCKER=1
	trap box_cleanup EXIT
	docker rm -f "$(cname tw-box)" >/dev/null 2>&1
fi

# the database: its own directory, owned by the user it runs as.
# postgres listens on its port at once, before its startup is done, and
# refuses a session then ("the database system is starting up"): a TCP
# health check would find it ready too early (orchd-workload.7,
# CAVEATS).  So it listens on an inner port, and the workload's port opens once
# pg_isready finds it taking sessions; SIGINT, orchd's stop signal for
# it, reaches the whole group, and the script waits for postgres's fast
# shutdown, since what it leaves behind is killed.
if [ -n "$HAVE_PG" ]; then
	cat >"$T/bin/pg.sh" <<SH
#!/bin/sh
trap 'kill -INT \$fw 2>/dev/null' INT TERM
$PGBIN/postgres -D $T/pg/data -p $I_PG -k $T/pgsock \
    -c listen_addresses=127.0.0.1 &
pg=\$!
n=0
until $PGBIN/pg_isready -q -h 127.0.0.1 -p $I_PG; do
	n=\$((n + 1))
	[ \$n -lt 600 ] && kill -0 \$pg || exit 1
	sleep 0.05
done
$T/bin/testhttp forward $P_PG $I_PG &
fw=\$!
wait \$pg
wait \$pg
SH
	chmod 0755 "$T/bin/pg.sh"
	mkdir -p "$T/pg" "$T/pgsock"
	chown postgres "$T/pg" "$T/pgsock"
	if ! setpriv --reuid=postgres --regid="$(id -g postgres)" \
	    --clear-groups "$PGBIN/initdb" -D "$T/pg/data" -A trust \
	    -U postgres >"$T/initdb.log" 2>&1; then
		fail "initdb"
		cat "$T/initdb.log"
		HAVE_PG=
	fi
fi

{
	conf_head
	cat <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api metrics public
reaper interval 1s
prefork 2
max connections per address 50

workload "tw-echo" {
	command "$T/bin/testhttp echo $P_ECHO $T/echo.starts"
	port $P_ECHO
	listen on 127.0.0.1 port $L_ECHO
	idle timeout 3s
}
workload "tw-quiet" {
	host "quiet.test"
	command "$T/bin/testhttp echo $P_QUIET $T/quiet.starts"
	port $P_QUIET
	listen on 127.0.0.1 port $L_QUIET
	idle timeout 2s
	tunnel idle timeout 2s
}
workload "tw-fail" {
	command "/bin/false"
	port $P_FAIL
	listen on 127.0.0.1 port $L_FAIL
}
workload "tw-slow" {
	command "/bin/sleep 60"
	port $P_SLOW
	listen on 127.0.0.1 port $L_SLOW
	wake timeout 2s
}
workload "tw-ign" {
	command "$T/bin/testhttp echo $P_IGN $T/ign.starts"
	port $P_IGN
	listen on 127.0.0.1 port $L_IGN
	idle timeout 2s
	ignore from 127.0.0.0/8
}
CONF
	[ -n "$HAVE_PG" ] && cat <<CONF
workload "tw-pg" {
	command "$T/bin/pg.sh"
	user "postgres"
	directory "$T/pg"
	port $P_PG
	listen on 127.0.0.1 port $L_PG
	idle timeout 4s
	wake timeout 30s
	stop signal INT
}
CONF
	[ -n "$HAVE_DOCKER" ] && cat <<CONF
workload "tw-box" {
	driver docker
	image "orchd-test/busybox:latest"
	command "/bin/sh -c 'echo boxed >/tmp/i; exec httpd -f -p 8080 -h /tmp'"
	network "$NET"
	port 8080
	publish $P_BOX
	listen on 127.0.0.1 port $L_BOX
	idle timeout 3s
}
CONF
	[ -n "$HAVE_REDIS" ] && cat <<CONF
workload "tw-redis" {
	command "redis-server --port $P_RD --bind 127.0.0.1 --save '' --appendonly no"
	port $P_RD
	listen on 127.0.0.1 port $L_RD
	idle timeout 3s
}
CONF
} >"$T/orchd.conf"

ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
state_is() {	# state_is NAME STATE
	ctl show workloads | grep -Eq "^$1 +$2 "
}
suspended() {	# suspended NAME: its suspend is in the log
	grep -q "workload $1: running -> suspending (idle)" "$T/orchd.log"
}
starts() { grep -c start "$T/$1.starts"; }
metrics() {
	curl -sS -m 30 -o "$T/metrics" "http://127.0.0.1:$API/metrics"
}
metric() {	# metric NAME-AND-LABELS: its value in $T/metrics
	awk -v m="$1" 'index($0, m " ") == 1 { print $2 }' "$T/metrics"
}
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && a + 0 >= b + 0) }'; }

# a client that sends a word, reads its echo, then stays silent until
# the server closes: "closed after N s" or "open after N s"
silent_client() {	# silent_client PORT SECS
	python3 - "$1" "$2" <<'PY'
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
s.sendall(b"ping")
got = b""
while len(got) < 4:
    b = s.recv(4 - len(got))
    if not b:
        break
    got += b
print("echo " + got.decode())
t0 = time.time()
s.settimeout(float(sys.argv[2]))
try:
    b = s.recv(100)
    print("closed after %d s" % (time.time() - t0) if not b else "data")
except socket.timeout:
    print("open after %d s" % (time.time() - t0))
PY
}

start_orchd_or_exit

# -- the configuration, as orchctl shows it
ctl show workloads >"$T/list"
check "show workloads has a TCP column" \
    grep -Eq '^NAME +STATE +DRIVER +MEM +WARM +IDLE +LAST SEEN +BACKOFF +HOSTS +TCP +REASON$' \
    "$T/list"
# what the reaper goes by reaches orchctl a moment after the start: wait
ECHO_ROW="^tw-echo +asleep +process +[^ ]+ +no +3s +never +- +- "
ECHO_ROW="$ECHO_ROW+127.0.0.1:$L_ECHO +-\$"
echo_row() {
	ctl show workloads >"$T/list" && grep -Eq "$ECHO_ROW" "$T/list"
}
if wait_for 5 echo_row; then
	ok "with tw-echo's listener, and no host"
else
	fail "with tw-echo's listener, and no host"
	sed 's/^/# /' "$T/list"
fi
check "show workload says it" sh -c "\"$ORCHCTL\" -s \"$SOCK\" show workload \
    tw-quiet | grep -Eq '^listen on: +127.0.0.1:$L_QUIET\$'"
check "-j show workloads lists it" sh -c "\"$ORCHCTL\" -s \"$SOCK\" -j show \
    workloads | tr -d ' \n' | grep -q '\"listen\":\[\"127.0.0.1:$L_ECHO\"\]'"

# -- a wake by a connection; bytes sent while held; a half-close
printf 'sent-while-asleep' | "$T/bin/testhttp" half "$L_ECHO" 20 >"$T/half.out"
check "the connection woke tw-echo: one start" [ "$(starts echo)" -eq 1 ]
check "what the client sent while held came back" \
    grep -q '^sent-while-asleep' "$T/half.out"
check "its end reached the workload, which still answered after it" \
    grep -q 'eof after 17 bytes$' "$T/half.out"
check "then the workload's end reached the client" \
    grep -q '^closed$' "$T/half.out"
check "its history says the listener and the client that woke it" \
    sh -c "\"$ORCHCTL\" -s \"$SOCK\" show workload tw-echo |
    grep -q 'by TCP 127.0.0.1:$L_ECHO from 127.0.0.1'"
head -c 2000000 /dev/urandom >"$T/payload"
"$T/bin/testhttp" half "$L_ECHO" 20 <"$T/payload" >"$T/big.out"
check "2 MB both ways through splice, intact" \
    sh -c "head -c 2000000 '$T/big.out' | cmp -s - '$T/payload'"
check "and the end after it" sh -c "tail -n 2 '$T/big.out' |
    grep -q 'eof after 2000000 bytes'"

check "tw-echo idle: suspended after its idle timeout" \
    wait_for 15 state_is tw-echo asleep

# -- 20 connections at once to the sleeping workload: one start
# waitall PID...: those alone (a bare wait would wait for orchd too)
waitall() {
	for p in "$@"; do
		wait "$p"
	done
}
pids=
i=0
while [ $i -lt 20 ]; do
	printf 'client-%d' $i | "$T/bin/testhttp" half "$L_ECHO" 20 \
	    >"$T/many.$i" &
	pids="$pids $!"
	i=$((i + 1))
done
waitall $pids
check "20 connections at once: one more start" [ "$(starts echo)" -eq 2 ]
n=0
i=0
while [ $i -lt 20 ]; do
	grep -q "^client-$i""eof after" "$T/many.$i" && n=$((n + 1))
	i=$((i + 1))
done
check "each got its own bytes back ($n of 20)" [ "$n" -eq 20 ]

# -- an open connection is use; its close lets the workload sleep
check "tw-echo suspended again" wait_for 15 state_is tw-echo asleep
lines=$(wc -l <"$T/orchd.log")
(printf 'hold'; sleep 7; printf 'done') |
    "$T/bin/testhttp" half "$L_ECHO" 20 >"$T/hold.out" &
held=$!
check "the open connection woke it" wait_for 10 state_is tw-echo running
sleep 5
check "7 s open, twice its idle timeout: not suspended" \
    sh -c "! tail -n +$lines '$T/orchd.log' | grep -q 'workload tw-echo: running -> suspending'"
wait $held
check "the held connection got both of its words back" \
    grep -q '^holddoneeof after 8 bytes' "$T/hold.out"
check "closed, the workload is suspended" wait_for 15 state_is tw-echo asleep

# -- silent past its tunnel idle timeout: no longer use; the suspend
# closes it
silent_client "$L_QUIET" 20 >"$T/quiet.out"
check "tw-quiet answered the word" grep -q '^echo ping$' "$T/quiet.out"
check "silent, suspended while the connection was open, which it closed" \
    grep -Eq '^closed after [0-9]+ s$' "$T/quiet.out"
check "the log says so" grep -q \
    'tw-quiet: suspended: closed 1 idle TCP connection' "$T/orchd.log"
check "tw-quiet is asleep" wait_for 10 state_is tw-quiet asleep

# -- a failed wake and a wake timeout close what they held, and say why
printf 'x' | "$T/bin/testhttp" half "$L_FAIL" 20 >"$T/fail.out"
# a reset: the byte it sent was never read
check "a failed wake: the client's connection is closed, nothing sent" \
    grep -Eqx '(reset, )?closed' "$T/fail.out"
check "... and the log says why" grep -Eq \
    'tw-fail: wake failed \(.*\): closed 1 TCP connection held for it' \
    "$T/orchd.log"
t0=$(now_ms)
printf 'x' | "$T/bin/testhttp" half "$L_SLOW" 20 >"$T/slow.out"
ms=$(($(now_ms) - t0))
check "a wake timeout closes the held connection (after $ms ms)" \
    sh -c "grep -Eqx '(reset, )?closed' '$T/slow.out' && [ $ms -ge 1500 ]"
check "... and says so" grep -Eq \
    'tw-slow: wake failed \(not ready after .*\): closed 1 TCP' \
    "$T/orchd.log"

# -- "ignore from": not use.  Asleep, the connection is closed, nothing
# woken; running, it is proxied, and an open one keeps nothing up.
python3 - "$L_IGN" >"$T/ign.out" 2>&1 <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
try:
    print("data" if s.recv(100) else "closed")
except ConnectionResetError:
    print("closed")
except socket.timeout:
    print("open")
PY
check "an ignored client's connection to it asleep is closed" \
    grep -qx closed "$T/ign.out"
check "... and wakes nothing" sh -c "[ \$(grep -c start '$T/ign.starts') -eq 0 ] &&
    \"$ORCHCTL\" -s \"$SOCK\" show workloads | grep -Eq '^tw-ign +asleep '"
check "orchctl wake tw-ign" ctl wake tw-ign
silent_client "$L_IGN" 20 >"$T/ign2.out"
check "running, an ignored client's connection is proxied" \
    grep -q '^echo ping$' "$T/ign2.out"
check "open and ignored, it does not keep tw-ign up past its idle timeout" \
    suspended tw-ign
check "... and the suspend closes it" \
    grep -Eq '^closed after [0-9]+ s$' "$T/ign2.out"
check "tw-ign asleep" wait_for 10 state_is tw-ign asleep

# -- max connections per address, 50: 25 for each of the 2 gateways
"$T/bin/testhttp" hold "$L_ECHO" 60 4 >"$T/limit.out"
open=$(awk '{ print $2 }' "$T/limit.out")
closed=$(awk '{ print $4 }' "$T/limit.out")
check "max connections per address: 60 tried, $open kept, $closed closed" \
    sh -c "[ '$open' -le 50 ] && [ '$closed' -ge 10 ] &&
    [ \$(($open + $closed)) -eq 60 ]"

# -- /metrics: connections and bytes per workload, from both gateways
check "every connection closed: tw-echo's gauge at 0" wait_for 10 sh -c \
    "curl -sS -m 30 'http://127.0.0.1:$API/metrics' |
    grep -q '^orchd_tcp_connections{workload=\"tw-echo\"} 0\$'"
metrics
acc=$(metric 'orchd_tcp_connections_total{workload="tw-echo"}')
rx=$(metric 'orchd_tcp_received_bytes_total{workload="tw-echo"}')
tx=$(metric 'orchd_tcp_sent_bytes_total{workload="tw-echo"}')
check "connections accepted counted ($acc: 1 + 1 + 20 + 1 + $open)" \
    [ "$acc" = $((23 + open)) ]
check "bytes from the clients counted ($rx)" ge "$rx" 2000000
check "bytes to the clients counted ($tx)" ge "$tx" 2000000
check "tw-fail's connection counted too" \
    ge "$(metric 'orchd_tcp_connections_total{workload="tw-fail"}')" 1

# -- PostgreSQL
if [ -n "$HAVE_PG" ]; then
	export PGCONNECT_TIMEOUT=40
	psql_q() {	# psql_q QUERY
		psql -h 127.0.0.1 -p "$L_PG" -U postgres -Atc "$1" 2>&1
	}
	pg_starts() { grep -c 'workload tw-pg: started ' "$T/orchd.log"; }
	check "tw-pg is asleep" state_is tw-pg asleep
	out=$(psql_q 'select 40 + 2')
	check "psql against the sleeping database wakes it and gets 42 ($out)" \
	    [ "$out" = 42 ]
	check "one start" [ "$(pg_starts)" -eq 1 ]
	check "after its idle timeout with no connection, suspended" \
	    wait_for 20 state_is tw-pg asleep
	pids=
	i=0
	while [ $i -lt 20 ]; do
		psql_q "select 'q$i'" >"$T/psql.$i" &
		pids="$pids $!"
		i=$((i + 1))
	done
	waitall $pids
	n=0
	i=0
	while [ $i -lt 20 ]; do
		[ "$(cat "$T/psql.$i")" = "q$i" ] && n=$((n + 1))
		i=$((i + 1))
	done
	check "20 psql at once against it asleep: all answered ($n)" \
	    [ "$n" -eq 20 ]
	check "... by one start" [ "$(pg_starts)" -eq 2 ]
	check "asleep again" wait_for 20 state_is tw-pg asleep

	# an interactive session, held open by a fifo, keeps it up
	mkfifo "$T/psql.fifo"
	psql -h 127.0.0.1 -p "$L_PG" -U postgres -At <"$T/psql.fifo" \
	    >"$T/session.out" 2>&1 &
	session=$!
	exec 3>"$T/psql.fifo"
	# a psql gone would make the writes below a SIGPIPE
	trap '' PIPE
	echo "select 'first';" >&3
	check "the session's first answer" \
	    wait_for 30 grep -q '^first$' "$T/session.out"
	cat "$T/session.out" | grep -v '^first$'
	lines=$(wc -l <"$T/orchd.log")
	sleep 9
	check "9 s open, twice its idle timeout: not suspended" \
	    sh -c "! tail -n +$lines '$T/orchd.log' |
	    grep -q 'workload tw-pg: running -> suspending'"
	echo "select 'second';" >&3
	check "and it answers on" \
	    wait_for 10 grep -q '^second$' "$T/session.out"
	exec 3>&-
	wait_for 10 dead "$session"
	wait "$session"
	check "the session ended, it is suspended" \
	    wait_for 20 state_is tw-pg asleep
	check "postgres stopped cleanly, every time (fast shutdown)" \
	    sh -c "[ \$(grep -c 'database system is shut down' \
	    '$T/log/tw-pg.log') -eq 3 ]"
else
	echo "skipped: PostgreSQL ($PGBIN/postgres, psql) is not installed"
fi

# -- Redis
if [ -n "$HAVE_REDIS" ]; then
	rcli() { redis-cli -h 127.0.0.1 -p "$L_RD" "$@" 2>&1; }
	check "tw-redis is asleep" state_is tw-redis asleep
	out=$(rcli ping)
	check "redis-cli against the sleeping Redis wakes it: $out" \
	    [ "$out" = PONG ]
	check "and it keeps what it is given" sh -c \
	    "[ \"\$(redis-cli -h 127.0.0.1 -p $L_RD set k orchd)\" = OK ] &&
	    [ \"\$(redis-cli -h 127.0.0.1 -p $L_RD get k)\" = orchd ]"
	check "suspended when idle" wait_for 15 state_is tw-redis asleep
	out=$(rcli get k)
	check "woken again, empty: no dump saved ($out)" [ -z "$out" ]
else
	echo "skipped: Redis (redis-server, redis-cli) is not installed"
fi

# -- a container on a network of its own, through its published port
if [ -n "$HAVE_DOCKER" ]; then
	printf 'GET /i HTTP/1.0\r\n\r\n' |
	    "$T/bin/testhttp" half "$L_BOX" 60 >"$T/box.out"
	check "a connection wakes the container on network $NET and gets \
its answer through the published port" \
	    sh -c "grep -q '^HTTP/1.[01] 200' '$T/box.out' &&
	    grep -q '^boxed' '$T/box.out'"
	check "the container is on that network" sh -c "docker inspect -f \
	    '{{range \$k, \$v := .NetworkSettings.Networks}}{{\$k}} {{end}}' \
	    $(cname tw-box) | grep -qw '$NET'"
	check "suspended when idle" wait_for 30 state_is tw-box asleep
else
	echo "skipped: the container case (no Docker, or no test image)"
fi

check "orchctl still answers" ctl show summary
stop_orchd
st=$STATUS
check "orchd stops cleanly (status $st)" [ "$st" -eq 0 ]
ORCHD_PID=
e2e_done
