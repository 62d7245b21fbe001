#!/bin/sh
# An HTTP/2 rapid reset (CVE-2023-44487: streams opened and cancelled at
# once, regress/e2e/h2attack.py) beside normal HTTP/2 traffic on the
# same listener: the normal clients' p99 latency stays within twice the
# p99 measured without the attack.
#
# The normal traffic is h2load at a fixed rate (2 clients, 100 requests
# a second each, N requests a round), so that its latency is the
# gateway's answer time and not a queue of its own; the p99 is taken
# from h2load's per-request log.  The workload is busybox httpd, a
# connection per request: testhttp answers a reused connection in two
# writes, which Nagle's algorithm and the peer's delayed ACK hold some
# 40 ms, and that would be all the p99 measured.  The attack is
# h2attack.py rapid-reset-loop: a connection every 10 ms, each 20,000
# streams opened and reset (encoded once, so that the attacker's CPU is
# little more than its sending) until the gateway says GOAWAY after 200
# and closes, some 20,000 resets a second; each connection is asserted
# to have got its GOAWAY.  A rate, not as fast as the gateway takes
# them: back to back, the attack held the gateway at 60-100% of its
# CPU, and on a machine shared with other jobs the p99 then measured
# how much of the CPU the gateway got (under the sanitizers, 10 of 12
# runs of this script's drafts at 0.48-1.97x, and 3.35x and 4.78x when
# the other jobs were heaviest).
# Before the rounds, three single rapid resets check that an attacker's
# connection is closed without the rest of its attack being read (no
# lingering close).
#
# What is measured is the gateway's fairness between its clients, not
# the attacker's CPU nor the machine's other jobs.  In reality the
# clients are other machines; here the attacker is a Python process,
# and on a 2-core machine a Python process that only spins, sending
# nothing, raised the p99 1.5-1.7x.  So the clients (the attacker at
# nice 19, and h2load) have a CPU of their own (taskset), and orchd and
# its workload the other, in every round, attacked or not: the unloaded
# baseline is measured under the same pinning.  All but the attacker
# run ten steps of priority above the machine's other jobs (a compiler,
# another test's benchmark), which are neither client nor server.  On a
# single CPU nothing can be kept apart: the ratio is printed, not
# asserted.
#
# A p99 of one round is the 8th worst of 800 answers, and a burst of
# another job on the machine still moves it more than the attack does
# (rounds of 50 ms to 1 s were seen beside rounds of 5-10 ms).  So the
# rounds come in ROUNDS pairs, an unloaded and an attacked round in an
# order of chance, and what is asserted is the median of the pairs'
# ratios: a burst that spans a pair leaves its ratio near 1, one that
# falls on one round makes an outlier either way, which the median
# passes over.  The ratio of the two kinds' median p99s is printed too.
#
# Figures, 2 cores shared with 4 other jobs (load 2-8).  The script as
# it was (one round of each kind, single rapid resets one after the
# other at nice 19, nothing pinned): 1.45-6.21x under the sanitizers,
# 4.30-12.44x built plain, while the gateway's own work for the attack
# was some 3 ms of CPU a connection.  This one: 1.10, 1.05, 1.58, 1.34
# and 0.87x in 5 runs under the sanitizers, 0.72x built plain, the
# gateway spending 0.25 ms of CPU (plain) on an attacking connection.
# Today's main before the rapid reset's costs were cut (lingering close,
# streams started before their reset was read): 0.86x, 0.59 ms, and the
# single rapid resets read to the end (fails).  The gateway of before
# the fairness fix (all of a connection's input in one turn, a burst of
# 1000): 4.93x (fails).
#
#	sh regress/faults/h2reset.sh build/check
. "$(dirname "$0")/../e2e/lib.sh"
e2e_init "$1"
need_root
ensure_user
command -v h2load >/dev/null 2>&1 ||
    skip "no h2load (nghttp2-client, tools/deps.sh test)"
/usr/bin/python3 -c 'import hpack' 2>/dev/null ||
    skip "no python3-hpack (python3-h2, tools/deps.sh test)"

ATTACK="/usr/bin/python3 $(dirname "$0")/../e2e/h2attack.py"
N=800		# requests of the normal traffic, each round
ROUNDS=7	# pairs of rounds, unloaded and attacked

