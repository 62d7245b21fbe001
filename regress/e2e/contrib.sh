#!/bin/sh
# contrib/: the Grafana dashboard and the Prometheus alert rules against
# a live orchd.  An orchd with a certificate from pebble (so that the
# ACME metrics exist), a memory budget and a workload woken once (so
# that the wake histograms have samples) is scraped; every metric name
# in the dashboard's expressions and in the rules must be in that
# /metrics, and the checker is shown to catch a name that is not.
# promtool checks the rules, runs their unit tests (each alert fires on
# made-up series, none while all is well), parses every expression of
# the dashboard, and checks the live /metrics.  The process metrics:
# process_resident_memory_bytes and process_cpu_seconds_total for each
# of orchd's processes, as /proc says them.  Every wait bounded.
#
#	sh regress/e2e/contrib.sh build/check
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pebble.subr"
e2e_init "$1"
trap 'acme_cleanup; e2e_cleanup' EXIT
command -v promtool >/dev/null || skip "no promtool (Debian: prometheus)"
command -v python3 >/dev/null || skip "no python3"
acme_need
ports API
acme_start
SRC=$(cd "$(dirname "$0")/../.." && pwd)
RULES=$SRC/contrib/orchd-alerts.yml
DASH=$SRC/contrib/orchd-dashboard.json
KEY=e2e-key-$$-0123456789abcdef
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"

acme_conf >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
memory budget 2G
access log "$T/log/access.log"
CONF
check "orchd -n accepts the configuration" "$ORCHD" -n -f "$T/orchd.conf"
start_orchd_or_exit

# a certificate, and with it a wake of app
c=$(https app.s8acme.test)
check "an HTTPS request wakes app, with a certificate from pebble ($c)" \
    [ "$c" = 200 ]
c=$(curl -s -m 30 -o /dev/null -w '%{http_code}' \
    -H "Host: app.s8acme.test" "http://127.0.0.1:$HPORT/")
check "... and a plain one is answered ($c)" [ "$c" = 200 ]
scrape() {	# scrape FILE: a fresh /metrics
	curl -sS -m 30 -H "Authorization: Bearer $KEY" -o "$1" \
	    "http://127.0.0.1:$API/metrics"
}
has_expiry() {
	scrape "$T/metrics"
	grep -q '^orchd_acme_certificate_expiry_seconds{' "$T/metrics"
}
check "/metrics has the certificate's expiry" wait_for 10 has_expiry
val() { awk -v m="$1" 'index($0, m " ") == 1 { print $2 }' "$T/metrics"; }

# -- the process metrics: one sample per process, as orchd names them
for p in parent spawner gateway runtime reaper store acme; do
	r=$(val "process_resident_memory_bytes{process=\"$p\"}")
	u=$(val "process_cpu_seconds_total{process=\"$p\"}")
	check "process_resident_memory_bytes of $p: 100 KiB to 1 GiB (${r:-none})" \
	    awk -v v="$r" 'BEGIN { exit !(v != "" && v >= 102400 && \
	    v <= 1073741824) }'
	check "... its process_cpu_seconds_total: 0 to 600 (${u:-none})" \
	    awk -v v="$u" 'BEGIN { exit !(v != "" && v >= 0 && v < 600) }'
done
n=$(grep -c '^process_resident_memory_bytes{' "$T/metrics")
check "seven processes, no more ($n)" [ "$n" -eq 7 ]
pid=$(child gateway)
kb=$(rss_kb "$pid")
r=$(val 'process_resident_memory_bytes{process="gateway"}')
check "the gateway's is its VmRSS within 4 MiB (${r:-none}, ${kb:-none} kB)" \
    awk -v v="$r" -v k="$kb" 'BEGIN { d = v - k * 1024; if (d < 0) d = -d;
    exit !(k != "" && d <= 4194304) }'
c0=$(val 'process_cpu_seconds_total{process="gateway"}')
i=0
while [ $i -lt 300 ]; do
	curl -s -m 5 -o /dev/null -H "Host: app.s8acme.test" \
	    "http://127.0.0.1:$HPORT/" || break
	i=$((i + 1))
done
scrape "$T/metrics"
c1=$(val 'process_cpu_seconds_total{process="gateway"}')
check "the gateway's CPU time grows with 300 requests (${c0:-none} -> ${c1:-none})" \
    awk -v a="$c0" -v b="$c1" 'BEGIN { exit !(a != "" && b > a) }'
check "the parent's start time is still there, unlabelled" \
    grep -q '^process_start_time_seconds [0-9]' "$T/metrics"

# a workload's memory is measured at its stop
"$ORCHCTL" -s "$SOCK" suspend app >/dev/null 2>&1
has_memory() {
	scrape "$T/metrics"
	grep -q '^orchd_workload_memory_bytes{workload="app"}' "$T/metrics" &&
	    grep -q '^orchd_workload_memory_estimate_bytes{workload="app"}' \
	    "$T/metrics"
}
check "app suspended: its memory measured and its estimate in /metrics" \
    wait_for 15 has_memory

