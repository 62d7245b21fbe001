#!/bin/sh
# Attacks on the freeze tier (orchd-security.7): a frozen workload cannot
# thaw itself, nor freeze or thaw another: its cgroup's freezer file is
# root's, and a write to it as the workload's own uid, or as another
# workload's, is refused and changes nothing.  Then the races of a thaw
# with a stop: with "suspend freeze for 1s" and a 1s idle timeout the
# workload is frozen, thawed and stopped over and over while requests
# come at every moment (during a freeze, a thaw, a stop, a start); none
# may be lost: each gets the workload's own answer.  As many rounds as
# fit in about 60 s; the count is printed.  On an orchd without the freeze
# tier the keyword is refused and orchd does not start: every check fails.
#
#	sh regress/e2e/attack_freeze.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

if ! grep -q ' - cgroup2\? ' /proc/self/mountinfo; then
	skip "no cgroups mounted"
fi

port_base 37
ports GW P_V P_O
mkdir -p "$T/log"
testhttp_bin
HTTP=$T/bin/testhttp

conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
idle timeout 1s
reaper interval 1s
wake timeout 15s
suspend freeze for 1s
listen on 127.0.0.1 port $GW

workload "afv" {
	host "afv.test"
	command "$HTTP serve $P_V"
	port $P_V
}
workload "afo" {
	host "afo.test"
	command "$HTTP serve $P_O"
	port $P_O
	suspend freeze
}
CONF

ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
is_state() { ctl show workloads 2>/dev/null | grep -Eq "^$1 +$2 "; }
served_pid() { pgrep -f "testhttp serve $1\$" | head -n 1; }
uid_of() { awk '/^Uid:/ { print $2 }' "/proc/$1/status"; }
# the file that freezes PID's cgroup: v1's freezer.state, v2's cgroup.freeze
freeze_file() {
	cg=$(sed -n 's/^[0-9]*:freezer://p' "/proc/$1/cgroup")
	if [ -n "$cg" ]; then
		echo "/sys/fs/cgroup/freezer$cg/freezer.state"
		return
	fi
	m=$(grep ' - cgroup2 ' /proc/self/mountinfo | head -n 1 | cut -d' ' -f5)
	echo "$m$(sed -n 's/^0:://p' "/proc/$1/cgroup")/cgroup.freeze"
}
frozen() {	# frozen FILE: the cgroup of that freeze file is frozen
	case $1 in
	*/freezer.state) grep -q FROZEN "$1" ;;
	*) grep -q '^frozen 1' "${1%/cgroup.freeze}/cgroup.events" ;;
	esac
}
# write_as UID FILE WORD: 0 only if the write went through
write_as() {
	setpriv --reuid="$1" --regid=65534 --clear-groups \
	    sh -c "printf '%s' '$3' >'$2'" 2>/dev/null
}
not() { ! "$@"; }
get() { curl -s -m 20 -H "Host: $1.test" "http://127.0.0.1:$GW/"; }
answers() { get "$1" | grep -q '^hello from testhttp'; }
root_only() {	# root_only FILE: root's, no group or other write bit
	[ "$(stat -c %u "$1")" = 0 ] &&
	    [ $((0$(stat -c %a "$1") & 022)) -eq 0 ]
}

start_orchd_or_exit
if grep -q 'no cgroups' "$T/orchd.log"; then
	stop_orchd
	skip "cgroups mounted but not usable by orchd here"
fi

# 1. a frozen workload cannot thaw itself, nor freeze another
check "wake afo (frozen until room is needed)" answers afo
opid=$(served_pid "$P_O")
ouid=$(uid_of "$opid")
ofile=$(freeze_file "$opid")
case $ofile in
*/freezer.state) thaw=THAWED freeze=FROZEN ;;
*) thaw=0 freeze=1 ;;
esac
check "afo frozen" wait_for 10 is_state afo frozen
check "and its cgroup too ($ofile)" frozen "$ofile"
check "its freeze file is root's, no one else may write it" root_only "$ofile"
check "its own uid ($ouid) cannot thaw it" not write_as "$ouid" "$ofile" "$thaw"
check "it is still frozen" frozen "$ofile"
check "nobody cannot thaw it" not write_as 65534 "$ofile" "$thaw"
check "still frozen" frozen "$ofile"
check "nor the cgroup's procs move it out" \
    not write_as "$ouid" "${ofile%/*}/../cgroup.procs" "$opid"
check "wake afv" answers afv
vpid=$(served_pid "$P_V")
vfile=$(freeze_file "$vpid")
check "afo's uid cannot freeze afv" not write_as "$ouid" "$vfile" "$freeze"
check "afv answers: it was not frozen" answers afv
check "afo thaws for a request, as it should" answers afo

# 2. the races: requests at every moment of freeze, thaw and stop
lost=0
n=0
rounds=0
end=$(($(date +%s) + 55))
i=0
while [ "$(date +%s)" -lt "$end" ] && [ $i -lt 1000 ]; do
	i=$((i + 1))
	# a pause of 0 to 2.5 s: the next requests find it running,
	# frozen, thawing, stopping or asleep
	sleep "$(awk -v r="$i" 'BEGIN { srand(r + '"$$"'); printf "%.2f", rand() * 2.5 }')"
	pids=
	for k in 1 2 3; do
		get afv >"$T/r.$k" &
		pids="$pids $!"
	done
	# those three only: a bare wait would wait for orchd too
	wait $pids
	for k in 1 2 3; do
		n=$((n + 1))
		grep -q '^hello from testhttp' "$T/r.$k" ||
		    lost=$((lost + 1))
	done
	rounds=$i
done
thaws=$(grep -c 'workload afv: frozen -> waking' "$T/orchd.log")
stops=$(grep -c 'workload afv: frozen -> suspending' "$T/orchd.log")
echo "# $rounds rounds, $n requests, $lost lost; afv thawed $thaws times," \
    "stopped from frozen $stops times"
check "requests during freezes, thaws and stops: 0 lost of $n" \
    test "$lost" -eq 0
check "the rounds did thaw it and stop it from frozen" \
    test "$thaws" -gt 0 -a "$stops" -gt 0
check "every frozen afv was thawed or stopped, never left frozen under a request" \
    sh -c "! grep -q 'could not be thawed' '$T/orchd.log'"
stop_orchd

e2e_done
