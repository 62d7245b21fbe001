#!/bin/sh
# The log directory removed while orchd runs (rm -rf /var/log/orchd).
# What the manuals promise: the parent holds the workloads' log files and
# the access log and opens them again on SIGUSR1 and orchctl log reopen,
# "each made anew if it was renamed away" (orchd.8, Signals); a file
# that cannot be opened is logged and kept (orchd-workload.7, Process
# workloads).  So: requests are served all along, orchctl log reopen and
# SIGUSR1 make the directory and the files again and later lines land in
# them, orchctl logs reads the new file, and a workload woken while the
# directory is gone starts and gets its log file.
#
#	sh regress/faults/logdir.sh build/check
. "$(dirname "$0")/../e2e/lib.sh"
e2e_init "$1"
need_root
ensure_user

port_base 31
ports GW P_APP P_LATE
testhttp_bin
mkdir -p "$T/log"
LOG=$T/log
# each request's "METHOD PATH" on the workload's standard output
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
access log "$LOG/access.log"
listen on 127.0.0.1 port $GW

workload "app" {
	host "app.test"
	command "$T/bin/testhttp serve $P_APP /dev/null /dev/stdout"
	port $P_APP
}
workload "late" {
	host "late.test"
	command "$T/bin/testhttp serve $P_LATE /dev/null /dev/stdout"
	port $P_LATE
}
CONF

get() {		# get HOST PATH: the status
	curl -sS -m 20 -o /dev/null -w '%{http_code}' -H "Host: $1" \
	    "http://127.0.0.1:$GW$2"
}
has() { grep -q -- "$2" "$1" 2>/dev/null; }	# has FILE TEXT
logs_has() {	# logs_has NAME TEXT: orchctl logs shows it
	"$ORCHCTL" -s "$SOCK" logs -n all "$1" | grep -q -- "$2"
}

start_orchd_or_exit
check "app answers" [ "$(get app.test /one)" = 200 ]
check "its line is in app.log" wait_for 5 has "$LOG/app.log" "GET /one"
check "and in the access log" wait_for 5 has "$LOG/access.log" /one

# -- 1. removed; orchctl log reopen
rm -rf "$LOG"
check "with the log directory gone, app still answers" \
    [ "$(get app.test /two)" = 200 ]
t0=$(now_ms)
"$ORCHCTL" -s "$SOCK" log reopen >"$T/out" 2>&1
rc=$?
echo "# figure: logdir_reopen_ms $(($(now_ms) - t0)) ms"
check "orchctl log reopen succeeds (status $rc)" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || sed 's/^/#	/' "$T/out"
check "the directory is made again" [ -d "$LOG" ]
check "app.log is made anew" [ -f "$LOG/app.log" ]
check "app answers" [ "$(get app.test /three)" = 200 ]
check "its line is in the new app.log" \
    wait_for 5 has "$LOG/app.log" "GET /three"
check "orchctl logs reads the new file" wait_for 5 logs_has app "GET /three"
check "the access log is made anew with the line" \
    wait_for 5 has "$LOG/access.log" /three

# -- 2. removed; a workload woken meanwhile
rm -rf "$LOG"
check "a workload woken with the log directory gone is served" \
    [ "$(get late.test /first)" = 200 ]
check "and gets its log file" wait_for 5 has "$LOG/late.log" "GET /first"

# -- 3. removed; SIGUSR1
rm -rf "$LOG"
kill -USR1 "$ORCHD_PID"
check "SIGUSR1 makes app.log anew" wait_for 5 test -f "$LOG/app.log"
check "app answers" [ "$(get app.test /four)" = 200 ]
check "its line is in the new app.log" \
    wait_for 5 has "$LOG/app.log" "GET /four"
check "the access log is made anew with the line" \
    wait_for 5 has "$LOG/access.log" /four
check "orchd still runs" alive "$ORCHD_PID"
echo "# figure: logdir_app_lines_kept $(grep -c GET "$LOG/app.log") lines"

stop_orchd
check "orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]
e2e_done
