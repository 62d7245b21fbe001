#!/bin/sh
# Attacks by a job ("run once"), replayed against a live orchd, each
# failing if it works:
#  - a job that never exits: its "run timeout" (2s) fails the wake, the
#    dependent's request answered 503 naming the job within seconds, not
#    held for ever, and the job's process killed;
#  - a job that forks a child into a session of its own (setsid) and
#    exits 0: the child is killed with it (the cgroup), nothing of the
#    job outlives its run, and the dependent starts;
#  - the same, exiting 1: 503, and no child left;
#  - a job whose output is endless and fast, killed at its timeout,
#    orchd alive and its log tail readable.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports GW P_A P_B P_C P_D
mkdir -p "$T/log"
testhttp_bin
MARK=h34jobattack$$
mkdir -p "$T/run"
chmod 0777 "$T/run"
# the mark in their argv, where pgrep -f sees it
cat >"$T/bin/forever.sh" <<EOF
#!/bin/sh
exec sh -c 'sleep 300; : $MARK-forever'
EOF
cat >"$T/bin/forker.sh" <<EOF
#!/bin/sh
setsid sh -c "sleep 300; : $MARK-child-\$1" </dev/null >/dev/null 2>&1 &
echo \$! >"$T/run/child-\$1"
sleep 0.5
exit \$2
EOF
cat >"$T/bin/noisy.sh" <<EOF
#!/bin/sh
while :; do echo "$MARK noise noise noise noise noise"; done
EOF
chmod 0755 "$T/bin/"*.sh
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
listen on 127.0.0.1 port $GW
wake timeout 30s
workload "forever" {
	command "$T/bin/forever.sh"
	run once
	run timeout 2s
}
workload "a" {
	host "a.test"
	depends on "forever"
	command "$T/bin/testhttp serve $P_A"
	port $P_A
}
workload "forker" {
	command "$T/bin/forker.sh ok 0"
	run once
}
workload "b" {
	host "b.test"
	depends on "forker"
	command "$T/bin/testhttp serve $P_B"
	port $P_B
}
workload "forkbad" {
	command "$T/bin/forker.sh bad 1"
	run once
}
workload "c" {
	host "c.test"
	depends on "forkbad"
	command "$T/bin/testhttp serve $P_C"
	port $P_C
}
workload "noisy" {
	command "$T/bin/noisy.sh"
	run once
	run timeout 2s
}
workload "d" {
	host "d.test"
	depends on "noisy"
	command "$T/bin/testhttp serve $P_D"
	port $P_D
}
CONF
start_orchd_or_exit

get() { curl -s -m 40 -o "$T/body" -w '%{http_code}' -H "Host: $1" \
    "http://127.0.0.1:$GW/"; }
procs() { pgrep -f "$1" | wc -l | tr -d ' '; }
none_left() { [ "$(procs "$1")" -eq 0 ]; }

t0=$(date +%s)
get a.test >"$T/a.code" &
sleep 1
check "the job that never exits runs ($(procs "$MARK-forever"))" \
    [ "$(procs "$MARK-forever")" -ge 1 ]
wait $!
c=$(cat "$T/a.code")
t=$(($(date +%s) - t0))
check "a job that never exits: 503 in ${t}s ($c): $(head -c 160 "$T/body")" \
    sh -c "[ $c = 503 ] && [ $t -lt 15 ] &&
    grep -q forever $T/body && grep -q 'still running after 2s' $T/body"
check "and its process is gone" wait_for 10 none_left "$MARK-forever"

c=$(get b.test)
check "a job that leaves a child and exits 0: the dependent starts ($c)" \
    [ "$c" = 200 ]
check "the job left a child ($(cat "$T/run/child-ok" 2>/dev/null))" \
    sh -c "[ -s $T/run/child-ok ]" && check "... killed with the job" \
    wait_for 10 none_left "$MARK-child-ok"

c=$(get c.test)
check "a job that leaves a child and exits 1: 503 ($c)" \
    sh -c "[ $c = 503 ] && grep -q 'exited with status 1' $T/body"
check "the job left a child ($(cat "$T/run/child-bad" 2>/dev/null))" \
    sh -c "[ -s $T/run/child-bad ]" && check "... killed with the job" \
    wait_for 10 none_left "$MARK-child-bad"

c=$(get d.test)
check "an endless talker: 503 at its timeout ($c)" [ "$c" = 503 ]
check "its log tail is readable" sh -c \
    "$ORCHCTL -s $SOCK logs noisy -n 5 | grep -q '$MARK noise'"
check "orchd runs" kill -0 "$ORCHD_PID"
check "nothing of the jobs is left: $(procs "$MARK")" \
    wait_for 10 none_left "$MARK"
stop_orchd
e2e_done
