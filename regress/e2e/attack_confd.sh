#!/bin/sh
# confd taken over (orchd-security(7)): confd reads orchd.conf as an
# unprivileged user and sends the root parent fixed records, which the
# parent checks again field by field.  Here a confd an attacker runs
# (regress/e2e/confdmitm.py, installed beside a copy of orchd as
# "confd", relaying the real one's messages with a change each time)
# sends: a workload whose user became root, no global settings, a
# number out of its range, a string without its terminator, a listener
# of an unknown address family, a listener cut short, the same workload
# twice, a message of no known type, and no END at all.  orchd -n must
# refuse each, saying why, and never crash.  A log line with escape
# sequences and an emergency priority is logged made printable, as an
# error.  Then a running orchd's reload through the spawner's confd: the
# forged root user is refused, and orchd keeps serving with its running
# configuration.  A confd that changes nothing is taken: the control.
# Loopback only, every wait bounded.
#
#	sh regress/e2e/attack_confd.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
command -v python3 >/dev/null || skip "no python3"
id mail >/dev/null 2>&1 || skip "no user mail"

port_base 43
ports GW WEB
mkdir -p "$T/bin" "$T/log" "$T/www"
chmod 0755 "$T/www"
echo hi >"$T/www/index.html"
for p in orchd spawnerd stored gatewayd reaperd runtimed acmed orchctl; do
	cp "$BUILD/$p" "$T/bin/$p"
done
cp "$BUILD/confd" "$T/bin/confd.real"
cp "$(dirname "$0")/confdmitm.py" "$T/bin/confd"
chmod 0755 "$T/bin/confd"
echo control >"$T/bin/scenario"
ORCHD=$T/bin/orchd
{
	conf_head
	cat <<CONF
listen on 127.0.0.1 port $GW
workload "victim" {
	host "victim.test"
	command "busybox httpd -f -p 127.0.0.1:$WEB -h $T/www"
	user "mail"
	port $WEB
}
CONF
} >"$T/orchd.conf"

# scenario NAME: orchd -n with that confd; its output in $T/n.out
scenario() {
	echo "$1" >"$T/bin/scenario"
	timeout 60 "$ORCHD" -n -f "$T/orchd.conf" >"$T/n.out" 2>&1
	echo $?
}

rc=$(scenario control)
check "the control: a confd that changes nothing is taken ($rc)" \
    [ "$rc" = 0 ]
for s in root nosettings range nonul family short twice unknown; do
	rc=$(scenario "$s")
	check "$s: orchd -n refuses it ($rc)" [ "$rc" = 1 ]
	check "... and says the parent refused it" \
	    grep -q "configuration refused" "$T/n.out"
	check "... no sanitizer report" \
	    sh -c "! grep -Eq 'AddressSanitizer|runtime error' '$T/n.out'"
done
rc=$(scenario root)
check "root: the reason names root" grep -qi "root" "$T/n.out"
rc=$(scenario eof)
check "eof: a confd that never says END is refused ($rc)" [ "$rc" = 1 ]
check "... and it is said" grep -q "confd: ended without an answer\|confd: exited\|confd: killed" "$T/n.out"
rc=$(scenario log)
check "log: a forged log line does not refuse a good file ($rc)" \
    [ "$rc" = 0 ]
check "... it is logged printable, without an escape byte" \
    sh -c "grep -q 'red? bell' '$T/n.out' && ! grep -q \"\$(printf '\\033')\" '$T/n.out'"

# a reload: confd started by the spawner, forging root
echo control >"$T/bin/scenario"
start_orchd_or_exit
code=$(curl -sS -m 20 -H 'Host: victim.test' -o /dev/null \
    -w '%{http_code}' "http://127.0.0.1:$GW/")
check "the victim serves ($code)" [ "$code" = 200 ]
echo root >"$T/bin/scenario"
"$ORCHCTL" -s "$SOCK" reload >"$T/reload.out" 2>&1
rc=$?
check "a reload with the forged root user is refused ($rc)" [ "$rc" != 0 ]
check "... the answer says the configuration was refused" \
    grep -q "refused" "$T/reload.out"
check "orchd still runs" alive "$ORCHD_PID"
code=$(curl -sS -m 20 -H 'Host: victim.test' -o /dev/null \
    -w '%{http_code}' "http://127.0.0.1:$GW/")
check "... and serves with its running configuration ($code)" \
    [ "$code" = 200 ]
owner=$(ps -o user= -p "$(pgrep -f "busybox httpd -f -p 127.0.0.1:$WEB" |
    head -n 1)" 2>/dev/null)
check "... the workload runs as mail, never root ($owner)" [ "$owner" = mail ]
echo control >"$T/bin/scenario"
"$ORCHCTL" -s "$SOCK" reload >/dev/null 2>&1
check "a reload with the control confd is taken" [ $? = 0 ]
stop_orchd
e2e_done
