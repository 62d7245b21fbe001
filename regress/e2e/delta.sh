#!/bin/sh
# A reload sends runtimed, the store, the reaper and the gateways only
# what changed (issue 38; all but runtimed are sent every one when the
# globals changed, the gateways too after a generation with "depends
# on"):
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
# is not touched.  The gateways' routes after a delta are a full send's:
# a wildcard host, and two workloads on one host by path, one changed
# then removed, each path answering from its own workload.
# Every wait bounded.
#
#	sh regress/e2e/delta.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
[ -x /bin/busybox ] || skip "no /bin/busybox"

ports GW WA WB WC WD WP WQ WW
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
		echo "reaper interval 1s"
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
seen() {	# seen NAME: its last-seen time, as orchctl shows it (not "ago")
	"$ORCHCTL" -s "$SOCK" show workload "$1" 2>/dev/null |
	    awk '$1 == "last" && $2 == "seen:" { print $3 }'
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
check "... the gateway kept every one" \
    child gateway "2: delta of 0 on 1, 3 kept, 0 removed"
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
for who in store reaper gateway; do
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
# the request's use reaches the store at the reaper's next tick (1 s)
sleep 3
sa=$(seen aa)
check "aa has a last-seen time" [ -n "$sa" ]
{ wl dd "$WD"; wl aa "$WA"; wl bb "$WB" "idle timeout 30m"; } | conf
check "a reload changing one workload succeeds" reload
check "... runtimed is sent one" \
    logged "configuration 5: to runtimed a delta of 1 on 4, 3 workloads"
check "... the store and reaper are sent one" \
    logged "configuration 5: to the store and reaper a delta of 1 on 4"
for who in runtime store reaper gateway; do
	check "... the $who received one, kept two" \
	    child $who "5: delta of 1 on 4, 2 kept"
done
check "... the store wrote one row" \
    logged "configuration 5: a delta of what changed, 1 row written, 0 removed, 2 unchanged"
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

# pw NAME PORT PATH [SETTING...]: on host pp.test by PATH, from its own
# directory, whose PATH/index.html says NAME
pw() {
	name=$1
	port=$2
	path=$3
	shift 3
	mkdir -p "$T/$name$path"
	echo "$name" >"$T/$name$path/index.html"
	chmod -R a+rX "$T/$name"
	printf 'workload "%s" {\n\thost "pp.test"\n\tpath "%s"\n' "$name" "$path"
	printf '\tcommand "/bin/busybox httpd -f -p 127.0.0.1:%d -h %s"\n' \
	    "$port" "$T/$name"
	printf '\tport %d\n' "$port"
	conf_end "$@"
}
body() {	# body HOST PATH: the answer's body
	curl -s -m 30 -H "Host: $1" "http://127.0.0.1:$GW$2"
}
base() {
	echo "idle timeout 40m"
	wl dd "$WD"
	wl aa "$WA"
	wl bb "$WB" "idle timeout 30m"
	printf 'workload "ww" {\n\thost "*.ww.test"\n'
	printf '\tcommand "/bin/busybox httpd -f -p 127.0.0.1:%d -h %s"\n' \
	    "$WW" "$T/www"
	printf '\tport %d\n}\n' "$WW"
}
{ base; pw pa "$WP" /a/; pw pb "$WQ" /b/; } | conf
check "a reload adding a wildcard host and two paths on one host" reload
check "... the gateway was sent three" \
    child gateway "7: delta of 3 on 6, 3 kept, 0 removed"
check "... x.ww.test answers 200" [ "$(code x.ww.test)" = 200 ]
check "... pp.test/a/ is pa's" [ "$(body pp.test /a/)" = pa ]
check "... pp.test/b/ is pb's" [ "$(body pp.test /b/)" = pb ]
{ base; pw pa "$WP" /a/ "idle timeout 7m"; pw pb "$WQ" /b/; } | conf
check "a reload changing pa succeeds" reload
check "... the gateway was sent one" \
    child gateway "8: delta of 1 on 7, 5 kept, 0 removed"
check "... pp.test/a/ is pa's" [ "$(body pp.test /a/)" = pa ]
check "... pp.test/b/ is still pb's" [ "$(body pp.test /b/)" = pb ]
check "... x.ww.test still answers 200" [ "$(code x.ww.test)" = 200 ]
{ base; pw pa "$WP" /a/ "idle timeout 7m"; } | conf
check "a reload removing pb succeeds" reload
check "... the gateway removed one" \
    child gateway "9: delta of 0 on 8, 5 kept, 1 removed"
check "... pp.test/b/ is pb's no more" [ "$(body pp.test /b/)" != pb ]
check "... pp.test/a/ is still pa's" [ "$(body pp.test /a/)" = pa ]
check "... aa still answers 200" [ "$(code aa.test)" = 200 ]
check "... the gateways were sent a delta" \
    logged "configuration 9: to the gateways a delta of 0 on 8"
# pa comes to depend on aa: the gateways take that delta, not the next
{ base; pw pa "$WP" /a/ "idle timeout 7m" 'depends on "aa"'; } | conf
check "a reload adding a depends on succeeds" reload
check "... the gateway was sent one" \
    child gateway "10: delta of 1 on 9, 4 kept, 0 removed"
{ base; pw pa "$WP" /a/ "idle timeout 8m" 'depends on "aa"'; } | conf
check "the next reload succeeds" reload
check "... the gateways are sent every one" \
    logged "configuration 11: to the gateways in full, 5 workloads"
check "... the store and the reaper a delta" \
    logged "configuration 11: to the store and reaper a delta of 1 on 10"
check "... pp.test/a/ is still pa's" [ "$(body pp.test /a/)" = pa ]
check "... and no delta was refused" \
    sh -c "! grep -q 'delta refused' \"$T/orchd.log\""

stop_orchd
check "orchd stops cleanly" [ "$STATUS" = 0 ]
check "no sanitizer report" sh -c "! grep -q 'Sanitizer' \"$T/orchd.log\""
e2e_done
