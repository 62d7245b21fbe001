#!/bin/sh
# orchctl complete takes whatever words a shell hands it, and asks a
# socket for names at each TAB: what a hostile or broken one can do.
#	- thousands of words, a word of 100 KB, format directives, bytes
#	  that are not text, a socket path too long, -s as the last word:
#	  no sanitizer report, nothing printed but the table's words
#	- a socket that accepts and never answers: the TAB returns in a
#	  few seconds (not the 30 of a command), the keywords printed
#	- a running orchd: its names, and update of a name orchd lacks is
#	  refused before the file (here /etc/shadow, root's) is read: its
#	  contents never reach a message
#	sh regress/e2e/attack_complete.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export ASAN_OPTIONS
NOSOCK=/nonexistent/orchd.sock

# run WORD...: orchctl complete's status in $rc, output in $T/out, $T/err
run() {
	"$ORCHCTL" complete -- "$@" >"$T/out" 2>"$T/err"
	rc=$?
}
clean() {	# no sanitizer report in $T/err
	! grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' "$T/err"
}
# every line printed is one of the words of the tables
table_words() {
	{ "$ORCHCTL" complete -- -s "$NOSOCK" ''
	  for w in show log logs keepwarm; do
		"$ORCHCTL" complete -- -s "$NOSOCK" "$w" x ''
		"$ORCHCTL" complete -- -s "$NOSOCK" "$w" ''
	  done
	  "$ORCHCTL" complete -- create x --
	  "$ORCHCTL" complete -- -; } 2>/dev/null | sort -u >"$T/words"
}
table_words
only_words() {
	[ ! -s "$T/out" ] || ! grep -vxF -f "$T/words" "$T/out" | grep -q .
}

words=$(i=0; while [ $i -lt 5000 ]; do printf 'show '; i=$((i + 1)); done)
# shellcheck disable=SC2086
run -s "$NOSOCK" $words ''
check "5000 words: exits, no sanitizer report" sh -c "[ $rc -le 1 ]" &&
    check "... nothing but table words" only_words
clean || fail "5000 words: sanitizer report"

big=$(head -c 100000 /dev/zero | tr '\0' 'w')
run -s "$NOSOCK" show "$big"
check "a word of 100 KB: status $rc, nothing printed" \
    sh -c "[ $rc -le 1 ] && [ ! -s '$T/out' ]"
clean || fail "a word of 100 KB: sanitizer report"
run -s "$NOSOCK" "$big" ''
check "a command of 100 KB then a word: nothing printed" [ ! -s "$T/out" ]

run -s "$NOSOCK" '%n%s%s%s' '%x'
check "format directives: nothing printed, no report" \
    sh -c "[ ! -s '$T/out' ] && [ $rc -le 1 ]"
clean || fail "format directives: sanitizer report"
run -s "$NOSOCK" wake "$(printf '\033]0;x\007\001\377')"
check "bytes that are not text: no report (status $rc)" clean
check "... nothing but table words" only_words

long=$(printf '%0300d' 0)
run -s "/tmp/$long" wake ''
check "a socket path too long: refused (status $rc)" \
    sh -c "[ $rc -eq 1 ] && grep -q 'too long' '$T/err'"
clean || fail "socket path too long: sanitizer report"
run wake -s ''
check "-s as the word completed: nothing (the shell's files)" \
    sh -c "[ $rc -eq 0 ] && [ ! -s '$T/out' ]"
run
check "no word at all: the commands" grep -qx show "$T/out"

# a socket that accepts and never answers
if command -v python3 >/dev/null 2>&1; then
	python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1]); s.listen(8)
held = []
end = time.time() + 30
while time.time() < end:
	s.settimeout(end - time.time())
	try:
		held.append(s.accept()[0])
	except OSError:
		break
' "$T/mute.sock" &
	MUTE=$!
	wait_for 5 test -S "$T/mute.sock"
	t0=$(now_ms)
	run -s "$T/mute.sock" logs ''
	ms=$(($(now_ms) - t0))
	check "a mute socket: the TAB returns within 5 s (${ms} ms)" \
	    [ "$ms" -lt 5000 ]
	check "... logs' options printed before the wait" \
	    sh -c "grep -qx -- -f '$T/out' && grep -qx -- -n '$T/out'"
	check "... and it says orchd was silent" grep -q 'no reply' "$T/err"
	kill "$MUTE" 2>/dev/null
	wait "$MUTE" 2>/dev/null
else
	skip "no python3"
fi

# a running orchd
need_root
ensure_user
ports GW P_WEB
testhttp_bin
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
listen on 127.0.0.1 port $GW
workload "web" {
	host "web.test"
	command "'$T/bin/testhttp' serve $P_WEB"
	port $P_WEB
}
CONF
start_orchd_or_exit
run -s "$SOCK" wake ''
check "a running orchd: its one name" [ "$(cat "$T/out")" = web ]
"$ORCHCTL" -s "$SOCK" update nosuch /etc/shadow >"$T/out" 2>"$T/err"
check "update nosuch /etc/shadow: no such workload, the file unread" \
    sh -c "grep -q 'no such workload' '$T/err' &&
    ! grep -q 'line\\|root' '$T/err'"
sed 's/^/#	/' "$T/err"
"$ORCHCTL" -s "$SOCK" update 'bad/name' - </dev/null >"$T/out" 2>"$T/err"
check "update of a name that is none: refused before orchd is asked" \
    grep -q 'invalid workload name' "$T/err"
stop_orchd
e2e_done
