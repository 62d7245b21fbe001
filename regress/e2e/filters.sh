#!/bin/sh
# What is not use.  A monitor's /up (ignore path, agent, from; a trusted
# proxy's X-Forwarded-For) wakes no sleeping workload: orchd answers it
# 503 with Retry-After and Orchd-State, or the rule's 200 "asleep", and
# nothing starts; to a running one it is proxied and the workload is
# suspended at its idle timeout all the same.  A failed workload's
# answer stays a 503.  A silent WebSocket stops counting after its
# tunnel idle timeout: the workload is suspended, the socket closed; one
# that talks keeps it up.  An answer that waited for a wake carries
# Server-Timing, no other does, nor any with server timing off.  A
# reload brings new global rules.  Two gateways (prefork), each with the
# rules.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports GW P_MON P_QUIET P_LAN P_WS P_TALK P_BROKEN
mkdir -p "$T/log" "$T/bin"
testhttp_bin
for w in mon quiet lan ws talk; do
	: >"$T/$w.starts"
	: >"$T/$w.reqs"
	chmod 0666 "$T/$w.starts" "$T/$w.reqs"
done

# serve NAME PORT: the command of a testhttp workload
serve() { echo "$T/bin/testhttp serve $2 $T/$1.starts $T/$1.reqs"; }

write_conf() {	# write_conf [GLOBAL-LINE]
	cat >"$T/orchd.conf" <<CONF
$(conf_head)
listen on 127.0.0.1 port $GW
reaper interval 1s
prefork 2
wake timeout 5s
trusted proxy "127.0.0.3"
ignore agent "Monitor/*" answer 200
$1

workload "mon" {
	host "mon.test"
	command "$(serve mon $P_MON)"
	port $P_MON
	idle timeout 2s
	ignore path "/up"
}
workload "quiet" {
	host "quiet.test"
	command "$(serve quiet $P_QUIET)"
	port $P_QUIET
	server timing off
}
workload "lan" {
	host "lan.test"
	command "$(serve lan $P_LAN)"
	port $P_LAN
	ignore from 127.0.0.2
	ignore from "192.0.2.0/24" answer 200
}
workload "ws" {
	host "ws.test"
	command "$(serve ws $P_WS)"
	port $P_WS
	idle timeout 2s
	tunnel idle timeout 2s
}
workload "talk" {
	host "talk.test"
	command "$(serve talk $P_TALK)"
	port $P_TALK
	idle timeout 2s
	tunnel idle timeout 2s
}
workload "broken" {
	host "broken.test"
	command "/bin/false"
	port $P_BROKEN
}
CONF
}

# get HOST PATH [curl args...]: the head and body, CRs gone
get() {
	h=$1
	p=$2
	shift 2
	curl -sS -i -m 30 -H "Host: $h" "$@" "http://127.0.0.1:$GW$p" |
	    tr -d '\r'
}
status() { head -n 1 | cut -d ' ' -f 2; }
header() { grep -i "^$1:" | head -n 1 | cut -d ' ' -f 2-; }
body() { sed '1,/^$/d'; }
# answer_is FILE STATUS [ORCHD-STATE [BODY]]: what get saved in FILE
answer_is() {
	[ "$(status <"$1")" = "$2" ] || return 1
	[ -z "$3" ] || [ "$(header Orchd-State <"$1")" = "$3" ] || return 1
	[ -z "$4" ] || [ "$(body <"$1")" = "$4" ]
}
no_timing() { ! grep -qi '^server-timing:' "$@"; }
starts() { wc -l <"$T/$1.starts" | tr -d ' '; }
is_state() {	# is_state NAME STATE
	"$ORCHCTL" -s "$SOCK" show workloads | grep -Eq "^$1 +$2 "
}

write_conf
start_orchd_or_exit

# -- a sleeping workload: nothing wakes it, orchd answers
get mon.test /up >"$T/a.out"
check "/up to a sleeping workload: 503" [ "$(status <"$T/a.out")" = 503 ]
check "with Retry-After" [ -n "$(header Retry-After <"$T/a.out")" ]
check "with Orchd-State: asleep" \
    [ "$(header Orchd-State <"$T/a.out")" = asleep ]
check "its query left aside: /up?probe=1 as well" \
    [ "$(get mon.test '/up?probe=1' | status)" = 503 ]
get mon.test / -A "Monitor/1.0 (+https://monitor.example)" >"$T/b.out"
check "a monitor's agent with answer 200: 200 \"asleep\"" \
    answer_is "$T/b.out" 200 asleep asleep
check "with no Retry-After" [ -z "$(header Retry-After <"$T/b.out")" ]
# HEAD, then GET on the same connection: a head alone, then the next
printf 'HEAD /up HTTP/1.1\r\nHost: mon.test\r\n\r\nGET /up HTTP/1.1\r\nHost: mon.test\r\nConnection: close\r\n\r\n' |
    "$T/bin/testhttp" raw "$GW" 5 | tr -d '\r' >"$T/head.out"
check "HEAD gets the head alone, and the connection serves the next" \
    sh -c "[ \$(grep -c '^HTTP/1.1 503' '$T/head.out') -eq 2 ] &&
    [ \$(grep -c '^asleep\$' '$T/head.out') -eq 1 ]"
sleep 1
check "nothing started ($(starts mon))" [ "$(starts mon)" -eq 0 ]
check "it is still asleep" is_state mon asleep

