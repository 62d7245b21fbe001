#!/bin/sh
# Attacks on the gate, replayed against a live orchd.  A sleeping
# workload behind "auth basic" must stay asleep, its starts counted,
# whatever a stranger sends: no credentials, a wrong password, a user
# the file lacks, a huge Authorization, a user that is not UTF-8, the
# same over HTTP/2 and as a WebSocket upgrade, and 1,000 requests in a
# row.  Wrong passwords count against the per-address cap of wrong API
# keys: past it, 429 before any hash is computed (a right password from
# that address as well), while another address still passes.  Behind
# "auth request": a service that hangs gets 504 within its timeout, one
# that is down 503, one that answers 500 a 502; none wakes anything.
# The gateway serves on, and a right password still wakes the workload.
#
# On a build without the gate the configuration is refused; the same
# workload without it is then woken by the first stranger (the attack
# this file defends against), which fails here.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
command -v htpasswd >/dev/null 2>&1 || skip "no htpasswd (apache2-utils)"
command -v python3 >/dev/null 2>&1 || skip "no python3"

ports GW P_SLEEPY P_HANG P_DOWN P_ERR A_HANG A_DOWN A_ERR
mkdir -p "$T/log" "$T/bin"
testhttp_bin
for w in sleepy hang down err; do
	: >"$T/$w.starts"
	chmod 0666 "$T/$w.starts"
done
serve() { echo "$T/bin/testhttp serve $2 $T/$1.starts"; }
starts() { wc -l <"$T/$1.starts" | tr -d ' '; }
htpasswd -cbB "$T/htpasswd" alice 'correct horse' 2>/dev/null
chmod 0644 "$T/htpasswd"

AUTH=$(dirname "$0")/gateauth.py
python3 "$AUTH" "$A_HANG" hang "$T/hang.log" 2>/dev/null &
HANGPID=$!
python3 "$AUTH" "$A_ERR" error "$T/err.log" 2>/dev/null &
ERRPID=$!
trap 'kill $HANGPID $ERRPID 2>/dev/null; e2e_cleanup' EXIT
wait_for 10 sh -c "ss -ltn | grep -q ':$A_HANG ' && ss -ltn | grep -q ':$A_ERR '" ||
    fail "the auth services did not start"

write_conf() {	# write_conf GATED: 1 with the gate, 0 without
	if [ "$1" = 1 ]; then
		g_sleepy="auth basic \"$T/htpasswd\""
		g_hang="auth request \"http://127.0.0.1:$A_HANG/oauth2/auth\" timeout 2s"
		g_down="auth request \"http://127.0.0.1:$A_DOWN/oauth2/auth\""
		g_err="auth request \"http://127.0.0.1:$A_ERR/oauth2/auth\""
	else
		g_sleepy= g_hang= g_down= g_err=
	fi
	cat >"$T/orchd.conf" <<CONF
$(conf_head)
listen on 127.0.0.1 port $GW http2 prior knowledge
wake timeout 10s
access log "$T/log/access.log"

workload "sleepy" {
	host "sleepy.test"
	command "$(serve sleepy $P_SLEEPY)"
	port $P_SLEEPY
	$g_sleepy
}
workload "hang" {
	host "hang.test"
	command "$(serve hang $P_HANG)"
	port $P_HANG
	$g_hang
}
workload "down" {
	host "down.test"
	command "$(serve down $P_DOWN)"
	port $P_DOWN
	$g_down
}
workload "err" {
	host "err.test"
	command "$(serve err $P_ERR)"
	port $P_ERR
	$g_err
}
CONF
}

code() {	# code HOST [curl args...]: the status alone
	h=$1
	shift
	curl -s -o /dev/null -w '%{http_code}' -m 20 -H "Host: $h" "$@" \
	    "http://127.0.0.1:$GW/"
}

write_conf 1
if ! "$ORCHD" -n -f "$T/orchd.conf" >"$T/n.out" 2>&1; then
	fail "orchd.conf with auth basic, auth request is refused:"
	sed 's/^/# /' "$T/n.out" | head -n 5
	# without the gate, what a stranger does to a sleeping workload
	write_conf 0
	start_orchd_or_exit
	c=$(code sleepy.test)
	check "without a gate, a stranger's request wakes nothing ($c, $(starts sleepy) start)" \
	    [ "$(starts sleepy)" -eq 0 ]
	e2e_done
	exit 1
fi
start_orchd_or_exit

# -- a stranger at a sleeping workload: 401, and no start
check "no Authorization: 401" [ "$(code sleepy.test)" = 401 ]
check "a wrong password: 401" \
    [ "$(code sleepy.test -u 'alice:wrong')" = 401 ]
check "a user the file lacks: 401" \
    [ "$(code sleepy.test -u 'root:correct horse')" = 401 ]
check "not Basic (Bearer): 401" \
    [ "$(code sleepy.test -H 'Authorization: Bearer x')" = 401 ]
check "Basic with bad base64: 401" \
    [ "$(code sleepy.test -H 'Authorization: Basic !!!!')" = 401 ]
big=$(head -c 12000 /dev/zero | tr '\0' 'A')
c=$(code sleepy.test -H "Authorization: Basic $big")
check "a huge Authorization (12 KB): refused ($c)" \
    sh -c "[ '$c' = 401 ] || [ '$c' = 431 ]"
