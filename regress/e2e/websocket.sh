#!/bin/sh
# An Upgrade through the gateway: after the workload's 101, bytes go both
# ways until a side closes, and the open tunnel keeps the workload from
# being suspended as idle.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

PORT=$((20000 + $$ % 10000))
WPORT=$((PORT + 1))
mkdir -p "$T/log" "$T/bin"
cp "$BUILD/regress/testhttp" "$T/bin/testhttp"
chmod 0755 "$T/bin" "$T/bin/testhttp"
: >"$T/starts"
chmod 0666 "$T/starts"
cat >"$T/orchd.conf" <<CONF
user "_orchd"
database "$T/db/orchd.db"
socket "$SOCK"
log directory "$T/log"
listen on 127.0.0.1 port $PORT
reaper interval 1s

workload "app" {
	host "app.test"
	command "$T/bin/testhttp serve $WPORT $T/starts"
	port $WPORT
	idle timeout 2s
}
CONF

check "orchd starts" start_orchd

UPGRADE='GET /ws HTTP/1.1\r\nHost: app.test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n'

# the upgrade wakes the workload; the tunnel stays open 6 s, three times
# the idle timeout, with a message at each end of it
(printf "$UPGRADE"; printf 'first-message'; sleep 6; printf 'second-message') |
    "$T/bin/testhttp" raw "$PORT" 3 >"$T/ws.out" &
ws=$!
sleep 5
check "the workload is not suspended while the tunnel is open" \
    sh -c "! grep -q 'workload app: running -> suspending' '$T/orchd.log'"
wait $ws
check "the workload answered 101" grep -q '^HTTP/1.1 101' "$T/ws.out"
check "the Upgrade reached the workload and came back" \
    sh -c "tr -d '\r' <'$T/ws.out' | grep -qi '^upgrade: websocket'"
check "bytes sent after the 101 come back" grep -q 'first-message' "$T/ws.out"
check "bytes sent 6 s later come back too" grep -q 'second-message' "$T/ws.out"
check "one start served it all" [ "$(grep -c start "$T/starts")" -eq 1 ]

check "once the tunnel closed, the idle workload is suspended" \
    wait_for 10 grep -q 'workload app: running -> suspending (idle)' \
    "$T/orchd.log"

# a request for an upgrade the workload refuses is an ordinary answer
printf 'GET /nows HTTP/1.1\r\nHost: app.test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n' |
    "$T/bin/testhttp" raw "$PORT" 3 >"$T/no.out"
check "a refused upgrade is answered over HTTP, no tunnel" \
    grep -q '^HTTP/1.1 200' "$T/no.out"

# many echoes through one tunnel, both ways at once
head -c 200000 /dev/urandom | od -An -tx1 | tr -d ' \n' | head -c 200000 >"$T/payload"
(printf "$UPGRADE"; cat "$T/payload"; sleep 2) |
    "$T/bin/testhttp" raw "$PORT" 3 | tr -d '\r' | sed '1,/^$/d' >"$T/echo.out"
check "200 KB through the tunnel come back intact" \
    sh -c "head -c 200000 '$T/echo.out' | cmp -s - '$T/payload'"

check "orchctl still answers" "$ORCHCTL" -s "$SOCK" show summary
stop_orchd; st=$STATUS
check "orchd stops cleanly (status $st)" [ "$st" -eq 0 ]
ORCHD_PID=
e2e_done
