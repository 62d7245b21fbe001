#!/bin/sh
# The control socket removed or replaced while orchd runs (issue 30):
# orchctl fails, then SIGHUP makes the socket again; removed once more,
# the parent's periodic check (every 5 s) makes it again without a
# signal; replaced by a plain file, the same; replaced by a socket that
# answers, left alone and logged; the directory removed with it, the
# directory too.  Each time the log says so and the new
# socket has the start's mode and owner.  Prints how long each return
# took.
. "$(dirname "$0")/../e2e/lib.sh"
e2e_init "$1"
need_root
ensure_user

# in a directory of its own, which orchd makes and the last case removes
SOCK=$T/run/orchd.sock
GW=$(free_port $((21000 + $$ % 11000)))
{
	conf_head
	echo "listen on 127.0.0.1 port $GW"
} >"$T/orchd.conf"

ctl() { "$ORCHCTL" -s "$SOCK" show summary >/dev/null 2>&1; }
noctl() { ! ctl; }
modeowner() { stat -c '%a %u %g %F' "$1" 2>/dev/null; }
logged() { grep -q "$1" "$T/orchd.log"; }

start_orchd_or_exit
START=$(modeowner "$SOCK")
check "the socket is 0600, root's, a socket" \
    [ "$START" = "600 0 0 socket" ]

# removed: orchctl cannot reach orchd until the SIGHUP
rm -f "$SOCK"
check "removed: orchctl fails" noctl
t0=$(now_ms)
kill -HUP "$ORCHD_PID"
if wait_for 5 ctl; then
	ok "SIGHUP: orchctl works again ($(($(now_ms) - t0)) ms)"
else
	fail "SIGHUP: orchctl works again"
fi
check "... with the start's mode and owner" \
    [ "$(modeowner "$SOCK")" = "$START" ]
check "... the log says it was removed, at SIGHUP" \
    logged "control socket $SOCK was removed (seen at SIGHUP)"

# removed again, no signal: the periodic check
rm -f "$SOCK"
t0=$(now_ms)
if wait_for 12 ctl; then
	ok "periodic check: orchctl works again ($(($(now_ms) - t0)) ms)"
else
	fail "periodic check: orchctl works again"
fi
check "... with the start's mode and owner" \
    [ "$(modeowner "$SOCK")" = "$START" ]
check "... the log says the periodic check saw it" \
    logged "was removed (seen at the periodic check)"

# replaced by a plain file: not a socket that answers, so it goes
rm -f "$SOCK"
echo junk >"$SOCK"
t0=$(now_ms)
if wait_for 12 ctl; then
	ok "replaced by a file: orchctl works again ($(($(now_ms) - t0)) ms)"
else
	fail "replaced by a file: orchctl works again"
fi
check "... the log says it was replaced" logged "$SOCK was replaced"

# replaced by a socket that answers: another process's, left alone
rm -f "$SOCK"
python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(4)
time.sleep(9)' "$SOCK" &
SQUAT=$!
wait_for 5 test -S "$SOCK"
INO=$(stat -c %i "$SOCK")
check "replaced by a live socket: the log says it is in use" \
    wait_for 12 logged "control socket $SOCK is in use"
check "... and it is left alone" [ "$(stat -c %i "$SOCK")" = "$INO" ]
kill "$SQUAT" 2>/dev/null
wait "$SQUAT" 2>/dev/null
rm -f "$SOCK"
check "... once it is gone, orchctl works again" wait_for 12 ctl

# its directory removed with it: made again too, mode 0755
rm -rf "$T/run"
t0=$(now_ms)
if wait_for 12 ctl; then
	ok "directory removed: orchctl works again ($(($(now_ms) - t0)) ms)"
else
	fail "directory removed: orchctl works again"
fi
check "... the directory is 0755 again" \
    [ "$(stat -c %a "$T/run" 2>/dev/null)" = 755 ]
check "... the socket has the start's mode and owner" \
    [ "$(modeowner "$SOCK")" = "$START" ]
check "... the log says the directory was made again" \
    logged "control socket directory $T/run was gone: made again"
check "orchd still runs" alive "$ORCHD_PID"
stop_orchd
check "orchd exits 0" [ "$STATUS" -eq 0 ]
check "the socket is gone after the stop" [ ! -e "$SOCK" ]
e2e_done
