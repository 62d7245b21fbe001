#!/bin/sh
# The store: state survives a restart (a sleeping workload is not started
# again), requests are served while the store is stopped, a SIGKILL of the
# whole tree leaves a sound database and a restart that starts nothing
# until asked, and a database that is corrupt or cannot be written is
# refused, untouched, with a log line naming it.  Every wait bounded.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

base=$((21000 + $$ % 11000))
GW=$(free_port "$base")
P_WEB=$(free_port $((GW + 1)))
P_STEADY=$(free_port $((P_WEB + 1)))

DBDIR=$T/db
DB=$DBDIR/orchd.db
ORCHD_UID=$(id -u _orchd)
ORCHD_GID=$(id -g _orchd)

# the workload's binary where any user can run it, its start counters
# where any can write them: each workload runs as a uid of its own
cp "$BUILD/regress/testhttp" "$T/testhttp"
chmod 0755 "$T/testhttp"
for f in web steady; do
	: >"$T/$f.starts"
	chmod 0666 "$T/$f.starts"
done

# the database directory is left to orchd, which makes it for the store
cat >"$T/orchd.conf" <<CONF
user "_orchd"
chroot "/var/empty"
database "$DB"
socket "$SOCK"
$(conf_instance)
log directory "$T/log"
idle timeout 5m
reaper interval 1s
wake timeout 10s

listen on 127.0.0.1 port $GW

workload "web" {
	host "web.test"
	command "$T/testhttp serve $P_WEB $T/web.starts"
	port $P_WEB
	idle timeout 2s
	memory 256M
}
workload "steady" {
	host "steady.test"
	command "$T/testhttp serve $P_STEADY $T/steady.starts"
	port $P_STEADY
}
CONF

# sql QUERY: as the store's user, so that sqlite3 never leaves a file
# behind that the store could not open
sql() {
	setpriv --reuid="$ORCHD_UID" --regid="$ORCHD_GID" --clear-groups \
	    sqlite3 "$DB" "$1" 2>&1
}
state_is() {	# state_is WORKLOAD STATE
	[ "$(sql "SELECT state FROM workloads WHERE name = '$1'")" = "$2" ]
}
code() {	# code HOST: the status of GET /
	curl -s -m 20 -o /dev/null -w '%{http_code}' -H "Host: $1" \
	    "http://127.0.0.1:$GW/"
}
lines() { wc -l <"$1" | tr -d ' '; }
sum() { sha256sum "$1" | cut -d' ' -f1; }
# descendants PID: every process below PID
descendants() {
	for c in $(pgrep -P "$1"); do
		echo "$c"
		descendants "$c"
	done
}
# start_refused: orchd must exit non-zero on its own
start_refused() {
	: >"$T/refused.log"
	"$ORCHD" -d -f "$T/orchd.conf" >"$T/refused.log" 2>&1 &
	ORCHD_PID=$!
	orchd_status
	ORCHD_PID=
	cat "$T/refused.log" >>"$T/orchd.log"
	[ "$STATUS" -ne 0 ]
}

# 1. first start: the database made, the workloads in it
check "orchd starts" start_orchd
check "the database was created" test -f "$DB"
check "owned by _orchd" [ "$(stat -c %u "$DB" 2>/dev/null)" = "$ORCHD_UID" ]
check "in write-ahead-log mode" [ "$(sql 'PRAGMA journal_mode')" = wal ]
check "with both workloads, asleep" \
    [ "$(sql "SELECT count(*) FROM workloads WHERE state = 'asleep'")" = 2 ]

# 2. a wake is recorded
check "a request wakes web: 200" [ "$(code web.test)" = 200 ]
check "one start" [ "$(lines "$T/web.starts")" -eq 1 ]
check "orchctl show summary lists the store" \
    sh -c "\"$ORCHCTL\" -s \"$SOCK\" show summary | grep -q '^store '"
check "web is recorded running" wait_for 5 state_is web running
woken() {
	[ "$(sql "SELECT count(*) FROM transitions WHERE workload = 'web' AND
	    from_state = 'waking' AND to_state = 'running' AND
	    wake_ms >= 0")" = 1 ]
}
check "the wake is in its history, with its duration" wait_for 5 woken
check "and counted" \
    [ "$(sql "SELECT wakes FROM counters WHERE workload = 'web'")" = 1 ]
seen() {
	[ "$(sql "SELECT last_seen > 0 FROM workloads
	    WHERE name = 'web'")" = 1 ]
}
check "the reaper's last seen reaches the database" wait_for 5 seen

# 3. suspended when idle, then a restart: no start
check "the reaper suspends web" wait_for 15 state_is web asleep
stop_orchd
check "SIGTERM: orchd exits 0 (status $STATUS)" [ "$STATUS" -eq 0 ]
check "the database is closed cleanly (no log left)" \
    sh -c "[ ! -s '$DB-wal' ]"
check "orchd starts again" start_orchd
sleep 2
check "web, asleep, was not started at the restart ($(lines "$T/web.starts"))" \
    [ "$(lines "$T/web.starts")" -eq 1 ]
check "and is still recorded asleep" state_is web asleep
check "its history survived: asleep, waking, running, suspending, asleep" \
    [ "$(sql "SELECT group_concat(to_state, ' ') FROM (SELECT to_state \
    FROM transitions WHERE workload = 'web' ORDER BY id)")" = \
    "waking running suspending asleep" ]

