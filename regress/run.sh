#!/bin/sh
# Runs every test against the programs in the build directory given as $1
# (make check passes build/check) and ends with one line:
# "N passed, N failed, N skipped".  Unit tests count their cmocka cases,
# end-to-end scripts the cases they report on their own closing line.
# Names after the build directory (test_parse, wake, mandoc) run those
# tests alone.
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
# for regress/e2e/ciskips.sh, which tests this file's counting.
set -u
BUILD=${1:-build}
[ $# -gt 0 ] && shift
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
WANTED=" $* "
E2E_DIR=${E2E_DIR:-regress/e2e}
for n in "$@"; do
	[ "$n" = mandoc ] || [ -x "$BUILD/regress/$n" ] ||
	    [ -f "$E2E_DIR/$n.sh" ] || {
		echo "run.sh: no test named $n (a regress/e2e script's" \
		    "name, a unit test in $BUILD/regress, or mandoc)" >&2
		exit 2
	}
done
passed=0
failed=0
failures=
skipped=0
skips=
SKIPLIST=${CI_SKIPS:-regress/ci-skips}

wanted() {	# wanted NAME: true when no names were given, or NAME was
	[ "$WANTED" = "  " ] && return 0
	case "$WANTED" in *" $1 "*) return 0 ;; esac
	return 1
}

count() {	# count NAME OUTPUT-FILE STATUS
	p=$(sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed.*/\1/p' "$2" | tail -n 1)
	f=$(sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed.*/\2/p' "$2" | tail -n 1)
	if [ -z "$p" ]; then
		# cmocka: "[  PASSED  ] N test(s)." and "[  FAILED  ] N test(s)"
		p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$2" | tail -n 1)
		f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$2" | tail -n 1)
	fi
	p=${p:-0}
	f=${f:-0}
	if [ "$3" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1	# it died without saying what failed
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	[ "$f" -eq 0 ] || failures="$failures $1"
	echo "== $1: $p passed, $f failed"
}

# allowed_skip NAME: regress/ci-skips' reason for NAME, or nothing
allowed_skip() {
	sed -n "s/^$1[[:space:]][[:space:]]*//p" "$SKIPLIST" 2>/dev/null |
	    head -n 1
}

# skipped NAME OUTPUT-FILE: when the script skipped, counted and named,
# and under CI a failure unless regress/ci-skips allows it
skipped() {
	why=$(sed -n 's/^skipped: //p' "$2" | head -n 1)
	[ -n "$why" ] || return 0
	skipped=$((skipped + 1))
	if [ "${CI:-}" = true ]; then
		allowed=$(allowed_skip "$1")
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

for t in "$E2E_DIR"/*.sh; do
	case "$t" in */lib.sh) continue ;; esac
	name=$(basename "$t" .sh)
	wanted "$name" || continue
	echo "== $name"
	sh "$t" "$BUILD" >"$out" 2>&1
	st=$?
	cat "$out"
	count "$name" "$out" "$st"
	skipped "$name" "$out"
done

[ -z "$skips" ] || echo "$skips" | sed 1d
[ -z "$failures" ] || echo "failing:$failures"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
