#!/bin/sh
# A database directory an operator made by hand (issue 35): an empty one
# of root's, named for orchd, as "mkdir /var/lib/orchd" makes it, is
# given to the user, mode 0700, and the start goes on; orchd -n passes
# it.  Any other that is not the user's (one with files in it, one not
# named for orchd, one others can write to) stops orchd -n and the start
# with a message that names its owner and mode and what the store needs,
# never "store: fatal"; nothing in it is changed.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

port_base 59
ports GW P_A
testhttp_bin

write_conf() {	# write_conf DATABASE-DIRECTORY
	conf_head | sed "s|^database .*|database \"$1/orchd.db\"|" \
	    >"$T/orchd.conf"
	cat >>"$T/orchd.conf" <<CONF
listen on 127.0.0.1 port $GW
workload "h35db" {
	host "a.test"
	command "$T/bin/testhttp serve $P_A"
	port $P_A
}
CONF
}
owner() { stat -c '%U %a' "$1"; }

# -- refused: root's, 0755, with a file in it
D=$T/orchd-full
mkdir -m 0755 "$D"
echo "the operator's" >"$D/notes"
write_conf "$D"
"$ORCHD" -n -f "$T/orchd.conf" >"$T/n1.out" 2>&1
st=$?
check "orchd -n: a non-empty directory of root's is refused (status $st)" \
    [ "$st" -ne 0 ]
check "... naming its owner and mode" \
    grep -q "database directory $D is owned by root, mode 0755" "$T/n1.out"
check "... and what the store needs" \
    grep -q "the store runs as _orchd and needs it its own, mode 0700" \
    "$T/n1.out"
timeout 30 "$ORCHD" -d -f "$T/orchd.conf" >"$T/s1.out" 2>&1
st=$?
check "the start is refused too (status $st)" [ "$st" -ne 0 ]
check "... with the same message" \
    grep -q "database directory $D is owned by root, mode 0755" "$T/s1.out"
check "... not the store's fatal error" \
    sh -c "! grep -q 'store: fatal' '$T/s1.out'"
check "... the directory untouched" [ "$(owner "$D")" = "root 755" ]
check "... and its file" [ "$(owner "$D/notes")" = "root 644" ]

# -- refused: empty, but not named for orchd
D=$T/mydata
mkdir -m 0755 "$D"
write_conf "$D"
"$ORCHD" -n -f "$T/orchd.conf" >"$T/n2.out" 2>&1
st=$?
check "orchd -n: an empty one not named for orchd is refused ($st)" \
    [ "$st" -ne 0 ] && grep -q "is owned by root, mode 0755" "$T/n2.out"

# -- refused: empty, named for orchd, but others may write to it
D=$T/orchd-open
mkdir "$D"
chmod 0777 "$D"
write_conf "$D"
"$ORCHD" -n -f "$T/orchd.conf" >"$T/n3.out" 2>&1
st=$?
check "orchd -n: one others can write to is refused ($st)" \
    [ "$st" -ne 0 ] && grep -q "mode 0777" "$T/n3.out"

# -- refused: made at start, but not the directories above it
write_conf "$T/nosuch/orchd"
"$ORCHD" -n -f "$T/orchd.conf" >"$T/n4.out" 2>&1
st=$?
check "orchd -n: a database directory whose parent is missing ($st)" \
    [ "$st" -ne 0 ] && grep -q "not the directories above it" "$T/n4.out"
# ... while a missing one whose parent is there is made at start
write_conf "$T/orchd-new"
check "orchd -n passes a missing one whose parent is there" \
    "$ORCHD" -n -f "$T/orchd.conf"

# -- given: empty, root's, 0755, named for orchd
D=$T/orchd-db
mkdir -m 0755 "$D"
write_conf "$D"
check "orchd -n passes an empty one of root's named for orchd" \
    "$ORCHD" -n -f "$T/orchd.conf"
check "... and changes nothing" [ "$(owner "$D")" = "root 755" ]
start_orchd_or_exit
check "the start gives it to _orchd, mode 0700" \
    [ "$(owner "$D")" = "_orchd 700" ]
check "... the log says so" \
    grep -q "database directory $D: root's and empty, given to _orchd" \
    "$T/orchd.log"
check "... the store writes its database there" \
    wait_for 10 test -s "$D/orchd.db"
check "... and no fatal error" sh -c "! grep -q 'fatal' '$T/orchd.log'"
check "the workload answers" \
    sh -c "curl -s -m 20 -H 'Host: a.test' http://127.0.0.1:$GW/ | grep -q ."
stop_orchd
# a second start: it is the user's now, and not empty
start_orchd_or_exit
check "a second start takes it as it is" [ "$(owner "$D")" = "_orchd 700" ]
stop_orchd
e2e_done
