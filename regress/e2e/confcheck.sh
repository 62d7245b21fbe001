#!/bin/sh
# orchd -n against this host: a process workload's user that does not
# exist, a program missing or not executable, a directory missing, each
# at its file:line and exit 1; the same file starts with warnings; a
# reload of it fails with those lines; no "listen on" is a warning; a
# missing TLS file is an error at its line.
#
#	sh regress/e2e/confcheck.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports GW
mkdir -p "$T/log" "$T/dir"
printf '#!/bin/sh\nexec sleep 600\n' >"$T/prog"
chmod 0755 "$T/prog"
printf '#!/bin/sh\n' >"$T/noexec"
chmod 0644 "$T/noexec"

# good_wl: a process workload every check passes
good_wl() {
	cat <<CONF
workload "good" {
	host "good.test"
	command "'$T/prog'"
	directory "$T/dir"
	user "nobody"
	port $((GW + 1))
}
CONF
}
{
	conf_head
	echo "listen on 127.0.0.1 port $GW"
	good_wl
} >"$T/orchd.conf"
"$ORCHD" -n -f "$T/orchd.conf" >"$T/n.out" 2>&1
st=$?
check "orchd -n passes a workload whose user, program and directory exist" \
    [ "$st" -eq 0 ]
[ "$st" -eq 0 ] || sed 's/^/#	/' "$T/n.out"

start_orchd_or_exit

cat >>"$T/orchd.conf" <<CONF
workload "nouser" {
	host "nouser.test"
	command "'$T/prog'"
	user "orchd-no-such-user"
	port $((GW + 2))
}
workload "noprog" {
	host "noprog.test"
	command "'$T/missing' --flag"
	port $((GW + 3))
}
workload "noexec" {
	host "noexec.test"
	command "'$T/noexec'"
	port $((GW + 4))
}
workload "nodir" {
	host "nodir.test"
	command "sleep 600"
	directory "$T/nodir"
	port $((GW + 5))
}
CONF
C=$T/orchd.conf
lu=$(grep -n orchd-no-such-user "$C" | cut -d: -f1)
lp=$(grep -n "$T/missing" "$C" | cut -d: -f1)
lx=$(grep -n "command.*$T/noexec" "$C" | cut -d: -f1)
ld=$(grep -n "directory \"$T/nodir" "$C" | cut -d: -f1)
"$ORCHD" -n -f "$C" >"$T/n.out" 2>&1
st=$?
check "orchd -n fails (status $st)" [ "$st" -eq 1 ]
check "a user that does not exist, at $C:$lu" grep -q \
    "^$C:$lu: workload \"nouser\": user \"orchd-no-such-user\" does not exist" \
    "$T/n.out"
check "a missing program, at $C:$lp" grep -q \
    "^$C:$lp: workload \"noprog\": command: $T/missing: No such file" \
    "$T/n.out"
check "a program not executable, at $C:$lx" grep -q \
    "^$C:$lx: workload \"noexec\": command: $T/noexec: Permission denied" \
    "$T/n.out"
check "a missing directory, at $C:$ld" grep -q \
    "^$C:$ld: workload \"nodir\": directory $T/nodir: No such file" \
    "$T/n.out"
check "nothing about the good workload" sh -c "! grep -q good '$T/n.out'"

"$ORCHCTL" -s "$SOCK" reload >"$T/r.out" 2>"$T/r.err"
st=$?
check "a reload of that file fails (status $st)" [ "$st" -eq 1 ]
check "it prints the same lines" sh -c "grep -q '^$C:$lu: ' '$T/r.err' &&
    grep -q '^$C:$lp: ' '$T/r.err' && grep -q '^$C:$ld: ' '$T/r.err'"
check "nouser is not running configuration" sh -c "! \"$ORCHCTL\" -s \
    \"$SOCK\" show workloads | grep -q '^nouser '"
stop_orchd

# the same file starts, with warnings: the other workloads still serve
start_orchd_or_exit
check "the start warned of the missing program" \
    grep -q "$C:$lp: warning: workload \"noprog\": command: " "$T/orchd.log"
check "noprog is in the running configuration" sh -c "\"$ORCHCTL\" -s \
    \"$SOCK\" show workloads | grep -q '^noprog '"
stop_orchd

# no listen on: a warning, not an error
{ conf_head; good_wl; } >"$T/orchd.conf"
"$ORCHD" -n -f "$T/orchd.conf" >"$T/n.out" 2>&1
st=$?
check "orchd -n without listen on passes (status $st)" [ "$st" -eq 0 ]
check "with a warning" grep -q 'warning: no "listen on"' "$T/n.out"

# a TLS file that is missing, at the line that names it
{
	conf_head
	echo "listen on 127.0.0.1 port $GW"
	echo "listen on 127.0.0.1 port $((GW + 9)) tls certificate" \
	    "\"$T/no.crt\" key \"$T/dir\""
	good_wl
} >"$T/orchd.conf"
lt=$(grep -n 'no.crt' "$T/orchd.conf" | cut -d: -f1)
"$ORCHD" -n -f "$T/orchd.conf" >"$T/n.out" 2>&1
st=$?
check "orchd -n refuses a missing certificate (status $st)" [ "$st" -eq 1 ]
check "at its line" grep -q "^$C:$lt: tls certificate $T/no.crt: No such" \
    "$T/n.out"
check "and a key that is a directory, at the same line" \
    grep -q "^$C:$lt: tls key $T/dir: not a regular file" "$T/n.out"
# a global user that does not exist, at its line (not at the first
# start's failure); a root-only include is read all the same (confd
# keeps CAP_DAC_READ_SEARCH), and its user is checked too
{
	conf_head | sed 's/^user "_orchd"$/user "orchd-no-such-user"/'
	echo "listen on 127.0.0.1 port $GW"
	good_wl
} >"$T/orchd.conf"
lu=$(grep -n '^user ' "$T/orchd.conf" | cut -d: -f1)
"$ORCHD" -n -f "$T/orchd.conf" >"$T/n.out" 2>&1
st=$?
check "orchd -n refuses a global user that does not exist (status $st)" \
    [ "$st" -eq 1 ]
check "... at its line" grep -q \
    "^$C:$lu: user \"orchd-no-such-user\" does not exist" "$T/n.out"
mkdir -p "$T/private"
chmod 0700 "$T/private"
{
	conf_head
	echo "listen on 127.0.0.1 port $GW"
	echo "include \"$T/private/wl.conf\""
} >"$T/orchd.conf"
good_wl >"$T/private/wl.conf"
chmod 0600 "$T/private/wl.conf"
"$ORCHD" -n -f "$T/orchd.conf" >"$T/n.out" 2>&1
st=$?
check "a root-only include is read by confd (status $st)" [ "$st" -eq 0 ]

e2e_done
