#!/bin/sh
# Webhooks ("notify", orchd.conf(5)): events caused for real (a workload
# that cannot start, its crash-loop backoff, a reload refused, an ACME
# issuance that fails, an API workload that expires, one suspended for
# the memory budget) reach a
# receiver written for the test (hookrecv.py), which checks each
# signature (HMAC-SHA256 of "TIMESTAMP.BODY", the timestamp recent).  A
# receiver that fails twice gets the event at the third try; one that
# is down is given up after the bounded tries, the drop counted in
# /metrics; one that is slow never holds the daemon: requests are
# served and orchctl answers meanwhile.  Each URL gets only the events
# it asks for, each event one id at every try.  notifyd runs
# unprivileged, chrooted to its own directory (a name resolved there)
# and filtered, and its loss ends the daemon.  orchd -nv prints notify
# and reads its print back.  Every wait bounded.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
command -v python3 >/dev/null || skip "no python3"

ports GW API P_GOOD P_BAD R_OK R_FLAKY R_SLOW R_DOWN SPORT P_EXP P_E1 P_E2 \
    P_E3 GW2

KEY=0123456789abcdef0123456789abcdef$$
HKEY=fedcba9876543210fedcba9876543210h$$
mkdir -p "$T/log" "$T/bin"
testhttp_bin
printf '%s\n' "$KEY" >"$T/api.key"
printf '%s\n' "$HKEY" >"$T/hook.key"
chmod 0600 "$T/api.key" "$T/hook.key"
# the tests' short delays between tries (notifyd reads it, bounded)
ORCHD_NOTIFY_BACKOFF_MS=200
export ORCHD_NOTIFY_BACKOFF_MS

RECV="$(dirname "$0")/hookrecv.py"
RPIDS=
recv() {	# recv PORT NAME MODE [ARG]
	python3 "$RECV" "$1" "$T/hook.key" "$T/$2.log" "$3" ${4:-} \
	    2>>"$T/recv.err" &
	RPIDS="$RPIDS $!"
	wait_for 10 sh -c "ss -Htln 'sport = :$1' | grep -q ."
}
cleanup_recv() {
	for p in $RPIDS; do
		kill "$p" 2>/dev/null
	done
}
trap 'cleanup_recv; e2e_cleanup' EXIT
recv "$R_OK" ok ok
recv "$R_FLAKY" flaky flaky 2
recv "$R_SLOW" slow slow 8
: >"$T/ok.log"
: >"$T/flaky.log"
: >"$T/slow.log"

