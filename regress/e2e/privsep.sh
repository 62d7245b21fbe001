#!/bin/sh
# The process tree: four children, each as the unprivileged user in its
# chroot with no_new_privs; orchctl answers; SIGHUP with a broken config
# keeps the daemon up; a dead child stops orchd; SIGTERM leaves nothing.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

mkdir -p "$T/log"
write_conf() {
	conf_head >"$T/orchd.conf"
	cat >>"$T/orchd.conf" <<CONF
idle timeout 5m

workload "hello" {
	host "hello.localhost"
	command "/bin/busybox httpd -f -p 127.0.0.1:18081"
	port 18081
}
CONF
}
write_conf

uid=$(id -u _orchd)

# -n: checks and exits
check "orchd -n accepts the config" "$ORCHD" -n -f "$T/orchd.conf"

check "orchd starts and orchctl show summary answers" start_orchd

for name in store gateway reaper runtime; do
	pid=$(child "$name")
	if [ -z "$pid" ]; then
		fail "$name is running"
		continue
	fi
	ok "$name is running (pid $pid)"
	check "$name runs as _orchd" \
	    grep -Eq "^Uid:[[:space:]]+$uid[[:space:]]+$uid[[:space:]]+$uid" \
	    "/proc/$pid/status"
	check "$name has no_new_privs" \
	    grep -Eq '^NoNewPrivs:[[:space:]]+1' "/proc/$pid/status"
	check "$name holds no capabilities" \
	    grep -Eq '^CapEff:[[:space:]]+0+$' "/proc/$pid/status"
	root=$(readlink "/proc/$pid/root")
	case $name in
	store)	want=$T/db ;;
	# an empty read-only file system on the chroot (orchd-security(7))
	runtime) want=/var/empty ;;
	*)	want=/var/empty ;;
	esac
	check "$name is chrooted to $want (root is $root)" [ "$root" = "$want" ]
done

# runtimed's root holds nothing it can write: only the Docker socket's
# directory, bound read-only, on an empty read-only tmpfs, in a mount
# namespace of its own.  Tried with its own credentials (its user, its
# group, the socket's group) in every directory it can see.
rt=$(child runtime)
sockdir=$(dirname "$(realpath -m /var/run/docker.sock)")
top=$(echo "$sockdir" | cut -d/ -f2)
check "runtimed's root holds only /$top ($(ls -A "/proc/$rt/root" | tr '\n' ' '))" \
    [ "$(ls -A "/proc/$rt/root")" = "$top" ]
check "runtimed's mount namespace is not ours" \
    [ "$(readlink "/proc/$rt/ns/mnt")" != "$(readlink /proc/self/ns/mnt)" ]
check "every mount runtimed sees is read-only" \
    sh -c "! awk '\$6 !~ /^ro(,|\$)/' '/proc/$rt/mountinfo' | grep -q ."
groups=$(sed -n 's/^Groups:[[:space:]]*//p' "/proc/$rt/status" | tr -s ' \t' ',' |
    sed 's/,$//')
if command -v nsenter >/dev/null && command -v setpriv >/dev/null; then
	nsenter -t "$rt" -m setpriv --reuid="$uid" --regid="$(id -g _orchd)" \
	    --groups="${groups:-$(id -g _orchd)}" sh -c '
	n=0
	for d in $(find /var/empty -xdev -type d 2>/dev/null) \
	    $(find /var/empty'"$sockdir"' -xdev -type d 2>/dev/null); do
		n=$((n + 1))
		( : 2>/dev/null >"$d/.orchd-e2e" ) 2>/dev/null &&
		    echo "wrote in $d"
		mkdir "$d/.orchd-e2e.d" 2>/dev/null &&
		    echo "made a directory in $d"
	done
	echo "$n directories"' >"$T/rtwrite.out" 2>&1
	check "runtimed's credentials write nowhere in its root ($(tail -1 \
	    "$T/rtwrite.out"))" sh -c "! grep -q '^wrote\|^made' '$T/rtwrite.out'"
	grep '^wrote\|^made' "$T/rtwrite.out" | head -5
else
	echo "skipped the write test: no nsenter or setpriv"
fi

out=$("$ORCHCTL" -s "$SOCK" show summary)
echo "$out"
for name in parent store gateway reaper runtime; do
	check "show summary lists $name" \
	    sh -c "echo \"\$1\" | grep -q \"^$name \"" sh "$out"
done
gwpid=$(child gateway)
check "show summary gives the gateway's pid" \
    sh -c "echo \"\$1\" | grep -Eq \"^gateway +$gwpid \"" sh "$out"

check "orchctl -j show summary is JSON" \
    sh -c "\"$ORCHCTL\" -j -s \"$SOCK\" show summary | grep -q '\"process\"'"
check "orchctl log verbose" "$ORCHCTL" -s "$SOCK" log verbose
check "orchctl log brief" "$ORCHCTL" -s "$SOCK" log brief
check "orchctl reload" "$ORCHCTL" -s "$SOCK" reload
check "reload made configuration 2" \
    sh -c "\"$ORCHCTL\" -s \"$SOCK\" show summary | grep -Eq '^gateway .* 2 *$'"

# garbage on the control socket drops that client, nothing else
check "curl speaking HTTP to the control socket is dropped" \
    sh -c "! curl -s -m 5 --unix-socket \"$SOCK\" http://x/ >/dev/null 2>&1"
