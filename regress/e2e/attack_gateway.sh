#!/bin/sh
# Attacks on the gateway itself (issue 28, items 9 to 12), each replayed
# against a live orchd with "prefork 2", and failing if it works:
#  9. past the cap of wrong API keys, the right key from that address is
#     answered 429 too, by both gateways, until the cap's window ends;
#     then 200.  Another address is not held.
# 10. a client's X-Real-IP and X-Forwarded-* (and their X_Real_IP
#     spellings) never reach the workload: it sees the client's address,
#     over HTTP/1.1 and HTTP/2.
# 11. 50,000 empty DATA frames, or 50,000 PRIORITY frames, on one HTTP/2
#     connection end it with GOAWAY ENHANCE_YOUR_CALM, while curl on
#     another connection is served.
# 12. one address holding connections: by default at most 1024 of them
#     (max connections per address unset); with "max connections per
#     address 8", the rest refused at once, counted in /metrics, while
#     127.0.0.2 still connects and is served.
# All on loopback, every wait bounded.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
for cmd in curl openssl; do
	command -v $cmd >/dev/null || skip "no $cmd"
done
/usr/bin/python3 -c 'import hpack' 2>/dev/null || skip "no python3-hpack"

port_base 7
ports GW API APORT
ATTACK="/usr/bin/python3 $(dirname "$0")/h2attack.py"
mkdir -p "$T/log"
testhttp_bin
KEY=$(openssl rand -hex 16)
WRONG=$(openssl rand -hex 16)
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"

write_conf() {	# write_conf [LINE]: the configuration, LINE added
	conf_head >"$T/orchd.conf"
	cat >>"$T/orchd.conf" <<CONF
prefork 2
idle timeout 5m
${1:-}
listen on 127.0.0.1 port $GW http2 prior knowledge
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
api metrics public

workload "a" {
	host "a.test"
	command "$T/bin/testhttp serve $APORT"
	port $APORT
}
CONF
}
write_conf
start_orchd_or_exit
URL=http://127.0.0.1:$API

# hold COUNT SECS [SOURCE]: COUNT connections to the gateway from SOURCE
# (127.0.0.1), each silent; after a second, those the gateway closed are
# refused; the rest are held SECS more.  Prints "open=N refused=M" at
# once to $T/hold.out.
hold() {
	ulimit -n 4096 2>/dev/null
	/usr/bin/python3 - "$GW" "$1" "$2" "${3:-127.0.0.1}" \
	    >"$T/hold.out" 2>&1 <<'PY' &
import select, socket, sys, time
port, n, secs, src = int(sys.argv[1]), int(sys.argv[2]), \
    float(sys.argv[3]), sys.argv[4]
socks = []
for i in range(n):
    s = socket.socket()
    s.settimeout(5)
    s.bind((src, 0))
    try:
        s.connect(("127.0.0.1", port))
    except OSError:
        s.close()
        continue
    socks.append(s)
time.sleep(1)
refused = 0
for s in socks:
    # poll, not select: past 1024 descriptors select cannot say
    p = select.poll()
    p.register(s, select.POLLIN)
    if p.poll(0):
        refused += 1
print("open=%d refused=%d" % (len(socks) - refused, refused), flush=True)
time.sleep(secs)
PY
	HOLD=$!
	wait_for 30 grep -q open= "$T/hold.out"
}
held() {	# held: N of "open=N"
	sed -n 's/^open=\([0-9]*\) .*/\1/p' "$T/hold.out"
}

# -- 9. wrong keys to the cap, then the right key
code() {	# code [curl args...]: the status alone
	curl -s -m 30 -o /dev/null -w '%{http_code}' "$@"
}
n429=0
for i in $(seq 1 14); do
	c=$(code -H "Authorization: Bearer $WRONG" "$URL/v1/workloads")
	[ "$c" = 429 ] && n429=$((n429 + 1))
done
check "9: wrong keys past the cap get 429 ($n429 of 14)" [ "$n429" -ge 1 ]
right=
for i in 1 2 3 4 5 6; do
	right="$right $(code -H "Authorization: Bearer $KEY" \
	    "$URL/v1/workloads")"
done
check "9: ... the right key from that address: 429 from both gateways ($right)" \
    [ "$(echo $right | tr ' ' '\n' | grep -vc '^429$')" -eq 0 ]
t0=$(date +%s)
curl -s -m 10 -D "$T/h429" -o /dev/null -H "Authorization: Bearer $KEY" \
    "$URL/v1/workloads"
RA=$(sed -n 's/^Retry-After: *\([0-9]*\).*/\1/ip' "$T/h429" | head -n 1)
check "9: ... with a Retry-After of at most a minute (${RA:-none})" \
    sh -c "[ -n '$RA' ] && [ '${RA:-0}' -ge 1 ] && [ '${RA:-0}' -le 60 ]"
c=$(code --interface 127.0.0.2 -H "Authorization: Bearer $KEY" \
    "$URL/v1/workloads")
check "9: ... another address with the right key: 200 (got $c)" [ "$c" = 200 ]
c=$(code "$URL/metrics")
check "9: ... public /metrics still answered to the address (got $c)" \
    [ "$c" = 200 ]