# -- promtool
check "promtool check metrics: the live /metrics" \
    sh -c "promtool check metrics <'$T/metrics' >'$T/promtool.out' 2>&1"
cat "$T/promtool.out"
check "promtool check rules contrib/orchd-alerts.yml" \
    promtool check rules "$RULES"
check "promtool test rules contrib/orchd-alerts.test.yml: each alert fires" \
    sh -c "promtool test rules '$SRC/contrib/orchd-alerts.test.yml' \
    >'$T/ruletest.out' 2>&1"
grep -q SUCCESS "$T/ruletest.out" || cat "$T/ruletest.out"
# the dashboard's expressions as recording rules: promtool parses each
dashrules() {	# dashrules DASHBOARD: its expressions as a rules file
	python3 - "$1" <<'PY'
import json, sys
exprs = []
def walk(v):
    if isinstance(v, dict):
        if isinstance(v.get("expr"), str):
            exprs.append(v["expr"])
        for x in v.values():
            walk(x)
    elif isinstance(v, list):
        for x in v:
            walk(x)
walk(json.load(open(sys.argv[1])))
print("groups:\n  - name: dashboard\n    rules:")
for i, e in enumerate(exprs):
    e = e.replace("$__rate_interval", "5m").replace("$instance", ".*")
    print("      - record: dashboard:expr%d\n        expr: %s" %
          (i, json.dumps(e)))
PY
}
dashrules "$DASH" >"$T/dash.yml"
check "every expression of the dashboard parses ($(grep -c record: "$T/dash.yml"))" \
    sh -c "promtool check rules '$T/dash.yml' >'$T/dash.out' 2>&1"
grep -q SUCCESS "$T/dash.out" || cat "$T/dash.out"
sed 's/"expr": "sum by (code)/"expr": "sum by (code/' "$DASH" >"$T/bad.json"
dashrules "$T/bad.json" >"$T/bad-dash.yml"
check "... which catches one that does not" \
    sh -c "! promtool check rules '$T/bad-dash.yml' >/dev/null 2>&1"

# -- every metric the dashboard and the rules name, in the live /metrics
awk '!/^#/ && NF { sub(/[{ ].*/, ""); print }' "$T/metrics" | sort -u \
    >"$T/have"
# names: FILE...: the metric names the expressions use, one a line;
# orchd's all begin orchd_ or process_, which nothing else there does
names() {
	python3 - "$@" <<'PY'
import json, re, sys
name = re.compile(r'\b(?:orchd|process)_[A-Za-z0-9_:]*')
out = set()
def walk(v):
    if isinstance(v, dict):
        for k, x in v.items():
            if k in ("expr", "query", "definition") and isinstance(x, str):
                out.update(name.findall(x))
            else:
                walk(x)
    elif isinstance(v, list):
        for x in v:
            walk(x)
for f in sys.argv[1:]:
    text = open(f).read()
    if f.endswith(".json"):
        walk(json.loads(text))
    else:
        out.update(name.findall(text))
for n in sorted(out):
    print(n)
PY
}
names "$DASH" >"$T/dash.names"
names "$RULES" >"$T/rules.names"
nd=$(wc -l <"$T/dash.names")
nr=$(wc -l <"$T/rules.names")
check "the dashboard's expressions name metrics ($nd)" [ "$nd" -ge 20 ]
check "the rules name metrics ($nr)" [ "$nr" -ge 10 ]
missing() {	# missing NAMES: those not in the live /metrics
	grep -vxF -f "$T/have" "$1"
}
for f in dash rules; do
	while read -r m; do
		check "$f: $m is in the live /metrics" grep -qxF "$m" "$T/have"
	done <"$T/$f.names"
done
sed 's/orchd_wake_failures_total/orchd_wake_failurez_total/' "$RULES" \
    >"$T/bad.yml"
names "$T/bad.yml" >"$T/bad.names"
miss=$(missing "$T/bad.names")
check "the check catches a metric the live /metrics lacks (${miss:-none})" \
    [ "$miss" = orchd_wake_failurez_total ]
check "the dashboard is JSON with panels and the instance variable" \
    python3 -c "import json,sys; d=json.load(open(sys.argv[1]));
assert len(d['panels']) >= 20
assert [v for v in d['templating']['list'] if v['name'] == 'instance']" \
    "$DASH"
for a in OrchdCrashLoopBackoff OrchdWakeFailures OrchdWakeTimeP99High \
    OrchdMemoryBudgetExhausted OrchdAccessLogDropped OrchdDatabaseWritesHeld; do
	check "the rules have $a" grep -q "alert: $a\$" "$RULES"
done

e2e_done
