#!/bin/sh
# orchctl reload reports: the workloads added, removed and changed by
# name, a setting that needs a restart, the same as JSON; a broken file
# (or a broken included file) makes it exit 1 printing each FILE:LINE
# error, and the running configuration stays.  SIGHUP still reloads,
# and the log says what changed.  Against the real daemons, every wait
# bounded; no workload is ever woken.
#
#	sh regress/e2e/reload.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports GW
P=$((GW + 1))
mkdir -p "$T/log"

# wl NAME [SETTING...]: a process workload block that is never woken
wl() {
	name=$1
	shift
	P=$((P + 1))
	printf 'workload "%s" {\n\thost "%s.test"\n' "$name" "$name"
	printf '\tcommand "/bin/sleep 600"\n\tport %d\n' "$P"
	conf_end "$@"
}
# conf [BODY...]: the head, the listener, then the blocks on stdin
conf() {
	{
		conf_head
		echo "listen on 127.0.0.1 port $GW"
		cat
	} >"$T/orchd.conf"
}
# ctl ARGS...: orchctl's status in $rc, stdout in $T/out, stderr in $T/err
ctl() {
	"$ORCHCTL" -s "$SOCK" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	return $rc
}
show() {	# show FILE: its lines, indented, for a failure's context
	sed 's/^/#	/' "$1"
}
listed() {	# listed NAME: show workloads has it
	"$ORCHCTL" -s "$SOCK" show workloads | grep -Eq "^$1 "
}
out_has() { grep -qx -- "$1" "$T/out"; }
err_has() { grep -q -- "$1" "$T/err"; }

{ wl keep; wl gone; wl tuned "idle timeout 5m"; } | conf
start_orchd_or_exit

# -- 1. one added, one removed, one changed, one untouched
{ wl keep; wl tuned "idle timeout 10m"; wl fresh; } | conf
echo "prefork 2" >>"$T/orchd.conf"
ctl reload
check "orchctl reload succeeds (status $rc)" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || { show "$T/out"; show "$T/err"; }
check "it names the workload added" out_has "workload fresh added"
check "it names the workload removed" out_has "workload gone removed"
check "it names the workload changed" out_has "workload tuned changed"
check "it does not name the workload unchanged" \
    sh -c "! grep -q keep '$T/out'"
check "it says prefork needs a restart" \
    out_has "prefork changed: restart orchd to use it"
check "it ends saying the configuration is reloaded" \
    sh -c "tail -n 1 '$T/out' | grep -qx 'configuration reloaded'"
check "fresh is running configuration" wait_for 10 listed fresh
check "gone is not" sh -c "! \"$ORCHCTL\" -s \"$SOCK\" show workloads |
    grep -q '^gone '"
check "the log says what changed" \
    grep -q "reload: workloads: 1 added, 1 removed, 1 changed" "$T/orchd.log"

# -- 2. nothing changed, then one added, as JSON
ctl -j reload
check "orchctl -j reload with no change succeeds (status $rc)" [ "$rc" -eq 0 ]
check "an empty added list" grep -q '"added": \[\]' "$T/out"
check "the restart is still reported" \
    sh -c "tr -d ' \n' <'$T/out' | grep -q '\"restart\":\[\"prefork\"\]'"
{ wl keep; wl tuned "idle timeout 10m"; wl fresh; wl extra; } | conf
echo "prefork 2" >>"$T/orchd.conf"
ctl -j reload
check "orchctl -j reload adding extra succeeds (status $rc)" [ "$rc" -eq 0 ]
check "added is [\"extra\"]" \
    sh -c "tr -d ' \n' <'$T/out' | grep -q '\"added\":\[\"extra\"\]'"
check "result ok" grep -q '"result": "ok"' "$T/out"

# -- 3. a broken file: every error at FILE:LINE, exit 1, nothing changes
{ wl keep; wl tuned "idle timeout 10m"; wl fresh; wl extra;
    wl broken "idle timeout 5 fortnights"; } | conf
echo "prefork 2" >>"$T/orchd.conf"
echo "idel timeout 5m" >>"$T/orchd.conf"
lb=$(grep -n fortnights "$T/orchd.conf" | cut -d: -f1)
lk=$(grep -n idel "$T/orchd.conf" | cut -d: -f1)
ctl reload
check "orchctl reload of a broken file exits 1 (status $rc)" [ "$rc" -eq 1 ]
[ "$rc" -eq 1 ] || { show "$T/out"; show "$T/err"; }
check "it prints the bad duration at $T/orchd.conf:$lb" \
    err_has "^$T/orchd.conf:$lb: "
check "it prints the unknown keyword at $T/orchd.conf:$lk" \
    err_has "^$T/orchd.conf:$lk: unknown keyword"
check "it says the file is not reloaded" err_has "not reloading"
check "it prints no change" [ ! -s "$T/out" ]
check "the running configuration stays: no broken" \
    sh -c "! \"$ORCHCTL\" -s \"$SOCK\" show workloads | grep -q '^broken '"
check "the running configuration stays: extra still there" listed extra

# -- 4. an error in an included file names that file
{ wl keep; wl tuned "idle timeout 10m"; wl fresh; wl extra; } | conf
echo "prefork 2" >>"$T/orchd.conf"
echo 'include "inc.conf"' >>"$T/orchd.conf"
printf '# included\nwake timeout 0\n' >"$T/inc.conf"
ctl reload
check "an error in an included file fails the reload (status $rc)" \
    [ "$rc" -eq 1 ]
check "it is printed at $T/inc.conf:2" err_has "^$T/inc.conf:2: "

# -- 5. SIGHUP: logs only, still reloads
{ wl keep; wl tuned "idle timeout 10m"; wl fresh; wl extra; wl hup; } | conf
echo "prefork 2" >>"$T/orchd.conf"
kill -HUP "$ORCHD_PID"
check "SIGHUP reloads: hup is running configuration" wait_for 10 listed hup
check "the log names the change" wait_for 10 \
    grep -q "reload: workloads: 1 added, 0 removed, 0 changed" "$T/orchd.log"
check "orchd still runs" alive "$ORCHD_PID"

stop_orchd
check "orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]
e2e_done
