#!/bin/sh
# A reload writes only the database rows that changed (issue 38): the
# first configuration is written whole; after it, a reload that changes
# nothing writes no row, one that changes a workload writes its row alone
# (its definition and "updated" move, the others' stay as they were), a
# workload removed loses its row and history, one added gets its row.
# The store's debug log says what it wrote.  The API's rows, which the
# API writes itself, stay as a whole write would leave them: one deleted
# through the API stays gone after a reload, one created is there, and
# a restart writes the configuration whole again.  Against the real
# daemons, every wait bounded; no workload is ever woken.
#
#	sh regress/e2e/reloadrows.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
command -v sqlite3 >/dev/null || skip "no sqlite3"

ports GW API
P=$((GW + 2))
KEY=e2e-key-$$-reloadrows-0123456789
mkdir -p "$T/log"
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
DB=$T/db/orchd.db

# wl NAME [SETTING...]: a process workload block that is never woken
wl() {
	name=$1
	shift
	P=$((P + 1))
	printf 'workload "%s" {\n\thost "%s.test"\n' "$name" "$name"
	printf '\tcommand "/bin/sleep 600"\n\tport %d\n' "$P"
	conf_end "$@"
}
conf() {	# the head, the listeners, then the blocks on stdin
	P=$((GW + 2))
	{
		conf_head
		cat <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api host "api.test"
api key file "$T/api.key"
api allow process
CONF
		cat
	} >"$T/orchd.conf"
}
reload() {	# reload: orchctl reload's status in $rc
	"$ORCHCTL" -s "$SOCK" reload >"$T/out" 2>&1
	rc=$?
}
# said N TEXT: the store's log line of configuration N has TEXT
said() {
	wait_for 10 grep -q "store: configuration $1: .*$2" "$T/orchd.log"
}
row() {		# row NAME: its definition and updated, or nothing
	db_sql "$DB" "SELECT definition || '|' || updated FROM workloads \
	    WHERE name = '$1'"
}
rows() {	# rows: the names of the rows, one line
	db_sql "$DB" "SELECT name FROM workloads ORDER BY name" |
	    tr '\n' ' '
}
api() {
	curl -sS -m 30 -o /dev/null -w '%{http_code}' \
	    -H "Authorization: Bearer $KEY" "$@"
}

{ wl aa; wl bb "idle timeout 5m"; wl cc; } | conf
start_orchd_or_exit -v
check "the first configuration is written whole" \
    said 1 "whole, 3 rows written"
a0=$(row aa)
b0=$(row bb)
check "... every row is there" [ "$(rows)" = "aa bb cc " ]

# updated is in seconds: a change must be seen as one
sleep 1.1
reload
check "a reload with nothing changed succeeds (status $rc)" [ "$rc" -eq 0 ]
check "... writes no row" \
    said 2 "what changed, 0 rows written, 0 removed, 3 unchanged"
check "... and every row is as it was" \
    [ "$(row aa)|$(row bb)" = "$a0|$b0" ]

{ wl aa; wl bb "idle timeout 7m"; wl cc; } | conf
reload
check "a reload that changes one workload succeeds (status $rc)" \
    [ "$rc" -eq 0 ]
check "... writes its row alone" \
    said 3 "1 row written, 0 removed, 2 unchanged"
b1=$(row bb)
newdef() { printf '%s' "$b1" | grep -q '"idle_timeout": *420'; }
check "... its definition is the new one" newdef
check "... and its updated moved" \
    [ "${b1##*|}" -gt "${b0##*|}" ]
check "... the other rows are as they were" [ "$(row aa)" = "$a0" ]

{ wl aa; wl bb "idle timeout 7m"; wl dd; } | conf
reload
check "a reload that removes one and adds one succeeds (status $rc)" \
    [ "$rc" -eq 0 ]
check "... writes one row and removes one" \
    said 4 "1 row written, 1 removed, 2 unchanged"
check "... the removed one's row is gone, the added one's there" \
    [ "$(rows)" = "aa bb dd " ]
check "... with its counters gone too" [ "$(db_sql "$DB" \
    "SELECT count(*) FROM counters WHERE workload = 'cc'")" = 0 ]
check "... and the added one's counters made" [ "$(db_sql "$DB" \
    "SELECT count(*) FROM counters WHERE workload = 'dd'")" = 1 ]

# the API's rows: written by the API, and again by the reload after
EE='{"name": "ee", "hosts": ["ee.test"], "command": "/bin/sleep 600",
    "port": 1}'
c=$(api -X POST --data-binary "$EE" "http://127.0.0.1:$API/v1/workloads")
check "an API workload is created (status $c)" [ "$c" = 201 ]
check "... its row is there" [ "$(rows)" = "aa bb dd ee " ]
c=$(api -X DELETE "http://127.0.0.1:$API/v1/workloads/ee")
check "... and deleted (status $c)" [ "$c" = 200 ]
reload
check "after a reload its row stays gone" [ "$(rows)" = "aa bb dd " ]
check "... the configuration's rows were not written again" \
    [ "$(row aa)" = "$a0" ]

stop_orchd
check "orchd stops (status $STATUS)" [ "$STATUS" -eq 0 ]
{ wl aa; wl bb "idle timeout 7m"; } | conf
start_orchd_or_exit -v
check "after a restart the configuration is written whole" \
    said 1 "whole, 2 rows written"
check "... dd's row is gone, as the whole write sweeps" \
    [ "$(rows)" = "aa bb " ]
stop_orchd
e2e_done
