#!/bin/sh
# orchctl's command line, no daemon needed: usage, -h and --help, the
# parser's errors and the keywords it lists, abbreviations, options after
# the command, every command of the grammar parsed and sent, and a
# control socket that is not there.
#
#	sh regress/e2e/orchctl_usage.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
# orchctl is not chrooted: leaks are worth reporting here
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export ASAN_OPTIONS

NOSOCK=/nonexistent/orchd.sock

# run ARGS...: orchctl's exit status in $rc, its output in $T/out, $T/err
run() {
	"$ORCHCTL" "$@" >"$T/out" 2>"$T/err"
	rc=$?
}

# expect DESCRIPTION STATUS STRING...: the last run exited with STATUS,
# printed nothing on stdout, and its stderr holds every STRING
expect() {
	desc=$1
	want=$2
	shift 2
	if [ "$rc" -ne "$want" ]; then
		fail "$desc (exit status $rc, not $want)"
		sed 's/^/#	/' "$T/err"
		return
	fi
	for s in "$@"; do
		if ! grep -qF -- "$s" "$T/err"; then
			fail "$desc (no \"$s\" on stderr)"
			sed 's/^/#	/' "$T/err"
			return
		fi
	done
	if [ -s "$T/out" ]; then
		fail "$desc (output on stdout)"
		sed 's/^/#	/' "$T/out"
		return
	fi
	if grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' "$T/err"
	then
		fail "$desc (sanitizer report)"
		sed 's/^/#	/' "$T/err"
		return
	fi
	ok "$desc"
}

if [ ! -x "$ORCHCTL" ]; then
	fail "$ORCHCTL is built"
	e2e_done
	exit 1
fi

run
expect "no arguments: usage and the commands" 1 \
    "usage: orchctl [-hjV] [-s socket] command [argument ...]" \
    "valid commands/args:" "  show" "  reload" "  log" "  wake" \
    "  suspend" "  keepwarm" "  logs" "  pull"

run frobnicate
expect "unknown command: named, commands listed" 1 \
    "unknown argument: frobnicate" "valid commands/args:" "  show" \
    "  reload" "  log" "usage:"

run show
expect "show alone: its arguments listed" 1 "missing argument" \
    "valid commands/args:" "  summary" "  workloads" "  workload" \
    "  stats"

# help: on stdout, exit 0, the usage and every command
for h in -h --help "-h show" "show --help" "-j -h" "logs web -h"; do
	# shellcheck disable=SC2086
	run $h
	if [ "$rc" -eq 0 ] && [ ! -s "$T/err" ] &&
	    grep -qF "usage: orchctl [-hjV] [-s socket] command" "$T/out" &&
	    grep -q "^  show workload name  *everything about" "$T/out" &&
	    grep -q "^  logs name \[-f\] \[-n lines | all\]  *print" \
	    "$T/out"; then
		ok "orchctl $h: the usage on stdout, exit 0"
	else
		fail "orchctl $h: the usage on stdout, exit 0 (status $rc)"
		sed 's/^/#	/' "$T/out" "$T/err"
	fi
done

run -s "$NOSOCK" show summary
expect "missing socket: asks whether orchd runs, names the path" 1 \
    "orchctl: no socket: is orchd running? (socket $NOSOCK)"

# a socket nobody listens on any more: refused, said the same way
if command -v python3 >/dev/null 2>&1 &&
    python3 -c "import socket; s = socket.socket(socket.AF_UNIX); \
    s.bind('$T/dead.sock')" 2>/dev/null; then
	run -s "$T/dead.sock" show summary
	expect "a dead socket: asks whether orchd runs" 1 \
	    "connection refused: is orchd running? (socket $T/dead.sock)"
fi

run -s "$NOSOCK" sh su
expect "unambiguous abbreviations are accepted" 1 \
    "is orchd running? (socket $NOSOCK)"

# orchctl's options after the command, and logs' before the name
for cmd in "show workloads -s $NOSOCK" "show workloads -j -s $NOSOCK" \
    "show workloads -js $NOSOCK" "show workload blog -s$NOSOCK" \
    "logs blog -n 20 -s $NOSOCK" "logs -n 20 blog -s $NOSOCK" \
    "logs -f blog -s $NOSOCK" "logs -f -n all blog -s $NOSOCK" \
    "logs blog -f -s $NOSOCK -n 3" "wake blog -s $NOSOCK"; do
	# shellcheck disable=SC2086
	run $cmd
	expect "orchctl $cmd: options after the command" 1 \
	    "is orchd running? (socket $NOSOCK)"
done

