#!/bin/sh
# The database's disk full: the database on a small tmpfs of its own,
# filled with a file until sqlite refuses to write (SQLITE_FULL).  A
# wake, a suspend and a wake then: proxying goes on, orchctl and the API
# tell the same, true state, the history and the wakes show what was
# held, /metrics and orchctl show summary count the held writes.  Then
# the filler goes: the database catches up (bounded wait), in order, and
# a restart reads the whole cycle back from the file.  Needs root.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports GW API P_HELLO
KEY=0123456789abcdef0123456789abcdef$(printf '%08x' $$)

# 2 MiB: the schema and a few WAL pages fit, the filler takes the rest
mkdir -p "$T/db" "$T/log" "$T/www"
tmpfs_mount "$T/db" 2m 0700
chown _orchd "$T/db"
echo hello >"$T/www/index.html"
chmod -R a+rX "$T/www"
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"

conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
wake timeout 10s
idle timeout 1h
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api host "api.test"
api key file "$T/api.key"

workload "hello" {
	host "hello.test"
	command "/bin/busybox httpd -f -p 127.0.0.1:$P_HELLO -h '$T/www'"
	port $P_HELLO
}
CONF

ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
api() {
	curl -s -m 20 -H "Authorization: Bearer $KEY" "http://127.0.0.1:$API$1"
}
get() {
	curl -s -m 20 -o /dev/null -w '%{http_code}' -H 'Host: hello.test' \
	    "http://127.0.0.1:$GW/"
}
# the state orchctl tells, and the API's
ctl_state() {
	ctl show workloads | awk '$1 == "hello" { print $2 }'
}
api_state() {
	api /v1/workloads/hello | python3 -c 'import json, sys
print(json.load(sys.stdin).get("state"))' 2>/dev/null
}
# agree STATE: orchctl and the API both tell it
agree() {
	[ "$(ctl_state)" = "$1" ] && [ "$(api_state)" = "$1" ]
}
field() {	# field NAME: a line "NAME: value[, ...]" of show workload hello
	ctl show workload hello | awk -v f="$1:" '$1 == f {
	    sub(/,$/, "", $2); print $2 }'
}
# the history's FROM -> TO pairs, in order, on one line
history() {
	ctl show workload hello | awk '
	    /^TIME/ { h = 1; next }
	    h && NF >= 4 { printf "%s>%s ", $2, $3 }'
}
metric() {	# metric NAME: its value in GET /metrics
	api /metrics | awk -v m="$1" '$1 == m { print $2 }'
}
held() { [ "$(metric orchd_store_queued_writes)" = "$1" ]; }

start_orchd_or_exit

# 1. the database written as usual: a wake and a suspend, no write held
check "a request wakes hello" [ "$(get)" = 200 ]
check "orchctl suspend hello" ctl suspend hello
check "orchctl and the API agree: asleep" wait_for 10 agree asleep
check "nothing held while the database takes the writes" held 0
BEFORE=$(history)
check "the first cycle is in the history" [ "$BEFORE" = \
    "asleep>waking waking>running running>suspending suspending>asleep " ]

# 2. the disk full: dd stops at ENOSPC; then a write that needs a new
# page of the write-ahead log is refused with SQLITE_FULL
dd if=/dev/zero of="$T/db/filler" bs=4096 >/dev/null 2>&1
check "the tmpfs is full" [ "$(df --output=avail "$T/db" | tail -n 1 |
    tr -d ' ')" -eq 0 ]

check "a request wakes hello, the disk full" [ "$(get)" = 200 ]
check "orchctl and the API agree: running" wait_for 10 agree running
check "the store holds writes" wait_for 10 sh -c \
    "grep -q 'writes held' '$T/orchd.log'"
check "orchctl suspend hello, the disk full" ctl suspend hello
check "orchctl and the API agree: asleep, the disk full" \
    wait_for 10 agree asleep
check "a request wakes hello again" [ "$(get)" = 200 ]
check "orchctl and the API agree: running again" wait_for 10 agree running
check "the wakes count the held ones" [ "$(field wakes)" = 3 ]
FULL="asleep>waking waking>running running>suspending suspending>asleep \
asleep>waking waking>running running>suspending suspending>asleep \
asleep>waking waking>running "
check "the history shows the held transitions" [ "$(history)" = "$FULL" ]
N=$(metric orchd_store_queued_writes)
check "/metrics counts the writes held ($N)" [ "${N:-0}" -ge 6 ]
check "/metrics counts them all held" \
    [ "$(metric orchd_store_queued_writes_total)" -ge "${N:-1}" ] 2>/dev/null
check "/metrics counts the bytes held" \
    [ "$(metric orchd_store_queued_bytes)" -gt 0 ] 2>/dev/null
check "/metrics counts no drop" \
    [ "$(metric orchd_store_dropped_writes_total)" = 0 ]
check "orchctl show summary says what is held" sh -c \
    "'$ORCHCTL' -s '$SOCK' show summary | grep -q '^database: [1-9][0-9]* writes held'"
check "orchctl -j show summary: the store's queued writes" sh -c \
    "'$ORCHCTL' -s '$SOCK' -j show summary | python3 -c 'import json, sys
a = json.load(sys.stdin)
s = [p for p in a if p[\"process\"] == \"store\"][0]
sys.exit(0 if s[\"database\"][\"queued_writes\"] > 0 else 1)'"
check "the request path went on (proxied)" [ "$(get)" = 200 ]
check "the store retries" wait_for 15 sh -c \
    "[ \"\$(curl -s -m 5 -H 'Authorization: Bearer $KEY' \
    http://127.0.0.1:$API/metrics | awk '\$1 == \"orchd_store_write_retries_total\" { print \$2 }')\" -ge 1 ]"

# 3. room again: the database catches up within the backoff's 30 s
rm -f "$T/db/filler"
check "the held writes are written once there is room" wait_for 60 held 0
check "the log says the database caught up" grep -q "caught up" \
    "$T/orchd.log"
check "orchctl and the API agree: running, caught up" agree running
check "the whole history, caught up" [ "$(history)" = "$FULL" ]
check "the wakes, caught up" [ "$(field wakes)" = 3 ]
check "orchctl show summary: nothing held" sh -c \
    "'$ORCHCTL' -s '$SOCK' show summary | grep -q '^database: 0 writes held'"

# 4. from the file itself: a restart reads the cycle back
stop_orchd
check "orchd stops cleanly" [ "$STATUS" -eq 0 ]
start_orchd_or_exit
check "after a restart, the whole history" wait_for 10 sh -c \
    "[ \"\$('$ORCHCTL' -s '$SOCK' show workload hello | awk '
    /^TIME/ { h = 1; next } h && NF >= 4 { printf \"%s>%s \", \$2, \$3 }' |
    cut -d' ' -f1-10)\" = \"$(echo "$FULL" | cut -d' ' -f1-10)\" ]"
check "after a restart, the wakes" [ "$(field wakes)" = 3 ]
check "no fatal in the log" sh -c "! grep -q fatal '$T/orchd.log'"
stop_orchd
e2e_done
