#!/bin/sh
# alogfull: the access log's disk full.  The access log on a small tmpfs
# of the test's own, filled with a file until a write fails (ENOSPC).
# 50 requests then: their lines are held in the parent, in order, shown
# by /metrics and orchctl show summary (text and -j); logrotate's rename
# and orchctl log reopen while they are held.  Then the filler goes: all
# 50 lines are written, in order, none twice, none torn, and the log
# says so.  Then past the cap of lines held (4 MiB): the disk full
# again, 2000 requests with lines of 3 KiB; the newest are dropped,
# counted in /metrics (reason "held") and orchctl show summary, and
# logged; once there is room, the file has the oldest ones, in order,
# without a hole, and those written and those dropped add up to 2000
# (orchctl, whose requests make no line, watches meanwhile).  Last, a
# reload to no access log while lines are held: they are dropped,
# counted and logged.  Needs root.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports GW API
KEY=0123456789abcdef0123456789abcdef$(printf '%08x' $$)
ALOG=$T/alog/access.log

# 8 MiB: room for the 4 MiB held once the filler goes
mkdir -p "$T/db" "$T/log" "$T/alog"
chown _orchd "$T/db"
tmpfs_mount "$T/alog" 8m 0755
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"

conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
access log "$ALOG"
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api host "api.test"
api key file "$T/api.key"
CONF

ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
metric() {	# metric NAME: its value in GET /metrics
	curl -s -m 20 -H "Authorization: Bearer $KEY" \
	    "http://127.0.0.1:$API/metrics" | awk -v m="$1" \
	    '$1 == m { print $2 }'
}
held() { metric orchd_access_log_held_lines; }
# ctl_alog lines|bytes|dropped: orchctl show summary's access log line
ctl_alog() {
	ctl show summary | awk -v f="$1" '/^access log:/ {
	    v = f == "lines" ? $3 : f == "bytes" ? $6 : $14
	    gsub(/[^0-9]/, "", v); print v }'
}
dropped() { metric "orchd_access_log_dropped_total{reason=\"$1\"}"; }
# requests PREFIX N [CURL ARGS]: GET /PREFIX/1 .. /PREFIX/N, one after
# the other on a connection, for a host none serves; the 404s counted
requests() {
	p=$1 n=$2
	shift 2
	curl -s -m 120 -H 'Host: nohost.test' -w '\ncode %{http_code}\n' \
	    "$@" "http://127.0.0.1:$GW/$p/[1-$n]" | grep -c '^code 404$'
}
# the numbers of the requests /PREFIX/N in the access log's files, in
# the files' order, one a line
numbers() {
	cat "$ALOG.1" "$ALOG" 2>/dev/null |
	    sed -n "s|^.*\"GET /$1/\([0-9]*\)[? ].*\$|\1|p"
}
full() {
	dd if=/dev/zero of="$T/alog/filler" bs=4096 >/dev/null 2>&1
	[ "$(df --output=avail "$T/alog" | tail -n 1 | tr -d ' ')" -eq 0 ]
}
# every line of the files whole: the combined format to its end
torn() {
	cat "$ALOG.1" "$ALOG" 2>/dev/null | grep -Evc \
	    '^127\.0\.0\.1 - - \[[^]]+\] "[^"]*" [0-9]{3} [0-9]+ ".*" [0-9]+ [0-9]+\.[0-9]{3} .*$'
}

start_orchd_or_exit

# 1. the file takes the lines
check "a first request: 404" [ "$(requests first 1)" = 1 ]
check "its line is written" wait_for 10 sh -c "grep -q 'GET /first/1 ' '$ALOG'"
check "nothing held" [ "$(held)" = 0 ]

# 2. the disk full: 50 requests, their lines held
check "the tmpfs is full" full
check "50 requests, the disk full: 404" [ "$(requests full 50)" = 50 ]
check "lines are held" wait_for 10 sh -c \
    "[ \"\$(curl -s -m 5 -H 'Authorization: Bearer $KEY' \
    http://127.0.0.1:$API/metrics | awk '\$1 == \"orchd_access_log_held_lines\" { print \$2 }')\" -ge 1 ] 2>/dev/null"
sleep 1
N=$(held)
echo "# $N lines held, $(numbers full | wc -l) in the file's slack"
check "the log says the lines are held" grep -q "access log .*lines held" \
    "$T/orchd.log"
check "/metrics: the bytes held" [ "$(metric orchd_access_log_held_bytes)" \
    -gt 0 ] 2>/dev/null
check "/metrics: no drop" [ "$(dropped held)" = 0 ]
check "orchctl show summary says what is held" sh -c \
    "'$ORCHCTL' -s '$SOCK' show summary | grep -q '^access log: $N lines held'"
check "orchctl -j show summary: the parent's held lines" sh -c \
    "'$ORCHCTL' -s '$SOCK' -j show summary | python3 -c 'import json, sys
