#!/bin/sh
# make demo, as the README tells a user to run it: one wake, one sleep,
# one wake again, every answer a 200; then, with the demo left running,
# the curl commands it prints are followed and answered, and stopping it
# leaves nothing behind.  (SIGTERM, which it handles as it does ^C: a
# command started in the background by a script ignores SIGINT.)
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root

# the README's demo command installs what the demo needs alone, and the
# README says how to move its port
check "the README's demo command is tools/deps.sh demo, then make demo" \
    grep -qx '    sh tools/deps.sh demo && make demo' README.md
check "the README documents DEMO_PORT" grep -q 'DEMO_PORT=[0-9]* make demo' \
    README.md
check "tools/deps.sh demo is a mode of tools/deps.sh" \
    grep -q '^demo)' tools/deps.sh

# the demo runs the programs in build/: point it at the ones under test
out=$T/demo.out
mkdir -p "$T/tree/regress"
cp -r tools "$T/tree/"
cp regress/docker-image.sh "$T/tree/regress/"
ln -s "$BUILD" "$T/tree/build"
port=$((20000 + $$ % 12000))
DEMO_PORT=$port DEMO_IDLE=2 \
    timeout 90 sh "$T/tree/tools/demo.sh" --once >"$out" 2>&1
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
if docker info >/dev/null 2>&1; then
	check "with Docker, the container answers too" \
	    grep -q "^first request to the container: *200 in" "$out"
fi

# left running: follow what it prints, then ^C
out2=$T/demo2.out
port=$((port + 5))
DEMO_PORT=$port DEMO_IDLE=2 setsid sh "$T/tree/tools/demo.sh" >"$out2" 2>&1 &
demo=$!
check "the demo keeps running" wait_for 60 grep -q "^orchd keeps running" "$out2"
n=0
grep '^curl ' "$out2" >"$T/curls"
while read -r cmd; do
	body=$(eval "$cmd -sS -m 20" 2>&1)
	check "printed command answers: $cmd" \
	    sh -c "echo \"\$1\" | grep -q 'a moment ago'" sh "$body"
	n=$((n + 1))
done <"$T/curls"
check "it printed curl commands ($n)" [ "$n" -ge 1 ]
kill -TERM "$demo" 2>/dev/null
check "stopping the demo stops it" wait_for 30 dead "$demo"
wait "$demo" 2>/dev/null
check "and its orchd: nothing listens on the demo's port" \
    sh -c "! curl -s -m 2 http://127.0.0.1:$port/ >/dev/null"
dir=$(sed -n 's/^orchd is running (config \(.*\)\/etc\/orchd.conf.*/\1/p' "$out2")
check "its directory is removed ($dir)" [ -n "$dir" ] && [ ! -d "$dir" ]
e2e_done
