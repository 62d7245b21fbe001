#!/bin/sh
# A reload sends runtimed, the store and the reaper only what changed
# (issue 38; the gateways keep their definitions in a small form and are
# sent every one; the store and the reaper are sent every one when the
# globals changed):
# the first configuration goes in full; a reload that changes nothing is
# a delta of none, every definition kept; one that changes a workload,
# removes one and adds one is a delta of two.  After each, the children
# are as a full send would leave them: every host configured routes to
# its own workload (busybox httpd, 200), the one removed routes nowhere,
# the running one that did not change keeps running (the same start, not
# restarted), and orchctl lists exactly the configured names.  The
# debug log says, for the parent and each child, what a generation was;
# a reload that changes one workload sends each of them one definition,
# and the others' last-seen time (the store's row, the reaper's clock)
# is not touched.
# Every wait bounded.
#
#	sh regress/e2e/delta.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
[ -x /bin/busybox ] || skip "no /bin/busybox"

ports GW WA WB WC WD
mkdir -p "$T/log" "$T/www"
echo "delta" >"$T/www/index.html"
chmod 0755 "$T/www"
chmod 0644 "$T/www/index.html"

# wl NAME PORT [SETTING...]: busybox httpd on PORT for host NAME.test
wl() {
	name=$1
	port=$2
	shift 2
	printf 'workload "%s" {\n\thost "%s.test"\n' "$name" "$name"
	printf '\tcommand "/bin/busybox httpd -f -p 127.0.0.1:%d -h %s"\n' \
	    "$port" "$T/www"
	printf '\tport %d\n' "$port"
	conf_end "$@"
}
conf() {
	{
		conf_head
		echo "listen on 127.0.0.1 port $GW"
		echo "wake timeout 20s"
		cat
	} >"$T/orchd.conf"
}
reload() {
	"$ORCHCTL" -s "$SOCK" reload >"$T/out" 2>&1
}
code() {	# code HOST: the gateway's answer for HOST
	curl -s -m 30 -o /dev/null -w '%{http_code}' -H "Host: $1" \
	    "http://127.0.0.1:$GW/"
}
# logged TEXT: a line of orchd's log has TEXT
logged() { wait_for 10 grep -q "$1" "$T/orchd.log"; }
names() {	# names: the listed workloads' names, one line
	"$ORCHCTL" -s "$SOCK" show workloads 2>/dev/null |
	    awk 'NR > 1 { print $1 }' | sort | tr '\n' ' '
}
started() {	# started NAME: its pid, as orchctl shows it
	"$ORCHCTL" -s "$SOCK" show workload "$1" 2>/dev/null |
	    awk '$1 == "pid" || $1 == "pid:" { print $2 }'
}
seen() {	# seen NAME: its last-seen line, as orchctl shows it
	"$ORCHCTL" -s "$SOCK" show workload "$1" 2>/dev/null |
	    grep 'last seen'
}
# child WHO TEXT: WHO (store, reaper, runtime) logged TEXT
child() { logged "$1: configuration $2"; }

{ wl aa "$WA"; wl bb "$WB"; wl cc "$WC"; } | conf
start_orchd_or_exit -v
check "the first configuration goes in full" \
    logged "configuration 1: to runtimed in full, 3 workloads"
check "aa.test answers 200" [ "$(code aa.test)" = 200 ]
pa=$(started aa)

check "a reload changing nothing succeeds" reload
check "... it is a delta of none to runtimed" \
    logged "configuration 2: to runtimed a delta of 0 on 1, 3 workloads"
check "... and to the store and reaper" \
    logged "configuration 2: to the store and reaper a delta of 0 on 1"
for who in store reaper; do
	check "... the $who kept every one" \
	    child $who "2: delta of 0 on 1, 3 kept, 0 removed"
done
check "... the gateway was sent every definition, no delta" \
    sh -c "! grep -q 'gateway: configuration 2: delta' \"$T/orchd.log\""
check "... runtimed kept every definition" \
    logged "runtime: configuration 2: delta of 0 on 1, 3 kept"
