#!/bin/sh
# Runs every test against the programs in the build directory given as $1
# (make check passes build/check) and ends with one line:
# "N passed, N failed, N skipped".  Unit tests count their cmocka cases,
# end-to-end scripts the cases they report on their own closing line.
# Names after the build directory (test_parse, wake, mandoc, killstorm)
# run those tests alone; "faults" names every fault script.
#
# The fault scripts, regress/faults/*.sh, run after the e2e ones, and
# their names are apart from the e2e scripts'.  One that
# regress/faults/known-failing names ("NAME DEFECT") shows a defect not
# yet fixed: its failures are reported as "known failing", counted
# neither passed nor failed; once it passes, the closing lines say to
# take it off the list.
#
# An e2e script that cannot run here says "skipped: WHY" and counts
# nothing; each is named with its reason above the closing line.  Under
# CI=true a skipped script is a failure, unless regress/ci-skips names it
# with the reason it may skip there: a green CI must have run what it
# reports, and a machine without Docker's daemon is not a machine with
# Docker.
#
#	sh regress/run.sh build/check [NAME ...]
#
# E2E_DIR and CI_SKIPS name another folder of scripts and another list,
# for regress/e2e/ciskips.sh, which tests this file's counting;
# FAULTS_DIR another folder of fault scripts, with its known-failing.
set -u
BUILD=${1:-build}
[ $# -gt 0 ] && shift
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
WANTED=" $* "
E2E_DIR=${E2E_DIR:-regress/e2e}
FAULTS_DIR=${FAULTS_DIR:-regress/faults}
KNOWN_LIST=$FAULTS_DIR/known-failing
for t in "$FAULTS_DIR"/*.sh; do
	[ -f "$t" ] || continue
	[ ! -f "$E2E_DIR/$(basename "$t")" ] || {
		echo "run.sh: $t has the name of an e2e script" >&2
		exit 2
	}
done
for n in "$@"; do
	[ "$n" = mandoc ] || [ "$n" = faults ] ||
	    [ -x "$BUILD/regress/$n" ] || [ -f "$E2E_DIR/$n.sh" ] ||
	    [ -f "$FAULTS_DIR/$n.sh" ] || {
		echo "run.sh: no test named $n (a regress/e2e or" \
		    "regress/faults script's name, faults, a unit test" \
		    "in $BUILD/regress, or mandoc)" >&2
		exit 2
	}
done
passed=0
failed=0
failures=
skipped=0
skips=
known=0
knowns=
fixed=
SKIPLIST=${CI_SKIPS:-regress/ci-skips}

wanted() {	# wanted NAME [GROUP]: no names were given, or NAME or GROUP was
	[ "$WANTED" = "  " ] && return 0
	case "$WANTED" in *" $1 "*) return 0 ;; esac
	[ -n "${2:-}" ] || return 1
	case "$WANTED" in *" $2 "*) return 0 ;; esac
	return 1
}

# results OUTPUT-FILE STATUS: p and f, the passed and failed cases it
# reports
results() {
	p=$(sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed.*/\1/p' "$1" | tail -n 1)
	f=$(sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed.*/\2/p' "$1" | tail -n 1)
	if [ -z "$p" ]; then
		# cmocka: "[  PASSED  ] N test(s)." and "[  FAILED  ] N test(s)"
		p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$1" | tail -n 1)
		f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$1" | tail -n 1)
	fi
	p=${p:-0}
	f=${f:-0}
	if [ "$2" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1	# it died without saying what failed
	fi
}

count() {	# count NAME OUTPUT-FILE STATUS
	results "$2" "$3"
	passed=$((passed + p))
	failed=$((failed + f))
	[ "$f" -eq 0 ] || failures="$failures $1"
	echo "== $1: $p passed, $f failed"
}

# listed LIST NAME: the reason a list of "NAME REASON" lines gives NAME
# (regress/ci-skips, regress/faults/known-failing), or nothing
listed() {
	sed -n "s/^$2[[:space:]][[:space:]]*//p" "$1" 2>/dev/null | head -n 1
}

# count_known NAME OUTPUT-FILE STATUS DEFECT: a known failing script's
# result, counted as nothing while it fails, as passed once it passes
count_known() {
	results "$2" "$3"
	if [ "$f" -eq 0 ]; then
		passed=$((passed + p))
		fixed="$fixed $1"
		echo "== $1: $p passed, 0 failed (known failing, but passes:" \
		    "take it off $KNOWN_LIST)"
		return 0
	fi
	known=$((known + 1))
	knowns="$knowns
known failing: $1: $4 ($p passed, $f failed, not counted)"
	echo "== $1: known failing ($4): $p passed, $f failed, not counted"
}

# skipped NAME OUTPUT-FILE: when the script skipped, counted and named,
# and under CI a failure unless regress/ci-skips allows it
skipped() {
	why=$(sed -n 's/^skipped: //p' "$2" | head -n 1)
	[ -n "$why" ] || return 0
	skipped=$((skipped + 1))
	if [ "${CI:-}" = true ]; then
		allowed=$(listed "$SKIPLIST" "$1")
		if [ -z "$allowed" ]; then
			failed=$((failed + 1))
			failures="$failures $1"
			skips="$skips
skipped: $1: $why (a failure under CI: not in $SKIPLIST)"
			return 0
		fi
		why="$why (allowed in CI: $allowed)"
	fi
	skips="$skips
skipped: $1: $why"
}

out=$(mktemp)
trap 'rm -f "$out"' EXIT

for t in "$BUILD"/regress/test_*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	wanted "$name" || continue
	echo "== $name"
	"$t" >"$out" 2>&1
	st=$?
	cat "$out"
	count "$name" "$out" "$st"
done

if wanted mandoc; then
	echo "== mandoc -Tlint"
	if mandoc -Tlint -Wwarning man/*.[578] >"$out" 2>&1; then
		passed=$((passed + 1))
	else
		cat "$out"
		failed=$((failed + 1))
		failures="$failures mandoc"
	fi
fi

# scripts DIR [GROUP]: each script of DIR wanted by its name or GROUP
scripts() {
	for t in "$1"/*.sh; do
		[ -f "$t" ] || continue
		case "$t" in */lib.sh) continue ;; esac
		name=$(basename "$t" .sh)
		wanted "$name" "${2:-}" || continue
		echo "== $name"
		sh "$t" "$BUILD" >"$out" 2>&1
		st=$?
		cat "$out"
		defect=
		[ -z "${2:-}" ] || defect=$(listed "$KNOWN_LIST" "$name")
		if [ -n "$defect" ] && ! grep -q '^skipped: ' "$out"; then
			count_known "$name" "$out" "$st" "$defect"
		else
			count "$name" "$out" "$st"
		fi
		skipped "$name" "$out"
	done
}

scripts "$E2E_DIR"
scripts "$FAULTS_DIR" faults

[ -z "$skips" ] || echo "$skips" | sed 1d
[ -z "$knowns" ] || echo "$knowns" | sed 1d
[ -z "$fixed" ] || echo "known failing, but passing now:$fixed" \
    "(take them off $KNOWN_LIST)"
[ -z "$failures" ] || echo "failing:$failures"
if [ "$known" -eq 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed, $skipped skipped," \
	    "$known known failing"
fi
[ "$failed" -eq 0 ]
