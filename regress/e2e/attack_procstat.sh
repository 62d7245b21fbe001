#!/bin/sh
# A compromised child naming itself to pose as its CPU time or memory
# (orchd-security(7)): for process_cpu_seconds_total and
# process_resident_memory_bytes the parent reads each child's
# /proc/PID/stat, whose second field is the name the process gave
# itself.  acmed here is a script, as a compromised one would be: it
# says it is ready, then names itself "x) R 9 9 9 9 9" (14 bytes of the
# 15 a name holds), the fields a parse that stops at the first ')'
# would take for the kernel's, and holds 64 MiB.  /metrics must give
# its true numbers, those after the last ')', and orchd go on.
#
#	sh regress/e2e/attack_procstat.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
[ -n "$PY" ] || skip "no python3"

ports GW API
KEY=e2e-key-$$-0123456789abcdef
mkdir -p "$T/log" "$T/fake"
chmod 0755 "$T/fake"
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"

acme {
	directory "https://127.0.0.1:1/directory"
	contact "mailto:ops@procstat.test"
}
CONF

for p in orchd confd spawnerd stored gatewayd reaperd runtimed; do
	cp "$BUILD/$p" "$T/fake/$p"
done
VERSION=$(sed -n 's/^#define ORCHD_IMSG_VERSION[[:space:]]*//p' \
    "$(dirname "$0")/../../common/msg.h")
cat >"$T/fake/acmed" <<FAKE
#!$PY
import os, struct, time
os.write(3, struct.pack("=IIHHII", 201, 24, 0, 0, 0, os.getpid()) +
    struct.pack("=I", $VERSION))		# IMSG_PROC_READY
hold = bytearray(64 << 20)
for i in range(0, len(hold), 4096):
    hold[i] = 1
with open("/proc/self/comm", "w") as f:
    f.write("x) R 9 9 9 9 9")
open("$T/fake.pid", "w").write(str(os.getpid()))
time.sleep(120)
FAKE
chmod 0755 "$T/fake/acmed"
"$T/fake/orchd" -d -f "$T/orchd.conf" >>"$T/orchd.log" 2>&1 &
ORCHD_PID=$!
check "the fake acmed named itself" wait_for 20 test -s "$T/fake.pid"
pid=$(cat "$T/fake.pid" 2>/dev/null)
check "... as a parse up to the first ')' would misread ($(cat \
    "/proc/$pid/comm" 2>/dev/null))" \
    grep -q '^x) R 9 9 9 9 9$' "/proc/$pid/comm"
metrics() {
	curl -sS -m 30 -H "Authorization: Bearer $KEY" -o "$T/metrics" \
	    "http://127.0.0.1:$API/metrics" &&
	    grep -q '^process_resident_memory_bytes{process="acme"}' \
	    "$T/metrics"
}
check "/metrics has acme's numbers" wait_for 20 metrics
val() { awk -v m="$1" 'index($0, m " ") == 1 { print $2 }' "$T/metrics"; }
r=$(val 'process_resident_memory_bytes{process="acme"}')
u=$(val 'process_cpu_seconds_total{process="acme"}')
kb=$(rss_kb "$pid")
# the truth: the fields after the last ')'
ticks=$(sed 's/.*) //' "/proc/$pid/stat" | awk '{ print $12 + $13 }')
hz=$(getconf CLK_TCK)
check "its memory is its VmRSS, 64 MiB and more (${r:-none}, ${kb:-none} kB)" \
    awk -v v="$r" -v k="$kb" 'BEGIN { d = v - k * 1024; if (d < 0) d = -d;
    exit !(k != "" && v >= 67108864 && d <= 4194304) }'
check "its CPU time is its own, ${ticks:-none} ticks (${u:-none} s)" \
    awk -v v="$u" -v t="$ticks" -v hz="$hz" \
    'BEGIN { exit !(v != "" && t != "" && v >= t / hz - 1 && v <= t / hz + 1) }'
check "orchd goes on" alive "$ORCHD_PID"
c=$(curl -s -m 10 -o /dev/null -w '%{http_code}' \
    "http://127.0.0.1:$API/healthz")
check "... and answers ($c)" [ "$c" = 200 ]
stop_orchd
e2e_done