# -- the client's address, and a trusted proxy's X-Forwarded-For
get lan.test / --interface 127.0.0.2 >"$T/c.out"
check "from an ignored address: 503 asleep" answer_is "$T/c.out" 503 asleep
get lan.test / --interface 127.0.0.3 -H "X-Forwarded-For: 192.0.2.5" \
    >"$T/d.out"
check "from an ignored network behind a trusted proxy: its 200" \
    answer_is "$T/d.out" 200 asleep asleep
check "nothing started ($(starts lan))" [ "$(starts lan)" -eq 0 ]
get lan.test / -H "X-Forwarded-For: 192.0.2.5" >"$T/e.out"
check "the same X-Forwarded-For from anyone else is not believed: woken" \
    answer_is "$T/e.out" 200 "" "hello from testhttp"
check "on one start ($(starts lan))" [ "$(starts lan)" -eq 1 ]

# -- a wake shows in Server-Timing; nothing else does
get mon.test / >"$T/w.out"
check "a request wakes it" answer_is "$T/w.out" 200 "" "hello from testhttp"
check "on one start ($(starts mon))" [ "$(starts mon)" -eq 1 ]
st=$(header Server-Timing <"$T/w.out")
check "the answer that waited carries Server-Timing ($st)" \
    sh -c "echo '$st' | grep -Eq '^wake;dur=[0-9]+\.[0-9]\$'"
get mon.test / >"$T/w2.out"
check "the next, served at once, does not" no_timing "$T/w2.out"
check "nor does an answer of orchd's own" no_timing "$T/a.out" "$T/b.out"
get quiet.test / >"$T/q.out"
check "with server timing off, a woken answer carries none" \
    sh -c "grep -q '^hello from testhttp' '$T/q.out' &&
    ! grep -qi '^server-timing:' '$T/q.out'"

# -- a running workload: /up is proxied, and is no use
get mon.test /up >"$T/u.out"
check "/up to the running workload reaches it" \
    answer_is "$T/u.out" 200 "" "hello from testhttp"
check "its log shows it" grep -q 'GET /up' "$T/mon.reqs"
# a monitor every 200 ms, bounded to 30 s, while the reaper looks
(i=0; while [ $i -lt 150 ]; do
	get mon.test /up >/dev/null 2>&1
	sleep 0.2
	i=$((i + 1))
done) &
monitor=$!
check "polled every 200 ms, it is suspended at its 2 s idle timeout" \
    wait_for 20 is_state mon asleep
n=$(grep -c 'GET /up' "$T/mon.reqs")
check "the monitor's requests reached it meanwhile ($n)" [ "$n" -ge 3 ]
sleep 1
check "and woke nothing after ($(starts mon) start)" [ "$(starts mon)" -eq 1 ]
kill "$monitor" 2>/dev/null
wait "$monitor" 2>/dev/null
get mon.test / >"$T/w3.out"
check "the next real request wakes it, with Server-Timing again" \
    grep -Eq '^Server-Timing: wake;dur=' "$T/w3.out"
check "on its second start ($(starts mon))" [ "$(starts mon)" -eq 2 ]

# -- a failed workload: a 503 even where the rule says 200
get broken.test / >/dev/null
check "broken fails to wake" wait_for 10 is_state broken failed
get broken.test / -A "Monitor/1.0" >"$T/f.out"
check "the monitor sees it: 503, Orchd-State: failed" \
    answer_is "$T/f.out" 503 failed failed

# -- tunnels: a silent one stops counting, a talking one keeps it up
upgrade() {	# upgrade HOST
	printf 'GET /ws HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n' "$1"
}
upgrade ws.test | "$T/bin/testhttp" raw "$GW" 60 >"$T/ws.out" &
silent=$!
# a message a second for 12 s, six times the tunnel idle timeout
(upgrade talk.test
i=0; while [ $i -lt 12 ]; do printf "msg$i "; sleep 1; i=$((i + 1)); done) |
    "$T/bin/testhttp" raw "$GW" 60 >"$T/talk.out" &
talk=$!
check "the silent WebSocket's workload is suspended after 2 s + 2 s" \
    wait_for 30 is_state ws asleep
check "and the suspend closed its socket" \
    wait_for 10 grep -q 'closed$' "$T/ws.out"
check "it had been opened (101) and nothing came through it" \
    sh -c "head -n 1 '$T/ws.out' | grep -q '^HTTP/1.1 101' &&
    [ \$(grep -c . '$T/ws.out') -le 8 ]"
check "meanwhile the talking WebSocket keeps its workload up" \
    sh -c "! grep -q 'workload talk: running -> suspending' '$T/orchd.log'"
check "talk is running" is_state talk running
check "once it falls silent, it is suspended too" \
    wait_for 40 is_state talk asleep
check "and its socket closed" wait_for 10 grep -q 'closed$' "$T/talk.out"
check "after every message came back" grep -q 'msg11' "$T/talk.out"
check "each tunnel on one start ($(starts ws), $(starts talk))" \
    [ "$(starts ws)$(starts talk)" = 11 ]
wait "$silent" "$talk" 2>/dev/null

# -- a reload brings new global rules
write_conf 'ignore path "/late*"'
check "orchctl reload" "$ORCHCTL" -s "$SOCK" reload
get ws.test /later >"$T/r.out"
check "a new global rule holds after it: 503 asleep" \
    answer_is "$T/r.out" 503 asleep asleep
check "and woke nothing ($(starts ws))" [ "$(starts ws)" -eq 1 ]

check "orchctl still answers" "$ORCHCTL" -s "$SOCK" show summary
stop_orchd; st=$STATUS
check "orchd stops cleanly (status $st)" [ "$st" -eq 0 ]
ORCHD_PID=
e2e_done