a = json.load(sys.stdin)
p = [p for p in a if p[\"process\"] == \"parent\"][0]
sys.exit(0 if p[\"access_log\"][\"held_lines\"] == ${N:--1} else 1)'"
check "the parent retries" wait_for 10 sh -c \
    "[ \"\$(curl -s -m 5 -H 'Authorization: Bearer $KEY' \
    http://127.0.0.1:$API/metrics | awk '\$1 == \"orchd_access_log_write_retries_total\" { print \$2 }')\" -ge 1 ] 2>/dev/null"

# logrotate while they are held: the new file gets them
check "logrotate's rename" mv "$ALOG" "$ALOG.1"
check "orchctl log reopen, the disk full" ctl log reopen
check "a new file is made" [ -f "$ALOG" ]
check "still held after the reopen" [ "$(held)" -ge 1 ] 2>/dev/null

# 3. room again: every line, in order, once
rm -f "$T/alog/filler"
check "the held lines are written once there is room" wait_for 15 sh -c \
    "[ \"\$(curl -s -m 5 -H 'Authorization: Bearer $KEY' \
    http://127.0.0.1:$API/metrics | awk '\$1 == \"orchd_access_log_held_lines\" { print \$2 }')\" = 0 ]"
check "the log says they are written" grep -q \
    "access log .*every held line is written" "$T/orchd.log"
got=$(numbers full | tr '\n' ' ')
want=$(seq 1 50 | tr '\n' ' ')
check "all 50 lines, in order, none twice" [ "$got" = "$want" ]
[ "$got" = "$want" ] || echo "# got: $got"
check "no line torn" [ "$(torn)" = 0 ]
check "orchctl show summary: nothing held" sh -c \
    "'$ORCHCTL' -s '$SOCK' show summary | grep -q '^access log: 0 lines held'"

# 4. past the cap: 2000 lines of some 3 KiB, 6 MiB, the disk full
PAD=$(printf '%01900d' 0 | tr 0 p)
AGENT=$(printf '%0500d' 0 | tr 0 a)
check "the tmpfs is full again" full
check "2000 requests with long lines, the disk full: 404" \
    [ "$(requests cap 2000 -A "$AGENT" -e "$AGENT" -G -d "p=$PAD")" = 2000 ]
check "lines past the cap are dropped and counted" wait_for 10 sh -c \
    "'$ORCHCTL' -s '$SOCK' show summary | grep -Eq '^access log: .* [1-9][0-9]* dropped\$'"
sleep 1
D=$(ctl_alog dropped)
B=$(ctl_alog bytes)
echo "# $(ctl_alog lines) lines held, $B bytes, $D dropped"
check "at most the cap held, and a line" [ "$B" -le $((4 * 1048576 + 4096)) ] \
    2>/dev/null
check "the log says lines are dropped" grep -q \
    "access log .*no room for more: newer lines are dropped" "$T/orchd.log"
rm -f "$T/alog/filler"
check "the held lines are written, the cap's too" wait_for 15 sh -c \
    "'$ORCHCTL' -s '$SOCK' show summary | grep -q '^access log: 0 lines held'"
check "/metrics counts the drops: reason held" [ "$(dropped held)" = "$D" ]
check "the gateways' buffers dropped none" [ "$(dropped buffer)" = 0 ]
K=$(numbers cap | wc -l)
echo "# $K lines written, $D dropped"
check "the oldest are written, in order, without a hole" \
    [ "$(numbers cap | tr '\n' ' ')" = "$(seq 1 "$K" | tr '\n' ' ')" ]
check "written and dropped make 2000" [ $((K + ${D:-0})) -eq 2000 ]
check "no line torn, past the cap" [ "$(torn)" = 0 ]
check "a request after: its line written" sh -c \
    "[ \"\$(curl -s -o /dev/null -w '%{http_code}' -H 'Host: nohost.test' \
    http://127.0.0.1:$GW/after/1)\" = 404 ]"
check "its line follows" wait_for 10 sh -c "tail -n 1 '$ALOG' | grep -q 'GET /after/1 '"

# 5. a reload to no access log while lines are held: dropped, counted
check "the tmpfs is full a third time" full
check "10 requests, the disk full: 404" \
    [ "$(requests gone 10 -G -d "p=$PAD")" = 10 ]
check "they are held" wait_for 10 sh -c \
    "'$ORCHCTL' -s '$SOCK' show summary | grep -Eq '^access log: [1-9][0-9]* lines held'"
sleep 1
H=$(ctl_alog lines)
grep -v '^access log ' "$T/orchd.conf" >"$T/orchd.conf.new" &&
    mv "$T/orchd.conf.new" "$T/orchd.conf"
check "a reload without the access log" ctl reload
check "the log says the held lines are dropped" wait_for 10 grep -q \
    "access log: $H lines held are dropped" "$T/orchd.log"
check "/metrics counts them" [ "$(dropped held)" = $((D + H)) ]
rm -f "$T/alog/filler"

stop_orchd
check "orchd stops cleanly" [ "$STATUS" -eq 0 ]
check "no fatal in the log" sh -c "! grep -q fatal '$T/orchd.log'"
e2e_done
