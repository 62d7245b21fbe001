#!/bin/sh
# SIGKILL of orchd's whole process group while hundreds of API writes
# are in flight: ten clients at once create workloads, change each
# (PATCH of its env) and delete every third, each client keeping a
# journal of what it tried and of what was answered 2xx.  Once 300
# writes are acknowledged, kill -KILL to the group.  After a restart:
# PRAGMA integrity_check says ok; every acknowledged write is there (a
# created workload with every field it was given, its last acknowledged
# env, a deleted one gone), the one write each client had in flight
# there or not, but whole; no workload listed that nobody asked for, and
# none missing a field.  Figures: the writes acknowledged and in flight,
# the write rate, the restart's time.  Loopback only, every wait bounded.
. "$(dirname "$0")/../e2e/lib.sh"
e2e_init "$1"
need_root
ensure_user
command -v setsid >/dev/null 2>&1 || skip "no setsid (util-linux)"
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
[ -n "$PY" ] || skip "needs python3 (the journals' check)"

port_base 19
ports GW API
KEY=faults-key-$$-0123456789abcdef
DB=$T/db/orchd.db
CLIENTS=10
NAMES=20	# a client's workloads: 200 in all, within the 256 uids

kw_cleanup() {
	touch "$T/stop"
	if [ -n "$ORCHD_PID" ] && kill -0 "$ORCHD_PID" 2>/dev/null; then
		kill -TERM "$ORCHD_PID" 2>/dev/null
		wait_gone "$ORCHD_PID" 10
	fi
	e2e_cleanup
}
trap kw_cleanup EXIT

mkdir -p "$T/log"
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api host "api.test"
api key file "$T/api.key"
api allow process
CONF
URL=http://127.0.0.1:$API

# apic METHOD PATH [BODY]: the status alone
apic() {
	curl -s -m 30 -o /dev/null -w '%{http_code}' -X "$1" \
	    -H "Authorization: Bearer $KEY" ${3:+--data-binary "$3"} \
	    "$URL$2"
}

# client K: its workloads made, changed and deleted in turn; its journal
# $T/j.K has "try OP NAME ARG" before each write and "ack OP NAME ARG"
# after a 2xx; it stops at the first other answer
client() {
	j=$T/j.$1
	i=1
	while [ $i -le $NAMES ] && [ ! -e "$T/stop" ]; do
		n=k$1x$i
		port=$((40000 + $1 * 100 + i))
		for op in create patch delete; do
			[ "$op" != delete ] || [ $((i % 3)) -eq 0 ] || continue
			echo "try $op $n $port" >>"$j"
			case $op in
			create)
				c=$(apic POST /v1/workloads "$(printf \
				    '{"name": "%s", "hosts": ["%s.test"], "command": "/bin/true %s", "port": %s, "idle_timeout": "10m"}' \
				    "$n" "$n" "$n" "$port")") ;;
			patch)
				c=$(apic PATCH "/v1/workloads/$n" \
				    "{\"env\": [\"V=$i\", \"N=$n\"]}") ;;
			delete)
				c=$(apic DELETE "/v1/workloads/$n") ;;
			esac
			case $c in
			2??)	echo "ack $op $n $port" >>"$j" ;;
			*)	echo "answer $c" >>"$j"; return 0 ;;
			esac
		done
		i=$((i + 1))
	done
}
acked() { cat "$T"/j.* 2>/dev/null | grep -c '^ack '; }
acked_over() { [ "$(acked)" -ge "$1" ]; }

# orchd in a process group of its own, the test's shell outside it
: >"$T/orchd.log"
setsid "$ORCHD" -d -f "$T/orchd.conf" >>"$T/orchd.log" 2>&1 &
ORCHD_PID=$!
if ! wait_for 20 "$ORCHCTL" -s "$SOCK" show summary; then
	fail "orchd starts"
	tail -n 20 "$T/orchd.log"
	e2e_done
	exit 1
fi
ok "orchd starts"
check "in a process group of its own" \
    [ "$(ps -o pgid= -p "$ORCHD_PID" | tr -d ' ')" = "$ORCHD_PID" ]

