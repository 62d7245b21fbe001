#!/bin/sh
# The sandbox.  First sandboxtest: each promise allows its calls, and a
# call outside them kills the process by SIGSYS after one line naming it,
# on stderr, or to syslog when stderr is /dev/null; the gateway's and
# runtimed's sets connect (and the gateway accepts, and splices without
# blocking), but neither binds nor listens; the parent's set binds,
# listens, changes modes and owners, signals and reaps, but never forks,
# executes, changes user or chroots.  Then the daemon: every child under its seccomp filter,
# with no_new_privs, no capabilities, as _orchd, in its root directory,
# forbidden to fork; a request proxied, a
# reload, a suspend and a wake, all under the filters; the same without
# -d; and the same again under the systemd unit's NoNewPrivileges and
# CapabilityBoundingSet.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
SBT=$BUILD/regress/sandboxtest

allowed() {	# allowed CASE [ARG]
	"$SBT" "$@" >"$T/sbt.out" 2>&1
	st=$?
	check "sandboxtest $*: allowed (status $st)" [ "$st" -eq 0 ]
	[ "$st" -eq 0 ] || cat "$T/sbt.out"
}

forbidden() {	# forbidden CALLS CASE [ARG]: CALLS is an ERE, open|openat
	calls=$1
	shift
	"$SBT" "$@" >"$T/sbt.out" 2>&1
	st=$?
	sig=
	[ "$st" -gt 128 ] && sig=$(kill -l "$st")
	check "sandboxtest $*: killed by SIGSYS (status $st)" [ "$sig" = SYS ]
	check "sandboxtest $*: one line names $calls" grep -Eq \
	    "^sandboxtest: forbidden system call [0-9]+ \\(($calls)\\)\$" \
	    "$T/sbt.out"
	[ "$sig" = SYS ] || cat "$T/sbt.out"
}

mkdir -p "$T/files"
allowed stdio
allowed inet
allowed syslog
allowed rpath
allowed cpath "$T/files"
allowed gateway
allowed runtime "$T/files"
allowed acme
allowed parent "$T/files"
forbidden socket no-inet
forbidden bind gateway-no-bind
forbidden listen gateway-no-listen
forbidden splice gateway-no-blocking-splice
forbidden splice runtime-no-splice
forbidden bind acme-no-bind
forbidden socket acme-no-unix
forbidden 'open|openat' acme-no-write
forbidden bind runtime-no-bind
forbidden listen runtime-no-listen
forbidden 'accept|accept4' runtime-no-accept
forbidden socket no-unix
forbidden 'open|openat' no-open
forbidden 'open|openat' no-write-open
forbidden 'mkdir|mkdirat' no-create "$T/files/dir"
forbidden 'clone|clone3|fork' no-fork
forbidden 'clone|clone3|fork' parent-no-fork
forbidden execve parent-no-exec
forbidden setresuid parent-no-setuid
forbidden chroot parent-no-chroot
forbidden execve no-exec
forbidden mmap no-mmap-exec
forbidden rt_sigaction no-sigsys
forbidden kill no-kill
forbidden setuid no-setuid
forbidden flock no-flock
check "nothing was made where it was forbidden" [ ! -e "$T/files/dir" ]

# make check's sanitizer build: the sanitizers still report under the filter
if grep -q __asan_init "$SBT"; then
	for c in sanitizer sanitizer-asan; do
		"$SBT" "$c" >"$T/san.out" 2>&1
		st=$?
		check "sandboxtest $c: the sanitizer reports (status $st)" \
		    grep -Eq 'runtime error:|AddressSanitizer' "$T/san.out"
		check "sandboxtest $c: and is not trapped" \
		    sh -c "! grep forbidden '$T/san.out'"
		grep forbidden "$T/san.out"
	done
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "skipped the rest: needs root (chroot, setuid, mount)"
	e2e_done
	exit
fi