check "orchd survives garbage on the control socket" \
    "$ORCHCTL" -s "$SOCK" show summary

# well-framed messages the control socket must refuse: an unknown type,
# a known type with the wrong length; each drops that client only
printf '\017\047\000\000\024\000\000\000\000\000\000\000\001\000\000\000\000\000\000\000' |
    "$BUILD/regress/testhttp" unix "$SOCK" 5 >"$T/unknown.out"
check "an unknown message type drops the client" grep -q closed "$T/unknown.out"
printf '\147\000\000\000\026\000\000\000\000\000\000\000\001\000\000\000\000\000\000\000\001\000' |
    "$BUILD/regress/testhttp" unix "$SOCK" 5 >"$T/shortverbose.out"
check "a message of the wrong length drops the client" \
    grep -q closed "$T/shortverbose.out"
check "orchd logs why" grep -q "length 2, want 4" "$T/orchd.log"
check "orchd survives both" "$ORCHCTL" -s "$SOCK" show summary

# a broken config on SIGHUP: refused, old one kept
echo 'bogus keyword here' >>"$T/orchd.conf"
kill -HUP "$ORCHD_PID"
check "SIGHUP with a broken config is refused" \
    wait_for 10 grep -q "has errors, not reloading" "$T/orchd.log"
check "orchd is still up after the broken SIGHUP" \
    "$ORCHCTL" -s "$SOCK" show summary
check "the old configuration is kept" \
    sh -c "\"$ORCHCTL\" -s \"$SOCK\" show summary | grep -Eq '^gateway .* 2 *$'"
check "orchctl reload with a broken config fails" \
    sh -c "! \"$ORCHCTL\" -s \"$SOCK\" reload 2>/dev/null"
write_conf

# a second orchd must not steal the socket
"$ORCHD" -d -f "$T/orchd.conf" >"$T/second.log" 2>&1
check "a second orchd refuses to start" [ $? -ne 0 ]
# its instance name is held first (orchd-workload.7, instances sharing a host),
# the socket after
check "and says why" grep -Eq "in use|is taken" "$T/second.log"

# killing a child stops orchd, non-zero
pids=$(pgrep -P "$ORCHD_PID" | tr '\n' ' ')
kill -KILL "$gwpid"
orchd_status; st=$STATUS
check "orchd exits non-zero when a child dies (status $st)" [ "$st" -ne 0 ]
check "orchd logs the lost child" grep -q "lost child: gateway" "$T/orchd.log"
cat "$T/orchd.log" | tail -5
leftover=
for p in $pids; do alive "$p" && leftover="$leftover $p"; done
check "no child left behind after a lost child ($leftover)" [ -z "$leftover" ]

# SIGTERM: clean exit, no process left, socket removed
check "orchd starts again" start_orchd
pids=$(pgrep -P "$ORCHD_PID" | tr '\n' ' ')
stop_orchd; st=$STATUS
check "SIGTERM: orchd exits 0 (status $st)" [ "$st" -eq 0 ]
leftover=
for p in $pids; do wait_gone "$p" 5 || leftover="$leftover $p"; done
check "SIGTERM leaves no process behind ($leftover)" [ -z "$leftover" ]
check "SIGTERM removes the control socket" [ ! -e "$SOCK" ]

# a config with errors: nothing starts
printf 'workload "x" {\n\tport 99999\n}\n' >"$T/bad.conf"
"$ORCHD" -d -f "$T/bad.conf" >"$T/bad.log" 2>&1
check "orchd with a bad config exits 1" [ $? -eq 1 ]
check "the error names file and line" grep -q "bad.conf:2:" "$T/bad.log"
check "nothing was started" [ ! -e "$SOCK" ]

# a child takes its user as the numbers the parent looked up, so that
# none of them reads the passwd database: a name, or junk, is refused
for u in _orchd 1 1:x 1:2:3 -1:1; do
	"$(dirname "$ORCHD")/reaperd" -u "$u" -c /var/empty >"$T/child.out" 2>&1
	st=$?
	check "reaperd -u $u: usage, status 1 ($st)" \
	    sh -c "[ $st -eq 1 ] && grep -q 'usage: reaper .*-u uid:gid' '$T/child.out'"
done

# where runtimed's private root cannot be made, it is chrooted to the
# socket's directory as before, with a warning.  Made to fail here by a
# socket's directory too deep for the tmpfs's few inodes (orchd-security(7)).
deep=$T/deep
i=0
while [ $i -lt 40 ]; do
	deep=$deep/d
	i=$((i + 1))
done
mkdir -p "$deep"
write_conf
echo "docker socket \"$deep/docker.sock\"" >>"$T/orchd.conf"
: >"$T/orchd.log"
if start_orchd; then
	ok "orchd starts with the socket's directory 40 deep"
	rt=$(child runtime)
	check "runtimed warns that it has no private root" \
	    grep -q "runtime: no private root (mkdir: " "$T/orchd.log"
	check "and is chrooted to the socket's directory" \
	    [ "$(readlink "/proc/${rt:-0}/root")" = "$deep" ]
	stop_orchd
	check "and stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]
else
	fail "orchd starts with the socket's directory 40 deep"
	tail -5 "$T/orchd.log"
fi

ORCHD_PID=
e2e_done
