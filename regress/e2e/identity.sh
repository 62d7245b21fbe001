#!/bin/sh
# Workload identities (orchd-security.7, no workload shares a uid): a process workload that
# names no user runs as a uid of its own from "workload uids", with a gid
# of that number and no supplementary groups; two workloads get two uids;
# a name keeps its uid across a restart, and one the store hands back that
# is not fit (the daemons' uid) is ignored.  The workload cannot read the
# database nor signal a daemon; it works in a state directory of its own,
# made for it, never through a link.  The database's directory and file
# are the store's alone, tightened when found open.  orchd -n refuses
# root and the daemons' user for a workload, and a backwards range.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports GW P_A P_B P_C
DUID=$(id -u _orchd)
DGID=$(id -g _orchd)
LOW=$E2E_UID_LOW
HIGH=$E2E_UID_HIGH
STATE=$T/orchd-workloads

mkdir -p "$T/log" "$T/bin"
cp "$BUILD/regress/testhttp" "$T/bin/testhttp"
# what the workload can and cannot do, in its log; then it serves
cat >"$T/bin/probe.sh" <<'EOF'
#!/bin/sh
echo "cwd $(pwd)"
echo "home $HOME"
if err=$(cat "$DB" 2>&1 >/dev/null); then
	echo "db: read"
else
	echo "db: $err"
fi
for p in $(pgrep -f '^orchd: '); do
	if err=$(kill -0 "$p" 2>&1); then
		echo "signal $p: allowed"
	else
		echo "signal $p: $err"
	fi
done
echo probe >"$PWD/probe.out" || echo "state directory not writable"
exec "$TESTHTTP" serve "$1"
EOF
chmod 0755 "$T/bin" "$T/bin/testhttp" "$T/bin/probe.sh"

workload() {	# workload NAME PORT
	cat <<CONF
workload "$1" {
	host "$1.localhost"
	command "$T/bin/probe.sh $2"
	port $2
	env "DB=$T/db/orchd.db"
	env "TESTHTTP=$T/bin/testhttp"
}
CONF
}
{
	conf_head
	echo "listen on 127.0.0.1 port $GW"
	workload a "$P_A"
	workload b "$P_B"
	workload c "$P_C"
} >"$T/orchd.conf"

get() {	# get NAME: a request through the gateway, which wakes it
	curl -s -o /dev/null -w '%{http_code}' -m 20 -H "Host: $1.localhost" \
	    "http://127.0.0.1:$GW/"
}
wl_pid() {	# wl_pid PORT: the workload's process, exec'd by the script
	pgrep -f "testhttp serve $1\$" | head -n 1
}
field() {	# field PID NAME: the ids of a line of /proc/PID/status
	sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status" | tr -s '\t ' '  ' |
	    sed 's/ *$//'
}
in_range() { [ "$1" -ge "$LOW" ] && [ "$1" -le "$HIGH" ]; }

# -n: the users a workload may never be, and a backwards range
badconf() {	# badconf NAME LINE TEXT...: orchd -n fails at NAME's LINE
	n=$1
	line=$2
	shift 2
	printf '%s\n' "$@" >"$T/$n.conf"
	"$ORCHD" -n -f "$T/$n.conf" >"$T/$n.out" 2>&1 &&
	    return 1
	grep -q "$T/$n.conf:$line: " "$T/$n.out"
}
check "orchd -n: user \"root\" for a process workload is an error at its line" \
    badconf root 5 'workload "r" {' '	host "r.localhost"' \
    '	command "/bin/true"' '	port 8000' '	user "root"' '}'
check "orchd -n: user \"_orchd\", the daemons' user, is an error at its line" \
    badconf daemon 4 'workload "r" {' '	host "r.localhost"' \
    '	command "/bin/true"' '	user "_orchd"' '	port 8000' '}'
check "orchd -n: a user with the daemons' uid is an error" \
    sh -c "grep -q 'the daemons' \"$T/daemon.out\""
check "orchd -n: workload uids 10-5 is an error" \
    badconf backwards 2 '' 'workload uids 10-5'
check "orchd -n: workload uids holding the daemons' uid is an error" \
    badconf holds 1 "workload uids $DUID-$((DUID + 1))"
check "orchd -n accepts the test's configuration" \
    "$ORCHD" -n -f "$T/orchd.conf"

# the database directory, made open by hand: tightened at start
mkdir -p "$T/db"
chown _orchd:_orchd "$T/db"
chmod 0755 "$T/db"

start_orchd_or_exit
check "the database directory is tightened to 0700 ($(stat -c %a "$T/db"))" \
    [ "$(stat -c %a "$T/db")" = 700 ]
check "and the log says so" grep -q "database directory $T/db was mode 0755" \
    "$T/orchd.log"

