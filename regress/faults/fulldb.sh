#!/bin/sh
# The database's disk full under API writes: the database on a small
# tmpfs of the test's own (under the scratch directory), filled with a
# file until nothing more fits.  Workloads created and changed through
# the API before the disk fills, while it is full, and after the filler
# is removed: a write while full is answered an error (the API's own
# writes are not held: orchd-workload(7), When the database cannot be
# written) or 2xx, and every write answered 2xx is there, whole, while
# full, after, and after a restart reads the file back; no write is
# dropped; PRAGMA integrity_check says ok.  Figures: the writes
# acknowledged and refused while full.  The e2e script diskfull.sh tests
# the held writes of the wakes' side.  Loopback only, every wait
# bounded.
. "$(dirname "$0")/../e2e/lib.sh"
e2e_init "$1"
need_root
ensure_user

port_base 29
ports GW API P_WARM
KEY=faults-key-$$-0123456789abcdef
DB=$T/db/orchd.db

mkdir -p "$T/log"
tmpfs_mount "$T/db" 2m 0700
chown _orchd "$T/db"
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

apic() {	# apic METHOD PATH [BODY]: the status alone
	curl -s -m 30 -o /dev/null -w '%{http_code}' -X "$1" \
	    -H "Authorization: Bearer $KEY" ${3:+--data-binary "$3"} \
	    "$URL$2"
}
metric() {	# metric NAME: its value in GET /metrics
	curl -s -m 10 -H "Authorization: Bearer $KEY" "$URL/metrics" |
	    awk -v m="$1" '$1 == m { print $2 }'
}
held() { [ "$(metric orchd_store_queued_writes)" = "$1" ]; }

# writes PHASE N: N workloads made and changed, each acknowledged write
# journalled in $T/acked ("NAME ENV"), every answer in $T/codes.PHASE
writes() {
	i=1
	: >"$T/codes.$1"
	while [ $i -le "$2" ]; do
		w=p$1x$i
		c=$(apic POST /v1/workloads "$(printf \
		    '{"name": "%s", "hosts": ["%s.test"], "command": "/bin/true %s", "port": %s}' \
		    "$w" "$w" "$w" $((40000 + $1 * 100 + i)))")
		echo "$c" >>"$T/codes.$1"
		case $c in
		2??)	echo "$w -" >>"$T/acked"
			c=$(apic PATCH "/v1/workloads/$w" \
			    "{\"env\": [\"P=$w\"]}")
			echo "$c" >>"$T/codes.$1"
			case $c in 2??) echo "$w P=$w" >>"$T/acked" ;; esac
			;;
		esac
		i=$((i + 1))
	done
}
# errors PHASE: its answers neither 2xx nor a server's error (000, 4xx)
errors() { grep -v '^[25]' "$T/codes.$1" | tr '\n' ' '; }
# present: each workload acknowledged is there, with its last env
present() {
	curl -s -m 30 -H "Authorization: Bearer $KEY" "$URL/v1/workloads" \
	    >"$T/list.json"
	python3 - "$T/acked" "$T/list.json" <<'EOF'
import json, sys
want = {}
for line in open(sys.argv[1]):
    n, e = line.split()
    want[n] = [] if e == "-" else [e]
got = {w["name"]: w for w in json.load(open(sys.argv[2]))["workloads"]}
bad = [n for n, e in want.items() if n not in got or
    got[n].get("env", []) != e or got[n].get("hosts") != [n + ".test"]]
for n in bad:
    print("# missing or wrong: %s %s" % (n, got.get(n)))
sys.exit(1 if bad else 0)
EOF
}
acked() { wc -l <"$T/acked" | tr -d ' '; }

: >"$T/acked"
testhttp_bin
start_orchd_or_exit
c=$(apic POST /v1/workloads "$(printf \
    '{"name": "warm", "hosts": ["warm.test"], "command": "%s serve %s", "port": %s}' \
    "$T/bin/testhttp" "$P_WARM" "$P_WARM")")
check "a workload to keep warm is made ($c)" [ "$c" = 201 ]
# keep_warm: the keep warm override of warm, as the API tells it
keep_warm() {
	curl -s -m 10 -H "Authorization: Bearer $KEY" "$URL/v1/workloads/warm" |
	    python3 -c 'import json, sys; print(json.load(sys.stdin)["keep_warm"])'
}
writes 1 10
check "20 writes acknowledged before the disk fills ($(acked))" \
    [ "$(acked)" -eq 20 ]

dd if=/dev/zero of="$T/db/filler" bs=4096 >/dev/null 2>&1
check "the tmpfs is full" [ "$(df --output=avail "$T/db" | tail -n 1 |
    tr -d ' ')" -eq 0 ]
n0=$(acked)
writes 2 20
n=$(($(acked) - n0))
c=$(apic POST /v1/workloads/warm/keepwarm '{"enabled": true}')
check "keep warm set while full: 2xx, held ($c)" \
    sh -c "case $c in 2??) exit 0 ;; esac; exit 1"
check "... and told by the API" [ "$(keep_warm)" = True ]
check "the store holds writes" wait_for 10 sh -c \
    "grep -q 'writes held' '$T/orchd.log'"
figure writes_held "$(metric orchd_store_queued_writes)" writes
figure acked_while_full "$n" writes
figure refused_while_full "$(grep -c '^5' "$T/codes.2")" writes
check "writes while full: 2xx or 5xx, nothing else ($(errors 2))" \
    [ -z "$(errors 2)" ]
check "the log says why writes are refused" \
    grep -q 'database or disk is full' "$T/orchd.log"
check "the API tells every acknowledged write while full" present

rm -f "$T/db/filler"
check "nothing held once there is room" wait_for 60 held 0
writes 3 5
check "writes acknowledged once there is room ($(acked) in all)" \
    [ "$(acked)" -eq $((n0 + n + 10)) ]
check "the API tells every acknowledged write" present
check "/metrics counts no drop" \
    [ "$(metric orchd_store_dropped_writes_total)" = 0 ]

stop_orchd
check "orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]
check "PRAGMA integrity_check says ok" \
    [ "$(db_sql "$DB" 'PRAGMA integrity_check')" = ok ]
start_orchd_or_exit
check "after a restart, every acknowledged write is there" present
check "... the keep warm set while full too" [ "$(keep_warm)" = True ]
check "no fatal in the log" sh -c "! grep -q fatal '$T/orchd.log'"
stop_orchd
ORCHD_PID=
e2e_done
