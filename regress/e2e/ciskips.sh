#!/bin/sh
# regress/run.sh's count of skipped scripts, and CI's refusal of them: a
# folder of two scripts, one that passes and one that skips, run through
# run.sh without CI (the skip is named and counted, the run passes),
# with CI=true (the run fails, naming the script and its reason), and
# with CI=true and a ci-skips list that allows it (the run passes, the
# reason given).  A CI that reports green with a suite skipped is the
# failure this guards against.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
top=$(cd "$(dirname "$0")/../.." && pwd)
lib=$top/regress/e2e/lib.sh

mkdir -p "$T/e2e"
cat >"$T/e2e/passer.sh" <<EOS
. "$lib"
e2e_init "\$1"
ok "it ran"
e2e_done
EOS
cat >"$T/e2e/skipper.sh" <<EOS
. "$lib"
e2e_init "\$1"
skip "no daemon answers here"
EOS
: >"$T/none"
printf '# a comment\nskipper  only a test may skip\n' >"$T/allow"

runit() {	# runit OUT CI-VALUE LIST: run.sh on the two, its status in OUT.rc
	env CI="$2" CI_SKIPS="$3" E2E_DIR="$T/e2e" \
	    sh "$top/regress/run.sh" "$BUILD" passer skipper >"$T/$1" 2>&1
	echo $? >"$T/$1.rc"
}

runit dev "" "$T/none"
check "without CI: the run passes" [ "$(cat "$T/dev.rc")" -eq 0 ]
check "... its closing line counts the skip" \
    grep -qx '1 passed, 0 failed, 1 skipped' "$T/dev"
check "... and names the script and its reason" \
    grep -qx 'skipped: skipper: no daemon answers here' "$T/dev"

runit ci true "$T/none"
check "under CI=true: the run fails" [ "$(cat "$T/ci.rc")" -ne 0 ]
check "... its closing line counts it a failure" \
    grep -qx '1 passed, 1 failed, 1 skipped' "$T/ci"
check "... naming the script, its reason and the list" \
    grep -q '^skipped: skipper: no daemon answers here (a failure under CI: not in' \
    "$T/ci"
check "... and the script among the failing" grep -qx 'failing: skipper' "$T/ci"

runit allowed true "$T/allow"
check "under CI=true, a script ci-skips lists: the run passes" \
    [ "$(cat "$T/allowed.rc")" -eq 0 ]
check "... with the list's reason" \
    grep -qx 'skipped: skipper: no daemon answers here (allowed in CI: only a test may skip)' \
    "$T/allowed"
check "... a comment in the list names nothing" \
    sh -c '! grep -q "a comment" "$1"' sh "$T/allowed"

if [ "$FAILED" -ne 0 ]; then
	for f in dev ci allowed; do echo "# $f:"; sed 's/^/#   /' "$T/$f"; done
fi
e2e_done