{
	conf_head
	cat <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
notify key file "$T/hook.key"
notify allow loopback
notify "http://localhost:$R_OK/hook" failed backoff reload-refused
notify "http://127.0.0.1:$R_FLAKY/hook" failed
notify "http://127.0.0.1:$R_SLOW/hook" backoff
notify "http://127.0.0.1:$R_DOWN/hook" failed
workload "good" {
CONF
	conf_end 'host "good.test"' \
	    "command \"$T/bin/testhttp serve $P_GOOD\"" "port $P_GOOD"
	echo 'workload "bad" {'
	conf_end 'host "bad.test"' 'command "/bin/false"' "port $P_BAD" \
	    'wake timeout 5s'
} >"$T/orchd.conf"
cp "$T/orchd.conf" "$T/orchd.conf.good"

ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
get() {		# get HOST: the status of GET /
	curl -sS -m 30 -o /dev/null -w '%{http_code}' -H "Host: $1" \
	    "http://127.0.0.1:$GW/"
}
metric() {	# metric NAME: its value in a fresh /metrics
	curl -sS -m 30 -H "Authorization: Bearer $KEY" \
	    "http://127.0.0.1:$API/metrics" |
	    awk -v m="$1" '$1 == m { print $2 }'
}
has() { grep -q "$2" "$T/$1.log"; }	# has LOG PATTERN
count() { grep -c "$2" "$T/$1.log"; }	# count LOG PATTERN

check "orchd -n accepts the notify lines" "$ORCHD" -n -f "$T/orchd.conf"
refused_n() {	# refused_n PATTERN: orchd -n refuses $T/n.conf, saying so
	! "$ORCHD" -n -f "$T/n.conf" >"$T/n.out" 2>&1 &&
	    grep -q -- "$1" "$T/n.out"
}
grep -v '^notify "' "$T/orchd.conf" >"$T/n.conf"
check "a notify key file without a notify URL is refused" \
    refused_n "no notify URL"
grep -v '^notify key file' "$T/orchd.conf" >"$T/n.conf"
check "a notify without a key file is refused" \
    refused_n "no notify key file to sign with"
{ cat "$T/orchd.conf"; echo 'notify "http://127.0.0.1:1/" failed nosuch'; } \
    >"$T/n.conf"
check "an unknown event is refused" refused_n "unknown event nosuch"
"$ORCHD" -nv -f "$T/orchd.conf" >"$T/nv1" 2>/dev/null
check "orchd -nv prints them" sh -c "grep -qx 'notify allow loopback' \
    '$T/nv1' && grep -qx 'notify \"http://127.0.0.1:$R_FLAKY/hook\" failed' \
    '$T/nv1' && grep -qx 'notify key file \"$T/hook.key\"' '$T/nv1'"
"$ORCHD" -nv -f "$T/nv1" >"$T/nv2" 2>/dev/null
check "... and the print read back prints the same" cmp -s "$T/nv1" "$T/nv2"
check "... never the key" sh -c "! grep -q '$HKEY' '$T/nv1'"
start_orchd_or_exit -v

# -- the process that sends
np=$(child notify)
check "notifyd runs (pid ${np:-none})" [ -n "$np" ]
check "... and orchctl show summary lists it" sh -c \
    "'$ORCHCTL' -s '$SOCK' show summary | grep -qw 'notify.*$np'"
uid=$(awk '$1 == "Uid:" { print $2 }' "/proc/$np/status" 2>/dev/null)
check "... as _orchd, not root (uid $uid)" \
    [ "$uid" = "$(id -u _orchd)" ]
root=$(readlink "/proc/$np/root" 2>/dev/null)
check "... chrooted to a directory of its own ($root)" \
    [ "$root" = "$T/orchd-notify/root" ]
check "... holding the resolver's files alone" sh -c \
    "[ \"\$(cd '$T/orchd-notify/root' && find . | sort | tr '\n' ' ')\" = '. ./etc ./etc/hosts ./etc/resolv.conf ' ]"
check "... filtered (Seccomp 2)" \
    grep -Eq '^Seccomp:[[:space:]]+2' "/proc/$np/status"

# -- a workload that cannot start: failed, three times, then backoff
# (the first receiver by name: resolved in notifyd's chroot)
c=$(get bad.test)
check "a request to a workload that cannot start: 503 ($c)" [ "$c" = 503 ]
check "the receiver gets a signed \"failed\" event for it" \
    wait_for 20 has ok '^ok failed bad '
check "... its JSON: event, type, workload, to" wait_for 5 sh -c \
    "grep -q '\"event\":\"failed\".*\"to\":\"failed\".*\"type\":\"state\".*\"workload\":\"bad\"' '$T/ok.log.json'"
check "the flaky receiver gets it at the third try (500, 500, 204)" \
    wait_for 20 has flaky '^ok failed bad 3$'
ids=$(grep -o '"id":"[^"]*"' "$T/flaky.log.json" | sort -u | wc -l)
check "... the same event each time: one id ($ids)" [ "$ids" -eq 1 ]
get bad.test >/dev/null
get bad.test >/dev/null
check "the third failure within a minute: a \"backoff\" event" \
    wait_for 30 has ok '^ok backoff bad '
check "... and not to the URLs that did not ask for it" \
    sh -c "! grep -q backoff '$T/flaky.log'"

# -- the slow receiver holds notifyd, never the daemon
check "the slow receiver is being tried" wait_for 20 has slow '^ok backoff'
t0=$(now_ms)
c=$(get good.test)
t1=$(now_ms)
check "meanwhile a request is served ($c, $((t1 - t0)) ms)" \
    [ "$c" = 200 ] && [ $((t1 - t0)) -lt 4000 ]
t0=$(now_ms)
ctl show summary >/dev/null
t1=$(now_ms)
check "... and orchctl answers ($((t1 - t0)) ms)" [ $((t1 - t0)) -lt 2000 ]

# -- a reload refused
echo 'this is not orchd.conf' >>"$T/orchd.conf"
ctl reload >/dev/null 2>&1
check "a broken orchd.conf: the reload is refused" [ $? -ne 0 ]
check "the receiver gets a \"reload-refused\" event" \
    wait_for 30 has ok '^ok reload-refused - '
cp "$T/orchd.conf.good" "$T/orchd.conf"

# -- bounded: the down receiver and the slow one are given up
check "the event for the receiver that is down is dropped after its tries" \
    wait_for 60 grep -q "notify http://127.0.0.1:$R_DOWN/hook: failed event dropped after 6 tries" "$T/orchd.log"
check "the slow receiver's is dropped too, after 6 tries" \
    wait_for 90 grep -q "notify http://127.0.0.1:$R_SLOW/hook: backoff event dropped after 6 tries" "$T/orchd.log"
n=$(count slow '^ok backoff')
check "... having been tried 6 times, no more ($n)" [ "$n" -eq 6 ]
d=$(metric orchd_notify_dropped_total)
check "/metrics counts the drops ($d)" [ "${d:-0}" -ge 2 ]
s=$(metric orchd_notify_sent_total)
check "/metrics counts the events sent ($s)" [ "${s:-0}" -ge 4 ]
f=$(metric orchd_notify_failed_attempts_total)
check "/metrics counts the failed tries ($f)" [ "${f:-0}" -ge 14 ]
q=$(metric orchd_notify_queued)
check "nothing left queued ($q)" [ "$q" = 0 ]

# -- every signature was good
check "no receiver saw a bad or stale signature" \
    sh -c "! grep -hq '^badsig\|^stale' '$T/ok.log' '$T/flaky.log' '$T/slow.log'"
check "orchd is still running" alive "$ORCHD_PID"
stop_orchd
check "orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]

# -- a certificate that cannot be issued: its ACME server is down
{
	conf_head
	cat <<CONF
listen on 127.0.0.1 port $SPORT tls acme
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
api allow process
expire after 2s
reaper interval 1s
notify key file "$T/hook.key"
notify allow loopback
notify "http://127.0.0.1:$R_OK/cert" certificate expired evicted
listen on 127.0.0.1 port $GW2
memory budget 130M
acme {
	directory "https://127.0.0.1:$R_DOWN/dir"
}
workload "good" {
CONF
	conf_end 'host "app.s8hook.test"' \
	    "command \"$T/bin/testhttp serve $P_GOOD\"" "port $P_GOOD" \
	    'memory 1M'
	for e in 1 2 3; do
		eval "p=\$P_E$e"
		echo "workload \"e$e\" {"
		conf_end "host \"e$e.test\"" \
		    "command \"$T/bin/testhttp serve $p\"" "port $p" \
		    'memory 64M'
	done
} >"$T/orchd.conf"
: >"$T/ok.log"
start_orchd_or_exit -v
curl -s -k -m 20 -o /dev/null --resolve "app.s8hook.test:$SPORT:127.0.0.1" \
    "https://app.s8hook.test:$SPORT/"
check "an issuance that fails: a \"certificate\" event" \
    wait_for 30 has ok '^ok certificate - '
check "... naming the host and why" \
    grep -q '"event":"certificate".*"message":"app.s8hook.test: ' \
    "$T/ok.log.json"

# -- an API workload that expires
body=$(printf '{"name": "exp", "hosts": ["exp.test"], ' 
    printf '"command": "%s serve %s", "port": %s}' "$T/bin/testhttp" \
    "$P_EXP" "$P_EXP")
c=$(curl -s -m 30 -o /dev/null -w '%{http_code}' \
    -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \
    -d "$body" "http://127.0.0.1:$API/v1/workloads")
check "an API workload expiring after 2s is created ($c)" [ "$c" = 201 ]
check "its expiry: an \"expired\" event" \
    wait_for 30 has ok '^ok expired exp '
check "... saying why" grep -q '"event":"expired".*"message":"no request for 2s, deleted".*"reason":"expired"' "$T/ok.log.json"

# -- a suspend for room in the memory budget: two fit, the third evicts
for e in 1 2 3; do
	c=$(curl -sS -m 30 -o /dev/null -w '%{http_code}' -H "Host: e$e.test" \
	    "http://127.0.0.1:$GW2/")
	check "e$e is served within the budget ($c)" [ "$c" = 200 ]
	sleep 1
done
check "the least recently used, suspended for room: an \"evicted\" event" \
    wait_for 30 has ok '^ok evicted e1 '
check "... its reason budget" \
    grep -q '"event":"evicted".*"reason":"budget".*"workload":"e1"' \
    "$T/ok.log.json"

# -- notifyd is a child as the others: its loss ends the daemon
np=$(child notify)
kill -KILL "$np" 2>/dev/null
orchd_status
check "SIGKILL to notifyd: orchd exits 1 (status $STATUS)" [ "$STATUS" -eq 1 ]
check "... naming it" grep -q "lost child: notify" "$T/orchd.log"
e2e_done