mid=$(head -c 4000 /dev/zero | tr '\0' 'A')
check "a long Authorization (4 KB, under the head's limits): 401" \
    [ "$(code sleepy.test -H "Authorization: Basic $mid")" = 401 ]
nonutf=$(printf '\377\376\375:correct horse' | base64)
check "a user that is not UTF-8: 401" \
    [ "$(code sleepy.test -H "Authorization: Basic $nonutf")" = 401 ]
nouser=$(printf ':correct horse' | base64)
check "an empty user: 401" \
    [ "$(code sleepy.test -H "Authorization: Basic $nouser")" = 401 ]
c=$(curl -s -o /dev/null -w '%{http_code}' -m 20 --http2-prior-knowledge \
    -H 'Host: sleepy.test' "http://127.0.0.1:$GW/")
check "HTTP/2 without credentials: 401 ($c)" [ "$c" = 401 ]
printf 'GET /ws HTTP/1.1\r\nHost: sleepy.test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n' |
    "$T/bin/testhttp" raw "$GW" 5 | tr -d '\r' >"$T/ws.out"
check "a WebSocket upgrade without credentials: 401" \
    grep -q '^HTTP/1.1 401' "$T/ws.out"
sleep 1
check "after all that, nothing started ($(starts sleepy))" \
    [ "$(starts sleepy)" -eq 0 ]

# -- 1,000 strangers in a row: the workload stays asleep
i=0
: >"$T/many.cfg"
while [ $i -lt 1000 ]; do
	printf 'url = "http://127.0.0.1:%s/x%d"\noutput = "/dev/null"\n' \
	    "$GW" "$i" >>"$T/many.cfg"
	i=$((i + 1))
done
curl -s -m 120 -Z --parallel-max 20 -K "$T/many.cfg" \
    -H 'Host: sleepy.test' -w '%{http_code}\n' >"$T/many.out" 2>/dev/null
n401=$(grep -c '^401$' "$T/many.out")
check "1,000 unauthenticated requests: 1,000 answered 401 ($n401)" \
    [ "$n401" -eq 1000 ]
sleep 2
check "... and the workload never started ($(starts sleepy))" \
    [ "$(starts sleepy)" -eq 0 ]
"$ORCHCTL" -s "$SOCK" show workloads >"$T/show.out" 2>&1
check "... it is asleep" grep -Eq '^sleepy +asleep ' "$T/show.out"

# -- wrong passwords hit the per-address cap: 429, without a hash
seen429=0
i=0
while [ $i -lt 20 ]; do
	c=$(code sleepy.test -u "alice:guess$i" --interface 127.0.0.4)
	[ "$c" = 429 ] && seen429=$((seen429 + 1))
	i=$((i + 1))
done
check "20 wrong passwords from one address: 429 past the cap ($seen429)" \
    [ "$seen429" -ge 5 ]
t0=$(now_ms)
c=$(code sleepy.test -u 'alice:correct horse' --interface 127.0.0.4)
t1=$(now_ms)
check "... then even the right one from it: 429 ($c), at once ($((t1 - t0)) ms)" \
    sh -c "[ '$c' = 429 ] && [ $((t1 - t0)) -lt 1000 ]"
check "... the access log says basic-limited" \
    wait_for 5 grep -q ' 429 .* gate=basic-limited$' "$T/log/access.log"
check "... and nothing started ($(starts sleepy))" [ "$(starts sleepy)" -eq 0 ]

# -- auth request: a hang, a service down, one answering 500
t0=$(now_ms)
c=$(code hang.test -b 'session=good')
t1=$(now_ms)
check "an auth service that hangs: 504 ($c) after its 2 s ($((t1 - t0)) ms)" \
    sh -c "[ '$c' = 504 ] && [ $((t1 - t0)) -ge 1500 ] && [ $((t1 - t0)) -lt 6000 ]"
check "an auth service that is down: 503" \
    [ "$(code down.test -b 'session=good')" = 503 ]
check "an auth service answering 500: 502" \
    [ "$(code err.test -b 'session=good')" = 502 ]
c=$(curl -s -o /dev/null -w '%{http_code}' -m 20 --http2-prior-knowledge \
    -H 'Host: hang.test' "http://127.0.0.1:$GW/")
check "HTTP/2 at the hanging service: 504 ($c)" [ "$c" = 504 ]
sleep 1
check "none of them woke its workload ($(starts hang) $(starts down) $(starts err))" \
    sh -c "[ $(starts hang) -eq 0 ] && [ $(starts down) -eq 0 ] &&
    [ $(starts err) -eq 0 ]"
check "the access log says auth-timeout, auth-down, request-5xx" \
    sh -c "grep -q ' 504 .* gate=auth-timeout$' '$T/log/access.log' &&
    grep -q ' 503 .* gate=auth-down$' '$T/log/access.log' &&
    grep -q ' 502 .* gate=request-5xx$' '$T/log/access.log'"

# -- the gateway is whole: the right password wakes the workload
check "orchd is alive" alive "$ORCHD_PID"
check "the right password from another address: 200" \
    [ "$(code sleepy.test -u 'alice:correct horse')" = 200 ]
check "... on one start ($(starts sleepy))" [ "$(starts sleepy)" -eq 1 ]

e2e_done