check "... aa still answers 200" [ "$(code aa.test)" = 200 ]
check "... bb.test answers 200" [ "$(code bb.test)" = 200 ]
check "... aa was not restarted" [ "$(started aa)" = "$pa" ]

# bb changes, cc goes, dd comes
{ wl aa "$WA"; wl bb "$WB" "idle timeout 20m"; wl dd "$WD"; } | conf
check "a reload changing one, removing one, adding one succeeds" reload
check "... it is a delta of two" \
    logged "configuration 3: to runtimed a delta of 2 on 2, 3 workloads"
for who in store reaper; do
	check "... the $who was sent two, kept one, removed one" \
	    child $who "3: delta of 2 on 2, 1 kept, 1 removed"
done
check "... runtimed kept one" \
    logged "runtime: configuration 3: delta of 2 on 2, 1 kept"
check "... the names are aa bb dd" [ "$(names)" = "aa bb dd " ]
check "... dd.test answers 200" [ "$(code dd.test)" = 200 ]
check "... cc.test routes nowhere" [ "$(code cc.test)" != 200 ]
check "... aa still answers 200" [ "$(code aa.test)" = 200 ]
check "... aa was not restarted" [ "$(started aa)" = "$pa" ]
check "... bb's idle timeout is the new one" \
    sh -c "\"$ORCHCTL\" -s \"$SOCK\" show workload bb | grep -q '20m'"
check "no delta was refused" \
    sh -c "! grep -q 'delta refused' \"$T/orchd.log\""

# the order of the file is the order a full send gives: dd first now
{ wl dd "$WD"; wl aa "$WA"; wl bb "$WB" "idle timeout 20m"; } | conf
check "a reload that reorders succeeds" reload
check "... it is a delta of none" \
    logged "configuration 4: to runtimed a delta of 0 on 3, 3 workloads"
check "... every host answers 200" sh -c \
    "[ \"\$(curl -s -m 30 -o /dev/null -w '%{http_code}' -H 'Host: dd.test' http://127.0.0.1:$GW/)\" = 200 ]"

# one workload changes: each child that takes a delta is sent one
code aa.test >/dev/null
wait_for 20 sh -c "\"$ORCHCTL\" -s \"$SOCK\" show workload aa | grep 'last seen' | grep -qv never"
sa=$(seen aa)
{ wl dd "$WD"; wl aa "$WA"; wl bb "$WB" "idle timeout 30m"; } | conf
check "a reload changing one workload succeeds" reload
check "... runtimed is sent one" \
    logged "configuration 5: to runtimed a delta of 1 on 4, 3 workloads"
check "... the store and reaper are sent one" \
    logged "configuration 5: to the store and reaper a delta of 1 on 4"
for who in runtime store reaper; do
	check "... the $who received one, kept two" \
	    child $who "5: delta of 1 on 4, 2 kept"
done
check "... the store wrote one row" \
    logged "configuration 5: a delta, 1 row written, 0 removed, 2 unchanged"
check "... aa's last seen is as it was" [ "$(seen aa)" = "$sa" ]
check "... aa was not restarted" [ "$(started aa)" = "$pa" ]
check "... bb's idle timeout is the new one" \
    sh -c "\"$ORCHCTL\" -s \"$SOCK\" show workload bb | grep -q '30m'"

# a global changes: the store and the reaper are sent every one
{ echo "idle timeout 40m"; wl dd "$WD"; wl aa "$WA";
    wl bb "$WB" "idle timeout 30m"; } | conf
check "a reload changing a global succeeds" reload
check "... the store and reaper are sent it in full" \
    logged "configuration 6: to the store and reaper in full, 3 workloads"
check "... runtimed still a delta" \
    logged "configuration 6: to runtimed a delta of 0 on 5"
check "... aa's last seen is as it was" [ "$(seen aa)" = "$sa" ]
check "... every host answers 200" [ "$(code aa.test)" = 200 ]
check "no delta was refused" \
    sh -c "! grep -q 'delta refused' \"$T/orchd.log\""

stop_orchd
check "orchd stops cleanly" [ "$STATUS" = 0 ]
check "no sanitizer report" sh -c "! grep -q 'Sanitizer' \"$T/orchd.log\""
e2e_done
