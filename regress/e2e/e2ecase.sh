#!/bin/sh
# lib.sh's one case alone: a script of five checks, one of which fails,
# run whole, with -k PATTERN and with E2E_CASE=PATTERN: a selection
# prints and counts only the matching checks and the "..." checks after
# them, still runs every command, shows a failure left out as a comment,
# and fails when it matches nothing.  And regress/run.sh with names: only
# those, an unknown one an error.  No daemon: lib.sh only.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"

LIB=$(cd "$(dirname "$0")" && pwd)/lib.sh
cat >"$T/inner.sh" <<EOF
. "$LIB"
e2e_init "\$1"
check "alpha starts" true
check "... it answers" true
check "beta is refused" false
echo ran >>"$T/ran"
check "gamma answers" true
check "... it closes" true
e2e_done
EOF

# inner OUTPUT [ARGS...]: runs it, with E2E_CASE=$INNER_CASE if set (not
# a selection made for this script), its status in $ST
inner() {
	o=$1
	shift
	: >"$T/ran"
	env -u E2E_CASE ${INNER_CASE:+"E2E_CASE=$INNER_CASE"} \
	    sh "$T/inner.sh" "$BUILD" "$@" >"$T/$o" 2>&1
	ST=$?
}
has() { grep -Fxq -- "$2" "$T/$1"; }
not_has() { ! has "$@"; }
lines() { [ "$(grep -c '' "$T/$1")" -eq "$2" ]; }

inner all
check "no selection: every check counted" \
    has all "4 passed, 1 failed"
check "... and the script fails" [ "$ST" -ne 0 ]

inner k -k gamma
check "-k gamma: gamma and its \"...\" check counted" \
    has k "2 passed, 0 failed (E2E_CASE=gamma; 3 others not counted, 1 of them failed)"
check "... printed" has k "ok - ... it closes"
check "... alpha not printed" not_has k "ok - alpha starts"
check "... the failure left out shown as a comment" \
    has k "# not ok - beta is refused (not counted: E2E_CASE)"
check "... nothing else printed" lines k 4
check "... every command still ran" grep -q ran "$T/ran"
check "... the script passes" [ "$ST" -eq 0 ]

INNER_CASE='beta*refused'
inner env
INNER_CASE=
check "E2E_CASE, a shell pattern: the failing check counted" \
    has env "0 passed, 1 failed (E2E_CASE=beta*refused; 4 others not counted, 0 of them failed)"
check "... and the script fails" [ "$ST" -ne 0 ]

inner none -k nosuch
check "a pattern that matches nothing fails" \
    has none "not ok - no check's description matches E2E_CASE=nosuch"
check "... and the script fails" [ "$ST" -ne 0 ]

# regress/run.sh with names: those alone; an unknown name is an error
TOP=$(cd "$(dirname "$0")/../.." && pwd)
sh "$TOP/regress/run.sh" "$BUILD" mandoc >"$T/run1" 2>&1
ST=$?
check "run.sh NAME runs that test alone" \
    sh -c "[ $ST -eq 0 ] && tail -n 1 '$T/run1' | grep -qx '1 passed, 0 failed, 0 skipped'"
sh "$TOP/regress/run.sh" "$BUILD" nosuch >"$T/run2" 2>&1
ST=$?
check "an unknown name: status 2, before any test runs" \
    sh -c "[ $ST -eq 2 ] && ! grep -q '^==' '$T/run2'"
check "... saying which" grep -q "^run.sh: no test named nosuch " "$T/run2"

e2e_done