# -- 10. what a client says of itself never reaches the workload
curl -s -m 30 -H 'Host: a.test' -H 'X-Real-IP: evil-real' \
    -H 'X-Forwarded-For: evil-xff' -H 'X-Forwarded-Host: evil-host' \
    -H 'X-Forwarded-Proto: evil-proto' -H 'X_Real_IP: evil-under' \
    -o "$T/h1.out" "http://127.0.0.1:$GW/headers"
check "10: HTTP/1.1: the workload sees X-Real-IP: 127.0.0.1" \
    grep -qi '^X-Real-IP: 127.0.0.1' "$T/h1.out"
check "10: ... and X-Forwarded-For: 127.0.0.1" \
    grep -qi '^X-Forwarded-For: 127.0.0.1' "$T/h1.out"
check "10: ... and nothing the client said ($(grep -ci evil "$T/h1.out"))" \
    sh -c "! grep -qi evil '$T/h1.out'"
curl -s -m 30 --http2-prior-knowledge -H 'X-Real-IP: evil-real' \
    -H 'X-Forwarded-For: evil-xff' -H 'X_Real_IP: evil-under' \
    --resolve "a.test:$GW:127.0.0.1" -o "$T/h2.out" \
    -w '%{http_version}' "http://a.test:$GW/headers" >"$T/h2.ver"
check "10: HTTP/2 ($(cat "$T/h2.ver")): the workload sees X-Real-IP: 127.0.0.1" \
    grep -qi '^X-Real-IP: 127.0.0.1' "$T/h2.out"
check "10: ... and X-Forwarded-For: 127.0.0.1" \
    grep -qi '^X-Forwarded-For: 127.0.0.1' "$T/h2.out"
check "10: ... and nothing the client said ($(grep -ci evil "$T/h2.out"))" \
    sh -c "! grep -qi evil '$T/h2.out'"

# -- 11. floods of frames that cost the client nothing
attack() {	# attack NAME
	$ATTACK "$1" "$GW" a.test >"$T/$1.out" 2>&1 &
	apid=$!
	sleep 1
	out=$(curl -s -m 10 --http2-prior-knowledge -o /dev/null \
	    -w '%{http_code} %{http_version}' \
	    --resolve "a.test:$GW:127.0.0.1" "http://a.test:$GW/")
	wait_gone $apid 60 || kill $apid 2>/dev/null
	wait $apid 2>/dev/null
	# ENHANCE_YOUR_CALM is 11
	check "11: $(cat "$T/$1.out"): GOAWAY ENHANCE_YOUR_CALM" \
	    grep -q 'goaway=1 error=11 closed=1' "$T/$1.out"
	check "11: ... curl on another connection served meanwhile ($out)" \
	    [ "$out" = "200 2" ]
}
attack empty-data
attack priority-flood

# -- 12. connections per address: the default, then a small limit
hold 1200 10
n=$(held)
check "12: default: of 1200 connections from one address at most 1024 held ($(cat "$T/hold.out"))" \
    sh -c "[ -n '$n' ] && [ '${n:-0}' -le 1024 ] && [ '${n:-0}' -ge 256 ]"
kill $HOLD 2>/dev/null
wait $HOLD 2>/dev/null

write_conf "max connections per address 8"
"$ORCHCTL" -s "$SOCK" reload >"$T/reload.out" 2>&1
check "12: a reload sets max connections per address 8" \
    grep -qx "configuration reloaded" "$T/reload.out"
sleep 1
hold 20 15
n=$(held)
check "12: of 20 connections from 127.0.0.1 at most 8 held, the rest refused at once ($(cat "$T/hold.out"))" \
    sh -c "[ -n '$n' ] && [ '${n:-0}' -le 8 ] && [ '${n:-0}' -ge 2 ] &&
    grep -q 'refused=1[2-8]' '$T/hold.out'"
out=$(curl -s -m 10 -o /dev/null -w '%{http_code}' -H 'Host: a.test' \
    --interface 127.0.0.2 "http://127.0.0.1:$GW/")
check "12: ... meanwhile 127.0.0.2 connects and is served ($out)" \
    [ "$out" = 200 ]
curl -s -m 10 --interface 127.0.0.2 -o "$T/metrics" "$URL/metrics"
r=$(awk '/^orchd_gateway_address_refused_total / { print $2 }' "$T/metrics")
check "12: ... counted in /metrics (${r:-none})" [ "${r:-0}" -ge 12 ]
check "12: ... and logged" grep -q "over max connections per address" \
    "$T/orchd.log"
kill $HOLD 2>/dev/null
wait $HOLD 2>/dev/null

# -- 9, the end: the cap's window over, the right key works again
left=$((t0 + RA + 1 - $(date +%s)))
[ "$left" -gt 0 ] && [ "$left" -le 61 ] && sleep "$left"
c=$(code -H "Authorization: Bearer $KEY" "$URL/v1/workloads")
check "9: after the window (Retry-After ${RA}s), the right key: 200 (got $c)" \
    [ "$c" = 200 ]

stop_orchd; st=$STATUS
check "orchd stops cleanly (status $st)" [ "$st" -eq 0 ]
ORCHD_PID=
e2e_done