t0=$(now_ms)
k=1
while [ $k -le $CLIENTS ]; do
	client $k &
	k=$((k + 1))
done
check "300 writes acknowledged (within 120 s)" wait_for 120 acked_over 300
ms=$(($(now_ms) - t0))
group=$(tree "$ORCHD_PID")
kill -KILL "-$ORCHD_PID"
n=$(acked)
figure writes_acked "$n" writes
figure write_rate $((n * 1000 / (ms + 1))) writes/s
# shellcheck disable=SC2086
check "the whole group is gone" wait_for 15 all_dead $group
orchd_status
check "killed by SIGKILL (status $STATUS)" [ "$STATUS" -eq 137 ]
touch "$T/stop"
wait
inflight=$(cat "$T"/j.* | awk '$1 == "try" { t++ } $1 == "ack" { a++ }
    END { print t - a }')
figure writes_in_flight "$inflight" writes
figure writes_refused "$(cat "$T"/j.* | grep -c '^answer [^0]')" writes

rm -f "$T/stop"
t0=$(now_ms)
start_orchd_or_exit
figure restart_ms $(($(now_ms) - t0)) ms
check "PRAGMA integrity_check says ok" \
    [ "$(db_sql "$DB" 'PRAGMA integrity_check')" = ok ]
curl -s -m 30 -H "Authorization: Bearer $KEY" "$URL/v1/workloads" \
    >"$T/list.json"

# the journals against the list: what each name must be, or may be
cat "$T"/j.* >"$T/journal"
"$PY" - "$T/journal" "$T/list.json" >"$T/verdict" 2>&1 <<'EOF'
import json, sys
# per name, its ops in order: (try|ack, op, port)
ops = {}
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] in ("try", "ack"):
        ops.setdefault(f[2], []).append((f[0], f[1], int(f[3])))
listed = {w["name"]: w for w in json.load(open(sys.argv[2]))["workloads"]}
bad = []
def outcome(op, name, port):
    """what the workload is after op: None (absent) or its env"""
    if op == "delete":
        return None
    if op == "create":
        return []
    i = name.split("x")[1]
    return ["V=" + i, "N=" + name]
def whole(w, name, port):
    want = {"hosts": [name + ".test"], "command": "/bin/true " + name,
        "port": port, "idle_timeout": 600, "source": "api"}
    return [k for k, v in want.items() if w.get(k) != v]
for name, seq in ops.items():
    acks = [o for o in seq if o[0] == "ack"]
    last_try = seq[-1] if seq[-1][0] == "try" else None
    may = []
    if acks:
        may.append(outcome(acks[-1][1], name, acks[-1][2]))
    else:
        may.append(None)
    if last_try:
        may.append(outcome(last_try[1], name, last_try[2]))
    port = seq[0][2]
    w = listed.pop(name, None)
    got = None if w is None else w.get("env", [])
    if got not in may:
        bad.append("%s: %s, want one of %s" % (name, got, may))
    elif w is not None and whole(w, name, port):
        bad.append("%s: half-made, fields %s" % (name, whole(w, name, port)))
for name in listed:
    bad.append("%s: listed, never asked for" % name)
print("names %d" % len(ops))
for b in bad:
    print("bad " + b)
EOF
names=$(sed -n 's/^names //p' "$T/verdict")
figure workloads_written "${names:-0}" workloads
check "every acknowledged write there, whole ($(grep -c '^bad ' \
    "$T/verdict") wrong)" sh -c "[ -n '$names' ] && ! grep -q '^bad ' \
    '$T/verdict'"
grep -v '^names ' "$T/verdict" | head -n 20 | sed 's/^/# /'
check "nothing half-made in the database: every row has its counters" \
    [ "$(db_sql "$DB" "SELECT count(*) FROM workloads w WHERE NOT \
    EXISTS (SELECT 1 FROM counters c WHERE c.workload = w.name)")" = 0 ]
check "the restarted orchd takes writes" \
    [ "$(apic PATCH /v1/workloads/k1x1 '{"env": ["AFTER=1"]}')" = 200 ]
stop_orchd
check "orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]
ORCHD_PID=
e2e_done
