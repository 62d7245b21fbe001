#!/bin/sh
# Attacks on the no-change reload (issue 38, orchd-security(7)): a
# changed input must never pass as unchanged.  confd digests the bytes
# it parses, keyed by the parent's key, and compares them, not sizes or
# times: an included file changed with its size and mtime kept, a file
# changed and then put back to the bytes of a configuration before the
# running one, a broken file reloaded twice, an include pattern's file
# made a FIFO (no hang).  A workload created through the API stays
# across a no-change reload.  Then a confd taken over
# (regress/e2e/confdmitm.py) sends a "no change" unasked (orchd -n),
# after a piece of a configuration (a reload), an inputs' digest
# announcing too many records, a record of no known kind, one
# unterminated, one more than announced: each is refused.  The control:
# a plain no-change reload says so, which main's orchd never does.
#
#	sh regress/e2e/attack_nochange.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
command -v python3 >/dev/null || skip "no python3"

ports GW
P=$((GW + 1))
mkdir -p "$T/log" "$T/d" "$T/bin"

wl() {	# wl NAME PORT: a process workload never woken
	printf 'workload "%s" {\n\thost "%s.test"\n' "$1" "$1"
	printf '\tcommand "/bin/sleep 600"\n\tport %d\n}\n' "$2"
}
{
	conf_head
	echo "listen on 127.0.0.1 port $GW"
	echo "api allow process"
	echo "api key file \"$T/api.key\""
	echo "include \"$T/inc.conf\""
	echo "include \"$T/d/*.conf\""
} >"$T/orchd.conf"
wl victim $((GW + 11)) >"$T/inc.conf"
openssl rand -hex 16 >"$T/api.key"
chmod 0600 "$T/api.key"
wl other $((GW + 12)) >"$T/d/a.conf"
for p in orchd spawnerd stored gatewayd reaperd runtimed acmed orchctl; do
	cp "$BUILD/$p" "$T/bin/$p"
done
cp "$BUILD/confd" "$T/bin/confd.real"
cp "$(dirname "$0")/confdmitm.py" "$T/bin/confd"
chmod 0755 "$T/bin/confd"
echo control >"$T/bin/scenario"
ORCHD=$T/bin/orchd
start_orchd_or_exit

ctl() {
	"$ORCHCTL" -s "$SOCK" "$@" >"$T/out" 2>&1
	rc=$?
	return $rc
}
same() { grep -q "^no change" "$T/out"; }
notsame() { ! same; }

# -- the control: the first reload reads all, the second is no change
ctl reload
ctl reload
check "control: a reload with nothing changed says no change ($rc)" same

# -- 1. same size, same mtime, other bytes
cp -p "$T/inc.conf" "$T/inc.orig"
sed "s/port $((GW + 11))/port $((GW + 13))/" "$T/inc.orig" >"$T/inc.new"
cat "$T/inc.new" >"$T/inc.conf"
touch -r "$T/inc.orig" "$T/inc.conf"
check "the size is the same" \
    [ "$(stat -c %s "$T/inc.conf")" = "$(stat -c %s "$T/inc.orig")" ]
check "the mtime is the same" \
    [ "$(stat -c %Y "$T/inc.conf")" = "$(stat -c %Y "$T/inc.orig")" ]
ctl reload
check "same size and mtime, other bytes: not no change ($rc)" notsame
check "... the workload is reported changed" \
    grep -qx "workload victim changed" "$T/out"

# -- 2. the bytes of the configuration before the running one
cat "$T/inc.orig" >"$T/inc.conf"
ctl reload
check "back to an older file: not no change ($rc)" notsame
check "... the workload is reported changed again" \
    grep -qx "workload victim changed" "$T/out"
ctl reload
check "then no change ($rc)" same

# -- 3. a broken file is refused at every reload, never no change
cp "$T/inc.conf" "$T/inc.good"
echo "bogus" >>"$T/inc.conf"
ctl reload
check "a broken file is refused ($rc)" [ "$rc" -ne 0 ]
ctl reload
check "... and refused again, not no change ($rc)" [ "$rc" -ne 0 ]
cp "$T/inc.good" "$T/inc.conf"
ctl reload
check "the good file back: no change ($rc)" same

# -- 4. a glob's file made a FIFO: no hang, refused
rm -f "$T/d/a.conf"
mkfifo "$T/d/a.conf"
t0=$(now_ms)
ctl reload
t1=$(now_ms)
check "a FIFO in the include pattern is refused ($rc)" [ "$rc" -ne 0 ]
check "... without waiting on it ($((t1 - t0)) ms)" [ $((t1 - t0)) -lt 10000 ]
rm -f "$T/d/a.conf"
wl other $((GW + 12)) >"$T/d/a.conf"
ctl reload
check "the file back: no change ($rc)" same

# -- a file the parent reads itself (the API key), its bytes the same:
# made readable by others, then a link to a copy, each refused as a
# whole reading refuses it, never "no change"
chmod 0644 "$T/api.key"
ctl reload
check "a key file made readable by others: refused ($rc)" \
    sh -c "[ $rc -ne 0 ] && ! grep -q '^no change' '$T/out'"
chmod 0600 "$T/api.key"
ctl reload
check "its mode back: reloaded ($rc)" [ "$rc" -eq 0 ]
ctl reload
check "... then no change ($rc)" same
cp -p "$T/api.key" "$T/api.key.copy"
mv "$T/api.key" "$T/api.key.orig"
ln -s "$T/api.key.copy" "$T/api.key"
ctl reload
check "a key file made a link to the same bytes: refused ($rc)" \
    sh -c "[ $rc -ne 0 ] && ! grep -q '^no change' '$T/out'"
rm -f "$T/api.key"
mv "$T/api.key.orig" "$T/api.key"
ctl reload
check "the file back: reloaded ($rc)" [ "$rc" -eq 0 ]

# -- 5. a workload created through the API stays
ctl create apiwl --command "/bin/sleep 600" --host apiwl.test \
    --port $((GW + 14))
check "an API workload is created ($rc)" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || sed 's/^/#	/' "$T/out"
ctl reload
check "a reload after it: no change ($rc)" same
check "... the API workload is still there" sh -c \
    "\"$ORCHCTL\" -s \"$SOCK\" show workloads | grep -q '^apiwl '"

# -- 6. a confd that says "no change" after a piece of a configuration
wl victim $((GW + 15)) >"$T/inc.conf"
echo sameafter >"$T/bin/scenario"
ctl reload
check "sameafter: a no change after a setting is refused ($rc)" \
    [ "$rc" -ne 0 ]
check "... it is said" grep -q "unasked" "$T/orchd.log"
echo control >"$T/bin/scenario"
ctl reload
check "the control confd then reads the change ($rc)" notsame
check "orchd still runs" alive "$ORCHD_PID"
stop_orchd

# -- 7. orchd -n with a forging confd: each refused
nscenario() {
	echo "$1" >"$T/bin/scenario"
	timeout 60 "$ORCHD" -n -f "$T/orchd.conf" >"$T/n.out" 2>&1
	echo $?
}
rc=$(nscenario control)
check "orchd -n with the control confd ($rc)" [ "$rc" = 0 ]
for s in same manyinputs inputkind inputnonul inputextra; do
	rc=$(nscenario "$s")
	check "$s: orchd -n refuses it ($rc)" [ "$rc" = 1 ]
	check "... and says the parent refused it" \
	    grep -q "configuration refused" "$T/n.out"
	check "... no sanitizer report" \
	    sh -c "! grep -Eq 'AddressSanitizer|runtime error' '$T/n.out'"
done
e2e_done
