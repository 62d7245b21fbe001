#!/bin/sh
# Attack (issue 28, item 8; orchd-workload.7, instances share nothing):
# two orchd instances on one host and one Docker daemon, with the same
# workload
# names, a container workload and a process workload in each.  Before,
# both named the container orchd-NAME: one instance removed and made
# again the other's container, the other logged its container removed
# and killed "outside orchd" and put its workload in crash-loop backoff;
# and both gave a process workload the first uid of the same default
# range.  Here each instance serves and suspends its own: each gateway
# reaches its own container (their pages differ) and its own process,
# a suspend in one leaves the other's running, neither log says
# "outside orchd" or "crash loop", and the two processes run as two
# uids.  A third orchd under a name a live instance holds is refused at
# start, and so is one whose workload uids meet a live instance's, and a
# reload to such uids.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
need_docker
ensure_user

IMAGE=orchd-test/busybox:latest
W=ibox$$
P=iweb$$
IA=ia-$$
IB=ib-$$
# two disjoint ranges of workload uids, apart from every other run's
LA=$((E2E_UID_LOW))
LB=$((E2E_UID_LOW + 8))
port_base 11
ports GWA GWB GWC BOXA BOXB WEBA WEBB

inst_cleanup() {
	for pid in $PID_A $PID_B $PID_C; do
		kill -TERM "$pid" 2>/dev/null && wait_gone "$pid" 10
		kill -KILL "$pid" 2>/dev/null
	done
	# this run's only: every name an orchd before or after the change
	# gives them
	docker rm -f "orchd-$W" "orchd-$IA-$W" "orchd-$IB-$W" \
	    "orchd-ic-$$-$W" >/dev/null 2>&1
	e2e_cleanup
}
PID_A=
PID_B=
PID_C=
trap inst_cleanup EXIT

testhttp_bin
mkdir -p "$T/a/log" "$T/b/log" "$T/c/log"
# each process workload's starts, written as its own uid
for x in a b; do
	: >"$T/$x/starts"
	chmod 0666 "$T/$x/starts"
done

# conf DIR NAME LOW GATEWAY BOXPORT WEBPORT PAGE: an instance, its own
# files and ports, the same two workloads
conf() {
	cat <<CONF
user "_orchd"
chroot "/var/empty"
database "$1/db/orchd.db"
socket "$1/orchd.sock"
log directory "$1/log"
reaper interval 1s
CONF
	[ -z "$2" ] || echo "instance name \"$2\""
	[ -z "$3" ] || echo "workload uids \"$3-$(($3 + 7))\""
	cat <<CONF
listen on 127.0.0.1 port $4

workload "$W" {
	host "box.test"
	driver docker
	image "$IMAGE"
	command "/bin/sh -c 'mkdir -p /tmp/w && echo \$PAGE >/tmp/w/index.html && exec httpd -f -p 127.0.0.1:$5 -h /tmp/w'"
	env "PAGE=$7"
	network host
	port $5
	idle timeout 1h
}
workload "$P" {
	host "web.test"
	command "$T/bin/testhttp serve $6 $1/starts"
	port $6
	idle timeout 1h
}
CONF
}
conf "$T/a" "$IA" "$LA" "$GWA" "$BOXA" "$WEBA" page-a >"$T/a/orchd.conf"
conf "$T/b" "$IB" "$LB" "$GWB" "$BOXB" "$WEBB" page-b >"$T/b/orchd.conf"

# start X: orchd on $T/X/orchd.conf, its pid in PID_X
start() {
	"$ORCHD" -d -f "$T/$1/orchd.conf" >>"$T/$1/orchd.log" 2>&1 &
	eval "PID_$(echo "$1" | tr a-c A-C)=\$!"
	wait_for 20 "$ORCHCTL" -s "$T/$1/orchd.sock" show summary
}
get() {		# get GATEWAY HOST: the body of /index.html
	curl -s -m 30 -H "Host: $2" "http://127.0.0.1:$1/index.html"
}
code() {	# code GATEWAY HOST
	curl -s -m 30 -o /dev/null -w '%{http_code}' -H "Host: $2" \
	    "http://127.0.0.1:$1/"
}
state() {	# state DIR NAME
	"$ORCHCTL" -s "$T/$1/orchd.sock" show workload "$2" 2>/dev/null |
	    awk '$1 == "state:" { print $2 }'
}
state_is() { [ "$(state "$1" "$2")" = "$3" ]; }
uid_of() {	# uid_of PORT: of the process workload serving it
	p=$(pgrep -f "testhttp serve $1 " | head -n 1)
	[ -n "$p" ] && awk '$1 == "Uid:" { print $2 }' "/proc/$p/status"
}
both_run() { state_is a "$W" running && state_is b "$W" running; }
started_once() {	# started_once DIR
	[ "$(wc -l <"$T/$1/starts" 2>/dev/null)" -eq 1 ]
}
two_uids() { [ -n "$ua" ] && [ -n "$ub" ] && [ "$ua" != "$ub" ]; }
# refused LOG: the third orchd exits by itself; killed if it does not
refused() {
	"$ORCHD" -d -f "$T/c/orchd.conf" >"$T/c/$1" 2>&1 &
	PID_C=$!
	if wait_gone "$PID_C" 10; then
		PID_C=
		return 0
	fi
	kill -TERM "$PID_C" 2>/dev/null
	wait_gone "$PID_C" 10
	PID_C=
	return 1
}