check "a request wakes workload a" [ "$(get a)" = 200 ]
check "a request wakes workload b" [ "$(get b)" = 200 ]
pa=$(wl_pid "$P_A")
pb=$(wl_pid "$P_B")
if [ -z "$pa" ] || [ -z "$pb" ]; then
	fail "workloads a and b are running (pids '$pa' '$pb')"
	tail -n 20 "$T/orchd.log"
	e2e_done
	exit 1
fi
ua=$(field "$pa" Uid | cut -d' ' -f1)
ub=$(field "$pb" Uid | cut -d' ' -f1)
echo "# a: pid $pa uid $ua; b: pid $pb uid $ub; daemons $DUID:$DGID"
check "a's uid ($ua) is not root's" [ "$ua" -ne 0 ]
check "a's uid ($ua) is not the daemons' ($DUID)" [ "$ua" -ne "$DUID" ]
check "a's uid ($ua) is in workload uids $LOW-$HIGH" in_range "$ua"
check "a's real, effective, saved and fs uids are all $ua" \
    [ "$(field "$pa" Uid)" = "$ua $ua $ua $ua" ]
check "a's gids are all $ua ($(field "$pa" Gid))" \
    [ "$(field "$pa" Gid)" = "$ua $ua $ua $ua" ]
check "a has no supplementary groups ('$(field "$pa" Groups)')" \
    [ -z "$(field "$pa" Groups)" ]
check "no passwd entry has a's uid" sh -c "! getent passwd $ua >/dev/null"
check "b's uid ($ub) is in the range too" in_range "$ub"
check "a and b have different uids ($ua, $ub)" [ "$ua" -ne "$ub" ]

# what a found it could do
la=$T/log/a.log
check "a works in its state directory $STATE/a" \
    [ "$(readlink "/proc/$pa/cwd")" = "$STATE/a" ]
check "its HOME is that directory" grep -qx "home $STATE/a" "$la"
check "the state directory is a's, mode 0700" \
    [ "$(stat -c '%u:%g %a' "$STATE/a")" = "$ua:$ua 700" ]
check "a could write in it" [ "$(stat -c %u "$STATE/a/probe.out")" = "$ua" ]
check "the directory of state directories is root's, mode 0755" \
    [ "$(stat -c '%u %a' "$STATE")" = "0 755" ]
check "a cannot read the database (Permission denied)" \
    grep -q "^db: .*Permission denied" "$la"
check "a's log file is a's" [ "$(stat -c %u "$la")" = "$ua" ]
check "the database file is the store's alone, mode 0600" \
    [ "$(stat -c '%U %a' "$T/db/orchd.db")" = "_orchd 600" ]
daemons="$ORCHD_PID"
for name in store gateway reaper runtime; do
	daemons="$daemons $(child "$name")"
done
for p in $daemons; do
	check "a cannot signal daemon pid $p (EPERM)" \
	    grep -q "^signal $p: .*Operation not permitted" "$la"
done
check "a could signal no process of orchd's" \
    sh -c "! grep -q '^signal .*: allowed' \"$la\""

# a link in place of a state directory is never followed
mkdir -p "$T/victim"
ln -s "$T/victim" "$STATE/c"
check "a workload whose state directory is a link does not start" \
    [ "$(get c)" = 503 ]
check "the link is reported" grep -q "state directory $STATE/c: a symbolic link" \
    "$T/orchd.log"
check "its target was not given away ($(stat -c '%u %a' "$T/victim"))" \
    [ "$(stat -c %u "$T/victim")" = 0 ]

# a restart: the same names get the same uids; a stored uid that is the
# daemons' is refused; the database file, opened up, is tightened
stop_orchd
sqlite3 "$T/db/orchd.db" "UPDATE identities SET uid = $DUID WHERE name = 'b'"
chmod 0644 "$T/db/orchd.db"
start_orchd_or_exit
check "the database file is tightened to 0600 ($(stat -c %a "$T/db/orchd.db"))" \
    [ "$(stat -c %a "$T/db/orchd.db")" = 600 ]
check "a request wakes a again" [ "$(get a)" = 200 ]
check "a request wakes b again" [ "$(get b)" = 200 ]
pa=$(wl_pid "$P_A")
pb=$(wl_pid "$P_B")
ua2=$(field "$pa" Uid | cut -d' ' -f1)
ub2=$(field "$pb" Uid | cut -d' ' -f1)
check "a has the same uid after the restart ($ua, $ua2)" [ "$ua" = "$ua2" ]
check "b's stored uid, the daemons', was refused (now $ub2)" \
    grep -q "workload b: stored uid $DUID is .*ignored" "$T/orchd.log"
check "b got a fit uid instead ($ub2)" \
    sh -c "[ '$ub2' -ne '$DUID' ] && [ '$ub2' -ne '$ua2' ] && [ '$ub2' -ge $LOW ]"
check "the new uid is recorded" [ "$(sqlite3 "$T/db/orchd.db" \
    "SELECT uid FROM identities WHERE name = 'b'")" = "$ub2" ]
stop_orchd
e2e_done
