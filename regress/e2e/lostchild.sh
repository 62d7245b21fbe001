#!/bin/sh
# A child that misbehaves ends the daemon (orchd-security(7), SECURITY
# CONSIDERATIONS): one that breaks the protocol on its channel, one that
# closes its channel but stays up, and one killed by SIGKILL.  Each time
# orchd exits 1 on its own, within a bounded time, says which child and
# why, and leaves no process behind.
#
# The misbehaving child is a copy of the build's programs with reaperd
# replaced by a script: orchd runs the helpers beside its own executable
# (helper_path() in orchd/orchd.c), and the script writes what it is
# given on fd 3, its channel to the parent.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

mkdir -p "$T/log" "$T/bin"
chmod 0755 "$T/bin"
for p in orchd confd spawnerd stored gatewayd reaperd runtimed; do
	cp "$BUILD/$p" "$T/bin/$p"
done
conf_head >"$T/orchd.conf"

# ours: the processes whose executable is one of the copies, or the
# script's sleep
ours() {
	for e in /proc/[0-9]*/exe; do
		case $(readlink "$e" 2>/dev/null) in
		"$T"/bin/*)
			p=${e#/proc/}
			echo "${p%/exe}"
			;;
		esac
	done
	if [ -f "$T/fake.pid" ] && alive "$(cat "$T/fake.pid")"; then
		cat "$T/fake.pid"
	fi
}

# run_orchd LABEL: orchd from the copies, until it exits (at most 15 s);
# sets STATUS and MS, how long it ran
run_orchd() {
	: >"$T/orchd.log"
	rm -f "$T/fake.pid"
	t0=$(now_ms)
	"$T/bin/orchd" -d -f "$T/orchd.conf" >>"$T/orchd.log" 2>&1 &
	ORCHD_PID=$!
	orchd_status
	MS=$(($(now_ms) - t0))
	check "$1: orchd exits 1 on its own (status $STATUS, $MS ms)" \
	    [ "$STATUS" -eq 1 -a "$MS" -lt 10000 ]
	[ "$STATUS" -eq 1 ] || tail -20 "$T/orchd.log"
}

# no_leftover LABEL: every process of the run is gone, the children
# within the parent's grace, the script's sleep with them
no_leftover() {
	left=
	for p in $(ours); do
		wait_gone "$p" 8 || left="$left $p"
	done
	check "$1: no process left behind ($left)" [ -z "$left" ]
	for p in $left; do
		kill -KILL "$p" 2>/dev/null
	done
}

# fake_reaper BYTES: reaperd is a script that sends BYTES (printf(1)
# escapes) to the parent, then stays up; BYTES empty: it closes fd 3
fake_reaper() {
	{
		echo '#!/bin/sh'
		echo "echo \$\$ >'$T/fake.pid'"
		if [ -n "$1" ]; then
			printf "printf '%s' >&3\n" "$1"
		else
			echo 'exec 3>&-'
		fi
		echo 'exec sleep 60'
	} >"$T/bin/reaperd"
	chmod 0755 "$T/bin/reaperd"
}

# the header of struct imsg_hdr (common/imsg.h), little-endian: type,
# length with the header, flags, a zero, peer id, pid
le32() {
	printf '\\%03o\\%03o\\%03o\\%03o' $(($1 & 255)) $(($1 >> 8 & 255)) \
	    $(($1 >> 16 & 255)) $(($1 >> 24 & 255))
}
hdr() {		# hdr TYPE LEN [FLAGS]
	printf '%s%s\\%03o\\000\\000\\000%s%s' "$(le32 "$1")" "$(le32 "$2")" \
	    "${3:-0}" "$(le32 0)" "$(le32 0)"
}
IMSG_PROC_READY=201
IMSG_RT_SPAWN=500

# protocol CASE BYTES WHY: reaperd sends BYTES; orchd logs WHY (an ERE)
protocol() {
	fake_reaper "$2"
	run_orchd "$1"
	check "$1: the parent says why" grep -Eq "$3" "$T/orchd.log"
	check "$1: and names the lost child" grep -Eq \
	    "lost child: reaper \\(pid [0-9]+\\): channel: protocol error" \
	    "$T/orchd.log"
	no_leftover "$1"
}

protocol "an unknown message type" "$(hdr 9999 20)" \
    "unknown message type 9999 from reaper"
protocol "a known type of the wrong length" \
    "$(hdr $IMSG_PROC_READY 22)\\001\\000" \
    "message type $IMSG_PROC_READY from reaper: length 2, want 4"
protocol "a type only runtimed may send" "$(hdr $IMSG_RT_SPAWN 20)" \
    "message type $IMSG_RT_SPAWN not accepted from reaper"

# a header that cannot be: an unknown flag
fake_reaper "$(hdr $IMSG_PROC_READY 24 2)\\001\\000\\000\\000"
run_orchd "a bad header"
check "a bad header: the parent names the lost child and why" grep -Eq \
    "lost child: reaper \\(pid [0-9]+\\): channel: bad message header" \
    "$T/orchd.log"
no_leftover "a bad header"

# a child that closes its channel and stays up is lost as well
fake_reaper ""
run_orchd "a closed channel"
# the parent reads its end, or writes to it first (the peers' sockets):
# closed, or the write's broken pipe, whichever comes first
check "a closed channel: the parent names the lost child" grep -Eq \
    "lost child: reaper \\(pid [0-9]+\\): channel: (closed|Broken pipe|Connection reset by peer)" \
    "$T/orchd.log"
no_leftover "a closed channel"

# a child that breaks the protocol towards a sibling: the sibling ends
# (a child's lost channel is fatal to it), and so does the daemon.  The
# fake reaper takes the channels the parent hands it (IMSG_PROC_PEER,
# an fd each) and writes an unknown type on runtimed's.
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
if [ -n "$PY" ]; then
	cat >"$T/bin/reaperd" <<FAKE
#!$PY
import os, socket, struct, sys, time
open("$T/fake.pid", "w").write(str(os.getpid()))
s = socket.socket(fileno=3)
buf, fds, peers = b"", [], {}
end = time.monotonic() + 10
while 4 not in peers and time.monotonic() < end:	# PROC_RUNTIME
    msg, anc, _, _ = s.recvmsg(65536, socket.CMSG_SPACE(4 * 8))
    if not msg:
        sys.exit(1)
    for level, kind, data in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            n = len(data) // 4
            fds += struct.unpack("=%di" % n, data[:4 * n])
    buf += msg
    while len(buf) >= 20:
        kind, length, flags = struct.unpack("=IIH", buf[:10])
        if len(buf) < length:
            break
        body, buf = buf[20:length], buf[length:]
        if flags & 1:
            fd = fds.pop(0)
            if kind == 200:				# IMSG_PROC_PEER
                peers[struct.unpack("=i", body[:4])[0]] = fd
os.write(peers[4], struct.pack("=IIHHII", 9999, 20, 0, 0, 0, 0))
time.sleep(60)
FAKE
	chmod 0755 "$T/bin/reaperd"
	run_orchd "runtimed given an unknown type by a sibling"
	check "runtimed says why it ends" grep -q \
	    "runtime: fatal: channel to reaper: protocol error" "$T/orchd.log"
	check "and the parent names it" grep -Eq \
	    "lost child: runtime \\(pid [0-9]+\\)" "$T/orchd.log"
	no_leftover "a sibling's protocol error"
else
	echo "skipped a sibling's protocol error: no python3"
fi

# SIGKILL to each child in turn
cp "$BUILD/reaperd" "$T/bin/reaperd"
rm -f "$T/fake.pid"
for name in store gateway reaper runtime; do
	: >"$T/orchd.log"
	"$T/bin/orchd" -d -f "$T/orchd.conf" >>"$T/orchd.log" 2>&1 &
	ORCHD_PID=$!
	if ! wait_for 20 "$BUILD/orchctl" -s "$SOCK" show summary; then
		fail "SIGKILL to $name: orchd starts"
		tail -20 "$T/orchd.log"
		kill -TERM "$ORCHD_PID"
		orchd_status
		continue
	fi
	pid=$(child "$name")
	t0=$(now_ms)
	kill -KILL "${pid:-0}"
	orchd_status
	MS=$(($(now_ms) - t0))
	check "SIGKILL to $name: orchd exits 1 (status $STATUS, $MS ms)" \
	    [ "$STATUS" -eq 1 -a "$MS" -lt 10000 ]
	check "SIGKILL to $name: the parent names it" \
	    grep -q "lost child: $name" "$T/orchd.log"
	# the others lose their channels to it too: the log names the
	# child that died first, and none of them says "fatal"
	first=$(grep -n -E "lost child|fatal" "$T/orchd.log" | head -n 1)
	check "SIGKILL to $name: named before any other line of loss" \
	    sh -c "echo '$first' | grep -q 'lost child: $name'"
	check "SIGKILL to $name: no sibling logs fatal" \
	    sh -c "! grep -q ': fatal: ' '$T/orchd.log'"
	no_leftover "SIGKILL to $name"
done

ORCHD_PID=
e2e_done