# The first two CPUs this script may use: the clients' (the attacker,
# h2load), and the server's (orchd, the workload), which this shell
# takes now so that all it starts inherits it.  One CPU: no pinning.
cpus=$(awk '$1 == "Cpus_allowed_list:" {
	n = split($2, r, ",")
	for (i = 1; i <= n && k < 2; i++) {
		if (split(r[i], b, "-") == 1)
			b[2] = b[1]
		for (c = b[1]; c <= b[2] && k < 2; c++)
			v[++k] = c
	}
	if (k == 2)
		print v[1], v[2]
}' /proc/self/status)
PIN=
if [ -n "$cpus" ]; then
	set -- $cpus
	PIN="taskset -c $1"
	taskset -p -c "$2" $$ >/dev/null ||
	    fail "the server's CPU ($2) taken by the script"
	echo "# the attacker and h2load on CPU $1, orchd and the workload on $2"
fi
# Ten steps of priority above the machine's other jobs, for all this
# shell starts (a container may not allow it); the attacker is 19 below
# that again.
/usr/bin/python3 -c 'import os, sys
p = int(sys.argv[1])
os.setpriority(os.PRIO_PROCESS, p,
    max(-20, os.getpriority(os.PRIO_PROCESS, p) - 10))' $$ 2>/dev/null ||
    echo "# the script's priority could not be raised"

port_base 41
ports PK P
mkdir -p "$T/log"
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
idle timeout 10m
listen on 127.0.0.1 port $PK http2 prior knowledge

workload "a" {
	host "a.test"
	command "/bin/busybox httpd -f -p 127.0.0.1:$P -h $T/www"
	port $P
}
CONF
mkdir -p "$T/www"
echo "hello from busybox" >"$T/www/index.html"
chmod -R a+rX "$T/www"

# normal LABEL: h2load's run, its log in $T/LABEL.log
normal() {
	timeout 60 $PIN h2load -n $N -c 2 -m 1 --rps 100 \
	    --log-file="$T/$1.log" "http://a.test:$PK/" \
	    --connect-to=127.0.0.1:$PK >"$T/$1.out" 2>&1
}
# p99 LABEL: the 99th percentile of its latencies, in microseconds
p99() {
	cut -f 3 "$T/$1.log" 2>/dev/null | sort -n | awk '{ v[NR] = $1 }
	    END { i = int(NR * 0.99); if (i < 1) i = 1; print v[i] + 0 }'
}
ok2xx() {	# ok2xx LABEL: all N answered 2xx
	grep -q "$N total, .*$N succeeded" "$T/$1.out" &&
	    grep -q "status codes: $N 2xx" "$T/$1.out"
}
median() {	# median NUMBER...
	printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 }
	    END { print v[int((NR + 1) / 2)] + 0 }'
}
cpu() {		# cpu PID: its user and system time so far, in ticks
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}

start_orchd_or_exit
check "a wakes over HTTP/2" sh -c "curl -sS -m 20 --http2-prior-knowledge \
    -H 'Host: a.test' http://127.0.0.1:$PK/ | grep -q 'hello from busybox'"
gw=$(child gateway)

# An attacker's connection is closed once its GOAWAY is written, the rest
# of what it sends unread (no lingering close for it): h2attack.py
# rapid-reset, which encodes its 20,000 streams as it sends them, is cut
# short, where a lingering close would read all of them.  Three tries,
# one of which must be cut: a gateway held up elsewhere could let the
# kernel's buffers take a whole attack.
for i in 1 2 3; do
	timeout 60 $PIN nice -n 19 $ATTACK rapid-reset $PK a.test \
	    >>"$T/single" 2>&1
done
sed 's/^/#	/' "$T/single"
check "a rapid reset gets GOAWAY, each of 3" \
    [ "$(grep -c 'goaway=1 closed=1' "$T/single")" -eq 3 ]
cut=$(awk -F'[ =]' '$1 == "rapid-reset" && $3 < 20000' "$T/single" |
    wc -l)
check "a rapid reset is closed before all of its attack is read" \
    [ "$cut" -ge 1 ]

# attacker ROUND: rapid resets back to back until $T/stop.ROUND, at
# most 100 runs of 2 seconds
attacker() {
	n=0
	while [ ! -e "$T/stop.$1" ] && [ $n -lt 100 ]; do
		timeout 60 $PIN nice -n 19 $ATTACK rapid-reset-loop $PK \
		    a.test >>"$T/attack.$1" 2>&1
		n=$((n + 1))
	done
}

