#!/bin/sh
# make demo, as the README tells a user to run it: one wake, one sleep,
# one wake again, every answer a 200.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root

# the demo runs the programs in build/: point it at the ones under test
out=$T/demo.out
mkdir -p "$T/tree"
cp -r tools "$T/tree/"
ln -s "$BUILD" "$T/tree/build"
DEMO_PORT=$((30000 + $$ % 10000)) DEMO_IDLE=2 \
    timeout 60 sh "$T/tree/tools/demo.sh" --once >"$out" 2>&1
st=$?
cat "$out"
check "the demo ran to its end (status $st)" [ "$st" -eq 0 ]
check "it prints the curl command to try" \
    grep -q "^curl -H 'Host: hello.localhost' http://127.0.0.1:" "$out"
check "the first request wakes the workload" \
    grep -q "^first request (wakes the workload): 200 in" "$out"
check "the workload goes to sleep" grep -q "^hello is now asleep" "$out"
check "the next request wakes it again" \
    grep -q "^next request (wakes it again): *200 in" "$out"
e2e_done
