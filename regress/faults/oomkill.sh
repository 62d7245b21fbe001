#!/bin/sh
# An OOM kill under load: a process workload with "memory 64M" is killed
# by the kernel for memory while requests are in flight.  Pass: each of
# the requests in flight gets a 502, the history says oom (orchd-workload.7,
# Process workloads), and the next request wakes it again and is served
# (a workload that failed is started again by a request).
#
# The workload: a shell (its first process) that starts a hog waiting
# for a trigger file, then runs testhttp, which holds 32 MiB and forks a
# process per connection.  The shell and testhttp raise their
# oom_score_adj to 1000 (any process may), the hog keeps 0: when the
# trigger makes the hog take 48 MiB, the cgroup is 16 MiB over its limit
# and the kernel kills the adj-1000 processes first (a score of at least
# the limit itself, where the hog's is its 48 MiB), until testhttp's
# memory is freed: the workload's first process dies, in-flight
# connections with it.  The hog is the next start's again only when the
# test makes the trigger again.
#
#	sh regress/faults/oomkill.sh build/check
. "$(dirname "$0")/../e2e/lib.sh"
e2e_init "$1"
need_root
ensure_user
grep -q ' - cgroup2\? ' /proc/self/mountinfo || skip "no cgroups mounted"

INFLIGHT=5

port_base 43
ports GW P P_HOG
testhttp_bin
mkdir -p "$T/log" "$T/run"
chmod 1777 "$T/run"
cat >"$T/bin/oom.sh" <<EOF
#!/bin/sh
(
	n=0
	while [ ! -e "$T/run/go" ] && [ \$n -lt 1200 ]; do
		sleep 0.1
		n=\$((n + 1))
	done
	[ -e "$T/run/go" ] &&
	    TESTHTTP_ALLOC=48 exec "$T/bin/testhttp" serve $P_HOG
) &
echo 1000 >/proc/self/oom_score_adj
TESTHTTP_ALLOC=32 "$T/bin/testhttp" serve $P "$T/run/starts"
EOF
chmod 0755 "$T/bin/oom.sh"

conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
idle timeout 10m
listen on 127.0.0.1 port $GW

workload "hog" {
	host "hog.test"
	command "/bin/sh $T/bin/oom.sh"
	port $P
	memory 64M
}
CONF

get() {		# get PATH: the status
	curl -sS -m 30 -o /dev/null -w '%{http_code}' -H "Host: hog.test" \
	    "http://127.0.0.1:$GW$1"
}
starts() { wc -l <"$T/run/starts" 2>/dev/null | tr -d ' '; }
state() {
	"$ORCHCTL" -s "$SOCK" show workloads | awk '$1 == "hog" { print $2 }'
}
not_running() { [ "$(state)" != running ]; }

start_orchd_or_exit
check "hog wakes" [ "$(get /)" = 200 ]
grep -q 'cgroup' "$T/orchd.log" && grep -i cgroup "$T/orchd.log" |
    sed 's/^/#	/'

# requests in flight, each on a connection of its own: 8 s answers
i=1
while [ $i -le $INFLIGHT ]; do
	{ get '/slow?8000'; echo; } >"$T/inflight.$i" 2>/dev/null &
	eval "C$i=\$!"
	i=$((i + 1))
done
sleep 1
t0=$(now_ms)
: >"$T/run/go"
check "the kernel kills it for memory" wait_for 15 not_running
echo "# figure: oomkill_death_ms $(($(now_ms) - t0)) ms"
rm -f "$T/run/go"
i=1
while [ $i -le $INFLIGHT ]; do
	eval "wait \$C$i"
	i=$((i + 1))
done
got=$(cat "$T"/inflight.* | tr '\n' ' ')
n502=$(cat "$T"/inflight.* | grep -c '^502$')
echo "# figure: oomkill_inflight_502 $n502 of $INFLIGHT"
check "each of the $INFLIGHT requests in flight got 502 ($got)" \
    [ "$n502" -eq "$INFLIGHT" ]
"$ORCHCTL" -s "$SOCK" show workload hog >"$T/show"
sed -n '/^TIME/,$p' "$T/show" | sed 's/^/#	/'
check "its history says oom" grep -q ' oom' "$T/show"
check "it is failed" [ "$(state)" = failed ]

t0=$(now_ms)
check "the next request wakes it again and is served" [ "$(get /)" = 200 ]
echo "# figure: oomkill_rewake_ms $(($(now_ms) - t0)) ms"
check "on its second start ($(starts))" [ "$(starts)" -eq 2 ]
check "it runs" [ "$(state)" = running ]
check "orchd still runs" alive "$ORCHD_PID"

stop_orchd
check "orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]
e2e_done
