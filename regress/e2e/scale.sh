#!/bin/sh
# Correctness at 20,000 workloads (issue 38), not speed: 20,000 process
# workloads, asleep (busybox httpd on 127.0.K.1, K the ten-thousand it
# is in, a port each); the first, the last and 150 hosts spread across
# the range each answer 200 through the gateway, and each wakes its own
# workload and no other; the API's pages list all 20,000 once; a reload
# that changes one sleeping workload (its idle timeout) leaves every
# other workload's state, start and last-seen time as they were, and the
# woken ones still answer (times to the second, give or take one: the
# API turns the gateway's monotonic clock into seconds of the wall
# clock as it answers); the spawner, which forks them, holds no
# per-workload state (its private memory, before it spawned anything,
# within 256 KiB of an orchd's with one workload, the same build: a
# sanitizer's adds megabytes, and keeps what each spawn freed).  Bounded: about 2
# minutes on a quiet machine (E2E_SCALE_N sets the count).
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
[ -x /bin/busybox ] || skip "no /bin/busybox"

NW=${E2E_SCALE_N:-20000}
# the one the reload changes: asleep, not in the sample
CH=7777
[ "$NW" -gt 7777 ] || CH=$((NW / 2 + 1))
CHN=$(printf 'sc%05d' "$CH")
ports GW API GW1
# the workloads' ports: 10001-20000 on 127.0.1.1, 127.0.2.1, ..., where
# no other test listens, below ports' range and the ephemeral one
WP0=10000
KEY=e2e-key-$$-scale-0123456789
mkdir -p "$T/log" "$T/www"
echo "scale" >"$T/www/index.html"
chmod 0755 "$T/www"
chmod 0644 "$T/www/index.html"
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
write_conf() {	# write_conf IDLE-OF-CHN
	{
		conf_head
		cat <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
wake timeout 30s
CONF
		awk -v n="$NW" -v p0="$WP0" -v www="$T/www" -v x="$1" \
		    -v ch="$CH" 'BEGIN {
			for (i = 1; i <= n; i++) {
				a = "127.0." (1 + int((i - 1) / 10000)) ".1"
				p = p0 + 1 + (i - 1) % 10000
				printf "workload \"sc%05d\" {\n\thost \"sc%d.test\"\n" \
				    "\tcommand \"/bin/busybox httpd -f -p %s:%d " \
				    "-h %s\"\n\taddress \"%s\"\n\tport %d\n" \
				    "\tidle timeout %s\n}\n", i, i, a, p, www, a,
				    p, i == ch ? x : "10m"
			}
		}'
	} >"$T/orchd.conf"
}
# spawner_uss PID: the private memory of orchd PID's spawner, KiB
spawner_uss() {
	for c in $(pgrep -P "$1"); do
		tr '\0' ' ' <"/proc/$c/cmdline" 2>/dev/null |
		    grep -q '^orchd: spawner' || continue
		awk '/^Private_(Clean|Dirty):/ {s += $2} END {print s + 0}' \
		    "/proc/$c/smaps_rollup" 2>/dev/null
		return 0
	done
	echo 99999
}
# the spawner's memory with one workload, the same build (a sanitizer's
# adds megabytes): another instance of its own, stopped at once
mkdir -p "$T/one/log"
{
	cat <<CONF
user "_orchd"
chroot "/var/empty"
database "$T/one/db/orchd.db"
socket "$T/one/orchd.sock"
log directory "$T/one/log"
listen on 127.0.0.1 port $GW1
CONF
	conf_instance "$E2E_INSTANCE-one" "$E2E_UID_LOW2"
	printf 'workload "one" {\n\thost "one.test"\n'
	printf '\tcommand "/bin/busybox httpd -f -p 127.0.3.1:%d -h %s"\n' \
	    $((WP0 + 1)) "$T/www"
	printf '\taddress "127.0.3.1"\n\tport %d\n}\n' $((WP0 + 1))
} >"$T/one/orchd.conf"
"$ORCHD" -d -f "$T/one/orchd.conf" >>"$T/one/orchd.log" 2>&1 &
ONE_PID=$!
wait_for 60 "$ORCHCTL" -s "$T/one/orchd.sock" show summary
sleep 1
USS1=$(spawner_uss "$ONE_PID")
kill -TERM "$ONE_PID"
wait_gone "$ONE_PID" 15 || kill -KILL "$ONE_PID"
wait "$ONE_PID" 2>/dev/null

write_conf 10m
t0=$(date +%s)
"$ORCHD" -d -f "$T/orchd.conf" >>"$T/orchd.log" 2>&1 &
ORCHD_PID=$!
if wait_for 120 "$ORCHCTL" -s "$SOCK" show summary; then
	ok "orchd starts with $NW workloads ($(($(date +%s) - t0)) s)"
else
	fail "orchd starts with $NW workloads"
	tail -n 5 "$T/orchd.log"
	e2e_done
	exit 1
fi
URL=http://127.0.0.1:$API
# before any spawn: what it frees for one stays with a sanitizer
sleep 1
USSN=$(spawner_uss "$ORCHD_PID")
check "the spawner holds no per-workload state: $USSN KiB private, $USS1 with one workload" \
    [ "$USSN" -lt $((USS1 + 256)) ]