# round KIND I: one round of the normal traffic, beside the attack when
# KIND is attacked; its p99 added to $KIND_p99, the gateway's CPU to
# $KIND_cpu
calm_p99= attacked_p99= calm_cpu=0 attacked_cpu=0 all2xx=1
round() {
	c0=$(cpu "$gw")
	if [ "$1" = attacked ]; then
		attacker "$2" &
		A1=$!
		sleep 1
	fi
	normal "$1.$2"
	if [ "$1" = attacked ]; then
		: >"$T/stop.$2"
		wait $A1
	fi
	used=$(($(cpu "$gw") - c0))
	ok2xx "$1.$2" || {
		all2xx=0
		sed 's/^/#	/' "$T/$1.$2.out"
	}
	v=$(p99 "$1.$2")
	echo "# figure: h2reset_p99_${1}_$2 $v us"
	eval "${1}_p99=\"\$${1}_p99 $v\" ${1}_cpu=\$((${1}_cpu + used))"
}
# each pair in an order of chance, so that another job's period on the
# machine does not fall on the rounds of one kind
i=1
while [ $i -le $ROUNDS ]; do
	if [ $(($(od -An -N1 -tu1 /dev/urandom) % 2)) -eq 0 ]; then
		round calm $i
		round attacked $i
	else
		round attacked $i
		round calm $i
	fi
	i=$((i + 1))
done
check "$((2 * ROUNDS)) rounds of $N requests, all 2xx" [ $all2xx -eq 1 ]
cat "$T"/attack.* >"$T/attack" 2>/dev/null
# "rapid-reset-loop connections=N goaway=G" each run
runs=$(awk -F'[ =]' '$1 == "rapid-reset-loop" { s += $3 }
    END { print s + 0 }' "$T/attack")
goaways=$(awk -F'[ =]' '$1 == "rapid-reset-loop" { s += $5 }
    END { print s + 0 }' "$T/attack")
echo "# figure: h2reset_attack_connections $runs connections"
echo "# figure: h2reset_gateway_cpu_unloaded $calm_cpu ticks"
echo "# figure: h2reset_gateway_cpu_attacked $attacked_cpu ticks"
# the gateway's CPU beyond the unloaded rounds', per attacking connection
echo "# figure: h2reset_gateway_cpu_per_attack $(awk -v a="$attacked_cpu" \
    -v c="$calm_cpu" -v n="$runs" -v hz="$(getconf CLK_TCK)" \
    'BEGIN { if (n > 0) printf "%.1f", (a - c) * 1000 / hz / n }') ms"
check "the attack ran beside each round ($runs connections)" \
    [ "$runs" -ge $((10 * ROUNDS)) ]
check "each attacking connection got GOAWAY ($goaways of $runs)" \
    [ "$goaways" -eq "$runs" ]
grep -v '^rapid-reset-loop' "$T/attack" | head -n 5 | sed 's/^/#	/'
calm=$(median $calm_p99)
hot=$(median $attacked_p99)
echo "# figure: h2reset_p99_unloaded $calm us"
echo "# figure: h2reset_p99_attacked $hot us"
echo "# figure: h2reset_p99_ratio_of_medians $(awk -v h="$hot" -v c="$calm" \
    'BEGIN { if (c > 0) printf "%.2f", h / c; else print "-" }')"
# The p99 beside the attack over the p99 without it, pair by pair, and
# their median: a burst of other work that spans a pair leaves its ratio
# near 1, one that falls on a single round makes it an outlier either
# way, which the median passes over.
ratio=$(printf '%s\n' $attacked_p99 | awk -v c="$calm_p99" '
	BEGIN { split(c, u, " ") }
	{ r[NR] = u[NR] > 0 ? $1 / u[NR] : 1000 }
	END {
		n = NR
		for (i = 1; i <= n; i++)
			for (j = i + 1; j <= n; j++)
				if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t }
		printf "%.2f", r[int((n + 1) / 2)]
	}')
echo "# figure: h2reset_p99_ratio $ratio"
if [ -n "$PIN" ]; then
	d="p99 beside the attack within 2x of without (median pair ${ratio}x)"
	check "$d" awk -v r="$ratio" 'BEGIN { exit !(r > 0 && r <= 2) }'
else
	echo "# one CPU: the attacker's own CPU is the gateway's, the ratio" \
	    "is not asserted"
fi
check "the gateway still runs" alive "$gw"

stop_orchd
check "orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]
e2e_done