# stderr on /dev/null: the line goes to syslog instead, over the socket
# opened before the filter.  A private /dev holds our own /dev/log.
if command -v python3 >/dev/null && command -v unshare >/dev/null; then
	cat >"$T/syslogd.py" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("/dev/log")
s.settimeout(20)
open(sys.argv[1] + ".ready", "w").close()
sys.stdout.write(s.recv(2048).decode())
PY
	cat >"$T/syslog.sh" <<'SH'
mount -t tmpfs -o mode=0755 tmpfs /dev || exit 1
mknod -m 0666 /dev/null c 1 3 || exit 1
python3 "$1/syslogd.py" "$1/syslog.out" >"$1/syslog.out" &
i=0
while [ ! -e "$1/syslog.out.ready" ] && [ $i -lt 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
"$2" no-inet 2>/dev/null
echo $? >"$1/syslog.status"
wait
SH
	unshare -m sh "$T/syslog.sh" "$T" "$SBT"
	st=$(cat "$T/syslog.status" 2>/dev/null)
	check "with stderr on /dev/null, killed by SIGSYS too (status $st)" \
	    [ "$(kill -l "${st:-0}" 2>/dev/null)" = SYS ]
	line='^<26>sandboxtest\[[0-9]+\]: sandboxtest: '
	line="${line}forbidden system call [0-9]+ \\(socket\\)\$"
	check "and the line went to syslog" grep -Eq "$line" "$T/syslog.out"
	cat "$T/syslog.out"
	echo
else
	echo "skipped the syslog report: no python3 or unshare"
fi

ensure_user
uid=$(id -u _orchd)
gid=$(id -g _orchd)
ports PORT WPORT
mkdir -p "$T/log" "$T/bin"
testhttp_bin
# no database directory yet: orchd makes it for the store
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
listen on 127.0.0.1 port $PORT

workload "app" {
	host "app.test"
	command "$T/bin/testhttp serve $WPORT"
	port $WPORT
	wake timeout 10s
}
CONF

field() {	# field PID NAME: a line of /proc/PID/status, tabs squeezed
	sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status" | tr -s '\t ' ' '
}

# the bits of the parent's effective capabilities, in hex
parent_caps() {
	sed -n 's/^CapEff:[[:space:]]*//p' "/proc/$ORCHD_PID/status"
}

children() {	# children LABEL: the checks on every child of $ORCHD_PID
	setpcap=$(( 0x$(parent_caps) >> 8 & 1 ))
	for name in store gateway reaper runtime; do
		pid=$(child "$name")
		if [ -z "$pid" ]; then
			fail "$1: $name is running"
			continue
		fi
		check "$1: $name has a seccomp filter" \
		    [ "$(field "$pid" Seccomp)" = 2 ]
		check "$1: $name has no_new_privs" \
		    [ "$(field "$pid" NoNewPrivs)" = 1 ]
		for c in CapEff CapPrm CapInh CapAmb; do
			check "$1: $name $c is empty" \
			    [ "$(field "$pid" $c)" = 0000000000000000 ]
		done
		# emptied while the child still held CAP_SETPCAP
		if [ "$setpcap" -eq 1 ]; then
			check "$1: $name CapBnd is empty" \
			    [ "$(field "$pid" CapBnd)" = 0000000000000000 ]
		fi
		check "$1: $name runs as _orchd" \
		    [ "$(field "$pid" Uid)" = "$uid $uid $uid $uid" ]
		check "$1: $name runs in _orchd's group" \
		    [ "$(field "$pid" Gid)" = "$gid $gid $gid $gid" ]
		check "$1: $name may not fork (RLIMIT_NPROC 0)" grep -Eq \
		    '^Max processes +0 +0 ' "/proc/$pid/limits"
		root=$(readlink "/proc/$pid/root")
		case $name in
		store)		want=$T/db ;;
		# an empty read-only file system, the socket's directory in it
		runtime)	want=/var/empty ;;
		*)		want=/var/empty ;;
		esac
		check "$1: $name's root is $want (it is $root)" \
		    [ "$root" = "$want" ]
	done
}