# snapshot FILE: every workload, through the pages, as JSON lines
snapshot() {
	python3 - "$URL" "$KEY" "$1" <<'EOF'
import json, sys, urllib.request
url, key, out = sys.argv[1], sys.argv[2], sys.argv[3]
after, n, rows = "", 0, {}
while n < 100:
	q = url + "/v1/workloads?limit=10000" + ("&after=" + after if after else "")
	r = urllib.request.Request(q, headers={"Authorization": "Bearer " + key})
	o = json.load(urllib.request.urlopen(r, timeout=60))
	for w in o["workloads"]:
		if w["name"] in rows:
			sys.exit("listed twice: " + w["name"])
		rows[w["name"]] = {k: w.get(k) for k in ("state", "last_seen",
		    "started_at", "wakes", "idle_timeout")}
	after, n = o["next"], n + 1
	if not after:
		break
json.dump(rows, open(out, "w"))
EOF
}
# the sample: first, last, and 150 spread across, as numbers
awk -v n="$NW" 'BEGIN { print 1; print n;
    for (i = 1; i <= 150; i++) print 1 + int(i * (n - 2) / 151) }' |
    sort -nu >"$T/sample"
# hit N: a 200 through the gateway for host scN.test
hit() {
	[ "$(curl -s -m 40 -o /dev/null -w '%{http_code}' \
	    -H "Host: sc$1.test" "http://127.0.0.1:$GW/")" = 200 ] ||
	    echo "$1" >>"$T/missed"
}
: >"$T/missed"
t1=$(date +%s)
# four at a time, each bounded by curl's own timeout; waited for by pid
# (a bare wait would wait for orchd too)
k=0
hits=
for n in $(cat "$T/sample"); do
	hit "$n" &
	hits="$hits $!"
	k=$((k + 1))
	[ $((k % 4)) = 0 ] || continue
	wait $hits
	hits=
done
[ -z "$hits" ] || wait $hits
check "$(wc -l <"$T/sample") hosts across the range answer 200 ($(($(date +%s) - t1)) s)" \
    [ ! -s "$T/missed" ]
head -n 5 "$T/missed"

check "the API's pages list every workload once" snapshot "$T/a.json"
check "... each sampled host woke its own workload and no other" \
    python3 - "$T/a.json" "$T/sample" <<'EOF'
import json, sys
rows = json.load(open(sys.argv[1]))
want = {"sc%05d" % int(l) for l in open(sys.argv[2])}
# "checking" is no wake: at a first start a wake need not wait for the
# store's first write, which ends the others' check
up = {n for n, w in rows.items() if w["state"] not in ("asleep", "checking")}
assert len(rows) == int(__import__("os").environ.get("E2E_SCALE_N", 20000)), len(rows)
assert up == want, (sorted(up - want)[:5], sorted(want - up)[:5])
EOF

# same.py BEFORE AFTER [CHANGED]: every workload but CHANGED the same;
# CHANGED's idle timeout 20m, its state the same
cat >"$T/same.py" <<'EOF'
import json, sys
from datetime import datetime
b, a = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
ch = sys.argv[3] if len(sys.argv) > 3 else None
assert set(a) == set(b), "names changed"
def t(v):
	return datetime.strptime(v, "%Y-%m-%dT%H:%M:%SZ").timestamp()
def same(x, y):
	# the gateway turns its monotonic last seen into wall clock seconds
	# as it answers (mono_to_wall): one second either way
	for k in x:
		if k in ("last_seen", "started_at") and x[k] and y[k]:
			if abs(t(x[k]) - t(y[k])) > 1:
				return False
		elif x[k] != y[k]:
			return False
	return True
bad = [n for n in b if n != ch and not same(a[n], b[n])]
assert not bad, [(n, b[n], a[n]) for n in bad[:3]]
if ch:
	assert a[ch]["idle_timeout"] == 1200, a[ch]
	assert a[ch]["state"] == b[ch]["state"]
EOF
# settled: two snapshots 2 s apart the same, at most 5 tries
settled() {
	snapshot "$T/b.json" && sleep 2 && snapshot "$T/c.json" &&
	    python3 "$T/same.py" "$T/b.json" "$T/c.json" 2>/dev/null
}
i=0
while [ $i -lt 5 ] && ! settled; do i=$((i + 1)); done
check "... the states settle" python3 "$T/same.py" "$T/b.json" "$T/c.json"

# by SIGHUP, the generation waited for: a sanitizer's build takes longer
# than orchctl waits for a reload of 20,000
generation() {
	"$ORCHCTL" -s "$SOCK" show summary 2>/dev/null |
	    awk '$1 == "parent" {print $NF}'
}
newer() { [ "$(generation)" -gt "$1" ] 2>/dev/null; }
g0=$(generation)
write_conf 20m
t2=$(date +%s%N)
kill -HUP "$ORCHD_PID"
check "a reload that changes one workload (generation ${g0:-?} and on)" \
    wait_for 150 newer "${g0:-0}"
ok "... took $((($(date +%s%N) - t2) / 1000000)) ms"
i=0
while [ $i -lt 5 ]; do
	snapshot "$T/d.json" && sleep 2 && snapshot "$T/e.json" &&
	    python3 "$T/same.py" "$T/d.json" "$T/e.json" 2>/dev/null && break
	i=$((i + 1))
done
check "... every other workload's state, start and last seen untouched" \
    python3 "$T/same.py" "$T/c.json" "$T/d.json" "$CHN"
: >"$T/missed"
for n in $(head -n 20 "$T/sample"); do hit "$n"; done
check "... and the woken ones still answer" [ ! -s "$T/missed" ]

check "orchd still runs" alive "$ORCHD_PID"
stop_orchd
check "orchd stops ($(($(date +%s) - t0)) s in all)" [ "$STATUS" = 0 ]
e2e_done
