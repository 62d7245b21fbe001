#!/bin/sh
# The database removed or replaced while orchd runs (issue 30).  The
# store notices (before a write, and every 5 s), says so in the log, and
# writes what its open file holds into a new file at the path; a file
# put in its place is kept as <path>.replaced.  Asserted: the log lines,
# the workloads made through orchctl before and after each (every one
# acknowledged) in the new file, integrity_check ok, the replacing
# file kept unchanged, and all of it still there after a restart.
# Prints how long each took to be noticed and written again.
. "$(dirname "$0")/../e2e/lib.sh"
e2e_init "$1"
need_root
ensure_user
command -v sqlite3 >/dev/null || skip "no sqlite3"

ports GW P1
DB=$T/db/orchd.db
ORCHD_UID=$(id -u _orchd)
ORCHD_GID=$(id -g _orchd)
{
	conf_head
	echo "listen on 127.0.0.1 port $GW"
	echo "api allow process"
} >"$T/orchd.conf"

# sql QUERY: as the store's user; never on a missing file, which
# sqlite3 would make
sql() {
	[ -f "$DB" ] || return 1
	setpriv --reuid="$ORCHD_UID" --regid="$ORCHD_GID" --clear-groups \
	    sqlite3 "$DB" "$1" 2>&1
}
mk() {	# mk NAME...: workloads made through orchctl, each acknowledged
	# (never woken: their command does not matter)
	for n in "$@"; do
		"$ORCHCTL" -s "$SOCK" create "$n" --driver process \
		    --command "/bin/true" --host "$n.test" \
		    --port "$P1" 2>&1 | grep -q "$n created" || return 1
	done
}
has_all() {	# has_all NAME...: each a row of the database
	for n in "$@"; do
		[ "$(sql "SELECT count(*) FROM workloads WHERE name = '$n'")" \
		    = 1 ] || return 1
	done
}
logged() { grep -q "$1" "$T/orchd.log"; }
noticed() {	# noticed PATTERN WHAT: waits up to 12 s, prints the time
	t0=$(now_ms)
	if wait_for 12 logged "$1"; then
		ok "$2 ($(($(now_ms) - t0)) ms)"
	else
		fail "$2"
	fi
}

start_orchd_or_exit
check "created before: a1 a2" mk a1 a2

# removed, with its log and index, as rm orchd.db* would
rm -f "$DB" "$DB-wal" "$DB-shm"
noticed "database $DB was removed while orchd ran" \
    "removed: the log says so"
noticed "database $DB written again" "... and that it was written again"
check "... a file is at the path again" [ -f "$DB" ]
check "... it holds what came before" has_all a1 a2
check "... integrity_check ok" [ "$(sql 'PRAGMA integrity_check')" = ok ]
check "created after: a3" mk a3
check "... it is in the new file" wait_for 5 has_all a1 a2 a3

# replaced by another file: set aside, untouched
echo "somebody's file $$" >"$T/other"
SUM=$(sha256sum <"$T/other")
mv "$T/other" "$DB"
# a write notices it before the timer does
check "created while replaced: a4" mk a4
noticed "database $DB was replaced by another file" \
    "replaced: the log says so"
check "... the file put there is kept as .replaced, unchanged" \
    [ "$(sha256sum <"$DB.replaced" 2>/dev/null)" = "$SUM" ]
check "... the path holds the database again" has_all a1 a2 a3 a4
check "created after: a5" mk a5

stop_orchd
check "orchd stops with 0" [ "$STATUS" -eq 0 ]
check "after the stop, the file holds all five" has_all a1 a2 a3 a4 a5
check "... integrity_check ok" [ "$(sql 'PRAGMA integrity_check')" = ok ]
start_orchd_or_exit
check "after a restart, every one is defined" sh -c "
    for n in a1 a2 a3 a4 a5; do
	'$ORCHCTL' -s '$SOCK' show workload \$n >/dev/null 2>&1 || exit 1
    done"
check "the log names no fatal error" sh -c \
    "! grep -E 'fatal|cannot be written again' '$T/orchd.log'"
e2e_done