# 4. the store stopped: running workloads are served all the same
check "steady wakes: 200" [ "$(code steady.test)" = 200 ]
check "steady is recorded running" wait_for 5 state_is steady running
spid=$(child store)
check "the store is running (pid $spid)" [ -n "$spid" ]
kill -STOP "$spid"
n=0
for i in 1 2 3 4 5; do
	[ "$(code steady.test)" = 200 ] && n=$((n + 1))
done
check "with the store stopped, 5 requests to steady: 5 x 200 ($n)" \
    [ "$n" -eq 5 ]
check "a sleeping workload wakes too" [ "$(code web.test)" = 200 ]
kill -CONT "$spid"
# web may be asleep again by then: its history says what happened
woken_twice() {
	[ "$(sql "SELECT count(*) FROM transitions WHERE workload = 'web'
	    AND to_state = 'running'")" = 2 ]
}
check "once the store continues, it records what it missed" \
    wait_for 5 woken_twice
check "orchd answers" "$ORCHCTL" -s "$SOCK" show summary
check "steady was started once ($(lines "$T/steady.starts"))" \
    [ "$(lines "$T/steady.starts")" -eq 1 ]

# 5. SIGKILL of the whole tree while steady runs
check "web is suspended again" wait_for 15 state_is web asleep
check "steady is still recorded running" state_is steady running
tree="$ORCHD_PID $(descendants "$ORCHD_PID")"
# shellcheck disable=SC2086
kill -KILL $tree 2>/dev/null
orchd_status
all_dead() {
	for p in $tree; do
		alive "$p" && return 1
	done
	return 0
}
check "orchd and its children are gone" wait_for 5 all_dead
check "orchd starts after a SIGKILL" start_orchd
check "PRAGMA integrity_check says ok" \
    [ "$(sql 'PRAGMA integrity_check')" = ok ]
check "steady, which died with it, is recorded asleep" \
    wait_for 5 state_is steady asleep
sleep 1
check "and was not started at the restart ($(lines "$T/steady.starts"))" \
    [ "$(lines "$T/steady.starts")" -eq 1 ]
check "the next request starts it: 200" [ "$(code steady.test)" = 200 ]
check "a second start ($(lines "$T/steady.starts"))" \
    [ "$(lines "$T/steady.starts")" -eq 2 ]
stop_orchd
check "SIGTERM: orchd exits 0 (status $STATUS)" [ "$STATUS" -eq 0 ]
ORCHD_PID=
cp -p "$DB" "$T/good.db"

# 6. a corrupt database: refused, untouched
head -c 4096 /dev/urandom >"$DB"
rm -f "$DB-wal" "$DB-shm"
before=$(sum "$DB")
check "a corrupt database: orchd exits non-zero" start_refused
check "its log names the file" \
    grep -q "database $DB: not a database" "$T/refused.log"
check "the file is unchanged" [ "$(sum "$DB")" = "$before" ]
check "nothing was made beside it" \
    sh -c "[ ! -e '$DB-wal' ] && [ ! -e '$DB-journal' ]"

# 7. a database another user owns, mode 0400: refused, untouched
cp "$T/good.db" "$DB"
chown root:root "$DB"
chmod 0400 "$DB"
before=$(sum "$DB")
check "a database _orchd cannot write: orchd exits non-zero" start_refused
check "its log names the file" grep -q "database $DB: " "$T/refused.log"
check "the file is unchanged" [ "$(sum "$DB")" = "$before" ]

# 8. a read-only directory: no room for the write-ahead log.  The
# store's, mode 0500: one of another user's (root's) is refused before the
# store starts, by the parent, naming its owner and mode (dbdir.sh)
cp "$T/good.db" "$DB"
chown _orchd "$DB"
chmod 0600 "$DB"
chown root "$DBDIR"
chmod 0555 "$DBDIR"
check "a database directory of root's: orchd exits non-zero" start_refused
check "the parent names its owner and mode" grep -q \
    "database directory $DBDIR is owned by root, mode 0555" "$T/refused.log"
chown _orchd "$DBDIR"
chmod 0500 "$DBDIR"
before=$(sum "$DB")
check "a read-only database directory: orchd exits non-zero" start_refused
check "its log names the file and says why" \
    grep -q "database $DB: cannot be written" "$T/refused.log"
check "the file is unchanged" [ "$(sum "$DB")" = "$before" ]
rm -f "$DB"
check "no file there yet: orchd exits non-zero" start_refused
check "its log says the directory is not writable" \
    grep -q "database $DB: cannot be created" "$T/refused.log"
grep "database $DB" "$T/orchd.log" | sed 's/^/# /'

# and back to a writable one: it starts from the saved file
chown _orchd "$DBDIR"
chmod 0700 "$DBDIR"
cp -p "$T/good.db" "$DB"
check "orchd starts once the database is sound" start_orchd
check "with the history it had" \
    [ "$(sql "SELECT wakes FROM counters WHERE workload = 'steady'")" = 2 ]
stop_orchd
check "SIGTERM: orchd exits 0 (status $STATUS)" [ "$STATUS" -eq 0 ]
ORCHD_PID=
e2e_done