run show workloads -s
expect "-s without a path after the command: usage" 1 \
    "option requires an argument -- s" "usage:"

run logs -n blog
expect "logs -n NAME: a number wanted" 1 "number of lines is invalid: blog"

run log loud
expect "log loud: verbose and brief listed" 1 "unknown argument: loud" \
    "  verbose" "  brief"

run show w
expect "ambiguous abbreviation refused" 1 "ambiguous argument: w" \
    "  workload" "  workloads"

run reload now
expect "superfluous argument refused" 1 "superfluous argument: now"

run keepwarm blog
expect "keepwarm NAME alone: on and off listed" 1 "missing argument" \
    "  on" "  off"

run wake
expect "wake alone: a workload name wanted" 1 "missing argument" \
    "  <workload>"

run wake -x
expect "a workload name may not look like an option" 1 \
    "invalid workload name: -x"

run wake 'bad/name'
expect "a workload name with a slash is refused" 1 \
    "invalid workload name: bad/name"

run wake .hidden
expect "a workload name starts with a letter or digit" 1 \
    "invalid workload name: .hidden"

long=$(printf '%070d' 0)
run wake "w$long"
expect "a workload name of 71 characters is refused" 1 \
    "invalid workload name: w$long"

run show workload
expect "show workload without a name" 1 "missing argument" "  <workload>"

run show workload blog extra
expect "show workload with two names" 1 "superfluous argument: extra"

run show workloads blog
expect "show workloads takes no name" 1 "superfluous argument: blog"

run show stats blog
expect "show stats takes no name" 1 "superfluous argument: blog"

run suspend
expect "suspend alone: a workload name wanted" 1 "missing argument" \
    "  <workload>"

run wake blog now
expect "wake with a superfluous argument" 1 "superfluous argument: now"

run keepwarm blog maybe
expect "keepwarm NAME maybe: on and off listed" 1 \
    "unknown argument: maybe" "  on" "  off"

run keepwarm blog on off
expect "keepwarm with both on and off" 1 "superfluous argument: off"

run logs
expect "logs alone: a workload name wanted" 1 "missing argument" \
    "  <workload>"

run logs blog -n many
expect "logs -n needs a number" 1 "number of lines is invalid: many"

run logs x -n abc
expect "logs x -n abc" 1 "number of lines is invalid: abc"

run logs blog -n -5
expect "logs -n of a negative number" 1 "number of lines is too small: -5"

run logs blog -n 1000001
expect "logs -n above the limit" 1 "number of lines is too large: 1000001"

run logs blog -n
expect "logs -n without a number: the number or all wanted" 1 \
    "missing argument" "  all" "  <number>"

run logs blog -f extra
expect "logs with a stray argument" 1 "unknown argument: extra"

run logs blog -q
expect "logs: unknown option listed with the valid ones" 1 \
    "unknown argument: -q" "  -f" "  -n"

run -x show summary
expect "unknown option: usage" 1 "unknown option -- x" "usage:"

run -s
expect "-s without a path: usage" 1 "option requires an argument -- s" \
    "usage:"

long=$(printf '%0200d' 0)
run -s "/tmp/$long" show summary
expect "socket path too long" 1 "socket path too long"

# every command of the grammar is parsed and sent, here to a socket
# that is not there: none is refused as not supported
for cmd in "show summary" "show workloads" "show workload blog" \
    "show stats" "sh st" "sh workload blog" "wake blog" "suspend blog" \
    "keepwarm blog on" "keepwarm blog off" "logs blog" "logs blog -f" \
    "logs blog -n 20 -f" "logs blog -f -n 0" "logs blog -n all" \
    "reload" "log verbose" "log brief" "log reopen"; do
	# shellcheck disable=SC2086
	run -s "$NOSOCK" $cmd
	expect "$cmd: parsed and sent" 1 "(socket $NOSOCK)"
	# shellcheck disable=SC2086
	run -j -s "$NOSOCK" $cmd
	expect "-j $cmd: parsed and sent" 1 "(socket $NOSOCK)"
done

# the man page names every command and its timeouts
MAN=$(dirname "$0")/../../man/orchctl.8
for word in "Cm show workloads" "Cm show workload Ar" "Cm show stats" \
    "Cm wake" "Cm suspend" "Cm keepwarm" "Cm logs" "600 seconds" \
    "30 seconds" "Fl h , Fl \\\\-help" "is orchd running?" "Li REASON" \
    "idle_timeout_global" "Li definition"; do
	check "orchctl.8 has \"$word\"" grep -q -- "$word" "$MAN"
done

e2e_done