check "instance a starts" start a
check "instance b starts, same workload names" start b

check "a's gateway serves a's container (page-a)" \
    [ "$(get "$GWA" box.test)" = page-a ]
check "b's gateway serves b's container (page-b)" \
    [ "$(get "$GWB" box.test)" = page-b ]
check "... and a's is still served page-a" \
    [ "$(get "$GWA" box.test)" = page-a ]
check "... and both run" both_run

check "a's gateway reaches a's process workload" [ "$(code "$GWA" web.test)" = 200 ]
check "b's gateway reaches b's process workload" [ "$(code "$GWB" web.test)" = 200 ]
check "... a's started once, by a" started_once a
check "... b's started once, by b" started_once b
ua=$(uid_of "$WEBA")
ub=$(uid_of "$WEBB")
echo "# uids: a's $ua, b's $ub"
check "the two process workloads run as two uids ($ua, $ub)" two_uids

check "suspend $W in a" "$ORCHCTL" -s "$T/a/orchd.sock" suspend "$W"
check "... a's is asleep" wait_for 15 state_is a "$W" asleep
sleep 2
check "... b's still runs" state_is b "$W" running
check "... and serves page-b at once" [ "$(get "$GWB" box.test)" = page-b ]
check "... a wakes its own again (page-a)" \
    [ "$(get "$GWA" box.test)" = page-a ]
check "suspend $W in b" "$ORCHCTL" -s "$T/b/orchd.sock" suspend "$W"
check "... b's is asleep" wait_for 15 state_is b "$W" asleep
sleep 2
check "... a's still runs" state_is a "$W" running
check "... and serves page-a" [ "$(get "$GWA" box.test)" = page-a ]

for x in a b; do
	n=$(grep -c "outside orchd" "$T/$x/orchd.log")
	check "no \"outside orchd\" in $x's log ($n)" [ "$n" -eq 0 ]
	n=$(grep -c "crash loop" "$T/$x/orchd.log")
	check "no crash loop in $x's log ($n)" [ "$n" -eq 0 ]
	n=$(grep -c "not this instance's\|left alone" "$T/$x/orchd.log")
	check "$x never met the other's container ($n)" [ "$n" -eq 0 ]
done

# a third orchd under a's name, its own files, ports and uids
conf "$T/c" "$IA" "$E2E_UID_LOW2" "$GWC" "$BOXA" "$WEBA" page-c \
    >"$T/c/orchd.conf"
check "an orchd under a live instance's name is refused at start" \
    refused same.log
check "... saying that name is taken and to set instance name" \
    grep -q "instance name \"$IA\" is taken.*instance name" "$T/c/same.log"
check "... a still serves its own" [ "$(get "$GWA" box.test)" = page-a ]

# one whose workload uids meet b's
conf "$T/c" "ic-$$" "$((LB + 4))" "$GWC" "$BOXA" "$WEBA" page-c \
    >"$T/c/orchd.conf"
check "an orchd whose workload uids overlap a live instance's is refused" \
    refused overlap.log
check "... naming the other instance and its range" \
    grep -q "overlap $LB-$((LB + 7)) of orchd instance \"$IB\"" \
    "$T/c/overlap.log"

# a reload of a to uids that meet b's
sed "s/^workload uids .*/workload uids \"$LB-$((LB + 3))\"/" \
    "$T/a/orchd.conf" >"$T/a/orchd.conf.new" &&
    mv "$T/a/orchd.conf.new" "$T/a/orchd.conf"
"$ORCHCTL" -s "$T/a/orchd.sock" reload >"$T/reload.out" 2>&1
check "a reload to uids that overlap a live instance's is refused" \
    grep -q "overlap $LB-$((LB + 7))" "$T/reload.out"
check "... a runs on" [ "$(get "$GWA" box.test)" = page-a ]

for x in a b; do
	grep -E 'AddressSanitizer|runtime error:' "$T/$x/orchd.log" \
	    >/dev/null && fail "sanitizer report in $x's log"
done
if [ "$FAILED" -gt 0 ]; then
	for x in a b; do
		echo "# --- $x's log (tail)"
		tail -n 25 "$T/$x/orchd.log" | sed 's/^/# /'
	done
fi
e2e_done