URL=http://127.0.0.1:$PORT
get() {
	curl -sS -m 20 -H "Host: $1" "$URL$2"
}

# orchd -d: the whole way under the filters
check "orchd starts" start_orchd
check "orchd made the database directory, _orchd's, mode 0700" \
    [ "$(stat -c '%U %a' "$T/db")" = "_orchd 700" ]
children "orchd -d"
body=$(get app.test /)
check "a request wakes the workload through the sandboxed processes" \
    [ "$body" = "hello from testhttp" ]
[ "$body" = "hello from testhttp" ] || tail -20 "$T/orchd.log"
check "orchctl reload" "$ORCHCTL" -s "$SOCK" reload
check "orchctl log verbose" "$ORCHCTL" -s "$SOCK" log verbose
check "orchctl show workload app" "$ORCHCTL" -s "$SOCK" show workload app
check "orchctl suspend app" "$ORCHCTL" -s "$SOCK" suspend app
check "the next request wakes it again" \
    [ "$(get app.test /)" = "hello from testhttp" ]
check "orchctl log brief" "$ORCHCTL" -s "$SOCK" log brief
for name in store gateway reaper runtime; do
	check "$name is still running" child "$name"
done
stop_orchd
check "orchd stops cleanly under the filters (status $STATUS)" \
    [ "$STATUS" -eq 0 ]
check "no forbidden system call in the log" \
    sh -c "! grep 'forbidden system call' '$T/orchd.log'"

# without -d: stderr is /dev/null, so nothing writes files but the store
"$ORCHD" -f "$T/orchd.conf" >>"$T/orchd.log" 2>&1
check "orchd without -d starts" wait_for 20 "$ORCHCTL" -s "$SOCK" show summary
ORCHD_PID=$("$ORCHCTL" -s "$SOCK" show summary |
    awk '$1 == "parent" {print $2}')
if [ -n "$ORCHD_PID" ]; then
	children "orchd"
	for name in gateway reaper runtime; do
		pid=$(child "$name")
		check "orchd: $name may not write files (RLIMIT_FSIZE 0)" \
		    grep -Eq '^Max file size +0 +0 ' "/proc/$pid/limits"
	done
	pid=$(child store)
	check "orchd: the store may write its database" grep -Eq \
	    '^Max file size +unlimited ' "/proc/$pid/limits"
	check "orchd: a request is served" \
	    [ "$(get app.test /)" = "hello from testhttp" ]
	kill -TERM "$ORCHD_PID"
	check "orchd without -d stops" wait_gone "$ORCHD_PID" 15
else
	fail "orchd without -d: no parent pid in show summary"
fi

# the systemd unit's NoNewPrivileges and CapabilityBoundingSet, as
# setpriv(1) makes them: privilege separation must still work
caps=$(sed -n 's/^CapabilityBoundingSet=//p' etc/orchd.service |
    tr 'A-Z ' 'a-z,' | sed 's/cap_/+/g')
if command -v setpriv >/dev/null && [ -n "$caps" ] &&
    grep -q '^NoNewPrivileges=yes' etc/orchd.service; then
	setpriv --no-new-privs --bounding-set "-all,$caps" \
	    "$ORCHD" -d -f "$T/orchd.conf" >>"$T/orchd.log" 2>&1 &
	ORCHD_PID=$!
	check "orchd starts with the unit's capabilities ($caps)" \
	    wait_for 20 "$ORCHCTL" -s "$SOCK" show summary
	children "unit"
	check "unit: a request is served" \
	    [ "$(get app.test /)" = "hello from testhttp" ]
	stop_orchd
	check "unit: orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]
else
	echo "skipped the unit's limits: no setpriv"
fi
check "still no forbidden system call in the log" \
    sh -c "! grep 'forbidden system call' '$T/orchd.log'"

ORCHD_PID=
e2e_done
