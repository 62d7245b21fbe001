#!/bin/sh
# make STATIC=1, which make check builds beside its own build (BUILD-static):
# every daemon linked statically, no shared libc mapped, the parent reading
# users and groups from /etc/passwd and /etc/group and handing each child
# its user as numbers.  The process tree drops to the user and its chroot,
# a process workload is woken through the gateway and runs as its user with
# that user's groups, and a user that /etc/passwd lacks is refused with a
# clear error (a static glibc's name service crashed there).
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

SBUILD=$BUILD-static
if [ ! -x "$SBUILD/orchd" ]; then
	echo "skipped: no static build in $SBUILD (make check builds it)"
	e2e_done
	exit 0
fi
ORCHD=$SBUILD/orchd
ORCHCTL=$SBUILD/orchctl

# the workload's user, with a group of its own beyond its primary one
getent group _orchdsup >/dev/null || groupadd -r _orchdsup ||
    fail "groupadd _orchdsup"
getent passwd _orchdst >/dev/null ||
    useradd -r -M -d /var/empty -s /usr/sbin/nologin -G _orchdsup \
    _orchdst || fail "useradd _orchdst"

ports GW P_HELLO
mkdir -p "$T/log" "$T/www"
echo hello >"$T/www/index.html"
chmod -R a+rX "$T/www"

write_conf() {	# write_conf USER
	conf_head >"$T/orchd.conf"
	sed -i "s/^user .*/user \"$1\"/" "$T/orchd.conf"
	cat >>"$T/orchd.conf" <<CONF
listen on 127.0.0.1 port $GW
idle timeout 5m

workload "hello" {
	host "hello.localhost"
	command "/bin/busybox httpd -f -p 127.0.0.1:$P_HELLO -h $T/www"
	port $P_HELLO
	user "_orchdst"
}
CONF
}

# a user that is not in /etc/passwd: a message, status 1, no crash
write_conf orchd-no-such-user
"$ORCHD" -d -f "$T/orchd.conf" >"$T/nouser.log" 2>&1
st=$?
check "a user missing from /etc/passwd stops orchd with status 1 ($st)" \
    [ "$st" -eq 1 ]
check "and says so" \
    grep -q 'user orchd-no-such-user does not exist' "$T/nouser.log"

write_conf _orchd
check "orchd -n accepts the configuration" "$ORCHD" -n -f "$T/orchd.conf"
check "orchd starts" start_orchd

uid=$(id -u _orchd)
gid=$(id -g _orchd)
for name in parent store gateway reaper runtime; do
	if [ "$name" = parent ]; then
		pid=$ORCHD_PID
	else
		pid=$(child "$name")
	fi
	if [ -z "$pid" ]; then
		fail "$name is running"
		continue
	fi
	check "$name maps no shared libc" \
	    sh -c "! grep -q 'libc\\.so' /proc/$pid/maps"
	[ "$name" = parent ] && continue
	check "$name runs as _orchd ($uid:$gid)" sh -c \
	    "grep -Eq '^Uid:[[:space:]]+$uid[[:space:]]+$uid[[:space:]]+$uid' /proc/$pid/status &&
	    grep -Eq '^Gid:[[:space:]]+$gid[[:space:]]+$gid[[:space:]]+$gid' /proc/$pid/status"
done
sp=$(child spawner)
check "the spawner, a program of its own, maps no shared libc" \
    sh -c "[ -n '$sp' ] && ! grep -q 'libc\\.so' /proc/$sp/maps"
check "the gateway is chrooted to /var/empty" \
    [ "$(readlink "/proc/$(child gateway)/root")" = /var/empty ]

# the workload: woken by a request, as its user with that user's groups
body=$(curl -s -m 10 -H 'Host: hello.localhost' "http://127.0.0.1:$GW/")
check "a request wakes the workload and is answered ($body)" \
    [ "$body" = hello ]
wpid=$(pgrep -f "busybox httpd -f -p 127.0.0.1:$P_HELLO" | head -n 1)
if [ -n "$wpid" ]; then
	want=$(id -G _orchdst | tr ' ' '\n' | sort -n | tr '\n' ' ')
	got=$(sed -n 's/^Groups:[[:space:]]*//p' "/proc/$wpid/status" |
	    tr ' \t' '\n\n' | grep . | sort -n | tr '\n' ' ')
	check "the workload runs as _orchdst" grep -Eq \
	    "^Uid:[[:space:]]+$(id -u _orchdst)[[:space:]]" "/proc/$wpid/status"
	check "with its groups (/etc/group: $want; has: $got)" \
	    [ "$want" = "$got" ]
	check "two of them, the supplementary one included" \
	    [ "$(echo "$got" | wc -w)" -eq 2 ]
else
	fail "the workload is running"
fi
check "orchctl suspend hello" "$ORCHCTL" -s "$SOCK" suspend hello
no_hello() {	# run here: an sh -c's own command line would match
	! pgrep -f "busybox httpd -f -p 127.0.0.1:$P_HELLO" >/dev/null
}
check "the workload stopped" wait_for 10 no_hello

stop_orchd
check "orchd exits 0 on SIGTERM ($STATUS)" [ "$STATUS" -eq 0 ]
ORCHD_PID=
e2e_done
