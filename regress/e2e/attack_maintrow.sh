#!/bin/sh
# The store's maintenance rows, read back at orchd's start (IMSG_ST_MAINT,
# runtimed/maint.c maint_restore): whoever can write the database (or a
# store taken over) must not get a bad one taken.  Each row is checked as
# orchctl's and the API's are (common/maint.c maint_check): a message with
# an escape byte or CR LF, one that is not UTF-8, an end years ahead: each
# dropped with a line in the log naming the workload and why, the
# workload then not in maintenance (a request wakes it).  A good row
# survives, and one whose end passed while orchd was down ends.  Loopback
# only, every wait bounded.
#
#	sh regress/e2e/attack_maintrow.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
command -v sqlite3 >/dev/null 2>&1 || skip "no sqlite3 to write rows"

port_base 61
ports GW P_ESC P_CRLF P_UTF P_FAR P_GOOD P_PAST
testhttp_bin
{
	conf_head
	echo "listen on 127.0.0.1 port $GW"
	for w in esc:$P_ESC crlf:$P_CRLF utf:$P_UTF far:$P_FAR \
	    good:$P_GOOD past:$P_PAST; do
		cat <<CONF
workload "mr-${w%%:*}" {
	host "${w%%:*}.test"
	command "$T/bin/testhttp serve ${w#*:}"
	port ${w#*:}
}
CONF
	done
} >"$T/orchd.conf"
start_orchd_or_exit

ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
get() {
	curl -sS -m 20 -H "Host: $1" -o "$T/r.body" -w '%{http_code}' \
	    "http://127.0.0.1:$GW/" 2>/dev/null
}
for w in esc crlf utf far good past; do
	ctl maintenance "mr-$w" on --message "row $w" >/dev/null 2>&1
done
check "each is in maintenance: 503" sh -c "[ $(get esc.test) = 503 ] &&
    [ $(get good.test) = 503 ]"
stop_orchd
check "orchd stopped" [ "$STATUS" = 0 ]

# the rows, written behind orchd's back
DB=$T/db/orchd.db
now=$(date +%s)
db_sql "$DB" "UPDATE workloads SET maint_message = 'a' || char(27) ||
    '[2J' WHERE name = 'mr-esc';
    UPDATE workloads SET maint_message = 'x' || char(13) || char(10) ||
    'Set-Cookie: y=1' WHERE name = 'mr-crlf';
    UPDATE workloads SET maint_message = CAST(x'61ff62' AS TEXT)
    WHERE name = 'mr-utf';
    UPDATE workloads SET maint_until = $((now + 10 * 366 * 86400))
    WHERE name = 'mr-far';
    UPDATE workloads SET maint_until = $((now - 60)) WHERE name = 'mr-past';"
n=$(db_sql "$DB" "SELECT count(*) FROM workloads WHERE maint = 1")
check "six rows in maintenance ($n)" [ "$n" = 6 ]

: >"$T/orchd.log"
start_orchd_or_exit
dropped() {	# dropped NAME WHY: its line in the log
	grep -F "workload mr-$1: maintenance kept by the store ignored: $2" \
	    "$T/orchd.log" >/dev/null
}
check "an escape byte: dropped, loudly" dropped esc \
    'maintenance message: a control character (0x1b) is not allowed'
check "CR LF: dropped, loudly" dropped crlf \
    'maintenance message: a control character (0x0d) is not allowed'
check "not UTF-8: dropped, loudly" dropped utf \
    'maintenance message: not UTF-8'
check "ten years ahead: dropped, loudly" dropped far \
    'maintenance until: at most 366 days ahead'
for w in esc crlf utf far; do
	code=$(get "$w.test")
	check "mr-$w is not in maintenance: a request wakes it ($code)" \
	    [ "$code" = 200 ]
	check "... nothing of the row in the answer" sh -c \
	    "! grep -q 'row\|Set-Cookie' '$T/r.body'"
done
check "the past end ended it" grep -q \
    'workload mr-past: maintenance off (its time passed while orchd was down)' \
    "$T/orchd.log"
code=$(get past.test)
check "... a request wakes mr-past ($code)" [ "$code" = 200 ]
code=$(get good.test)
check "the good row survives: 503 ($code)" [ "$code" = 503 ]
check "... with its message" grep -q 'in maintenance: row good' "$T/r.body"
check "orchd runs on" kill -0 "$ORCHD_PID"

e2e_done
