#!/bin/sh
# Attacks on volumes (issue 28, items 1, 2 and 13), replayed against a
# live orchd with API docker workloads of the busybox test image:
#
# 1. a volume swapped for a link after its check: workload A makes a
#    link to / inside its own volume (ln -s / x); workload B, created
#    earlier with a volume on .../x, wakes: the host's / must never be
#    mounted in B (a marker file of the host's /tmp is never served);
# 2. a volume path that does not exist, through a link planted under the
#    allowed root: nothing may be made where the link leads;
# 3. a link planted at ROOT/INSTANCE/NAME before a wake: the wake fails,
#    with the reason, and nothing is made where it leads;
# 4. an orchd.conf volume swapped for a link to /etc after orchd started:
#    refused at its wake, no container made;
# 5. orchd -n warns about root-equivalent volumes of the operator's file.
#
# An API volume is a name: orchd makes ROOT/INSTANCE/NAME/SOURCE itself.
# Either the attack is refused at create (403) or its wake runs and must not
# reach the host.  Loopback only, network host, every wait bounded; the
# containers made here are removed.
#
#	sh regress/e2e/attack_volume.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
need_docker
ensure_user

IMAGE=orchd-test/busybox:latest
TAG=vol$$
A=${TAG}a
B=${TAG}b
C=${TAG}c
D=${TAG}d
OP=${TAG}op
KEY=e2e-attack-volume-$$-0123456789abcdef
port_base 13
ports GW API PA PB PC PD POP

# the allowed root, and what lies outside it, outside $T (orchd.conf's
# directory is no volume's)
S=$(mktemp -d /tmp/vol-e2e.XXXXXX)
chmod 0755 "$S"
ROOT=$S/root
IROOT=$ROOT/$E2E_INSTANCE	# this instance's: orchd makes it
OUT=$S/out			# where planted links lead: nothing made in it
OPV=$S/op			# the operator's volume
MARK=/tmp/vol-mark-$$		# on the host's /: never served by B
mkdir -m 0755 "$ROOT" "$OUT" "$OPV" "$OPV/data"
echo "host-marker-$$" >"$MARK"
chmod 0644 "$MARK"

vol_cleanup() {
	if [ -n "$ORCHD_PID" ] && kill -0 "$ORCHD_PID" 2>/dev/null; then
		kill -TERM "$ORCHD_PID" 2>/dev/null
		wait_gone "$ORCHD_PID" 15
	fi
	for n in $A $B $C $D $OP; do
		docker rm -f "$(cname "$n")" >/dev/null 2>&1
	done
	rm -rf "$S" "$MARK"
	e2e_cleanup
}
trap vol_cleanup EXIT

printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
mkdir -p "$T/log"
{
	conf_head
	cat <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
api allow image "orchd-test/*"
api allow volume "$ROOT"
# the bodies say network host: --bridge=none here
api allow network host

workload "$OP" {
	host "$OP.test"
	driver docker
	image "$IMAGE"
	network host
	command "httpd -f -p 127.0.0.1:$POP -h /data"
	port $POP
	volume "$OPV/data" "/data"
}
CONF
} >"$T/orchd.conf"

URL=http://127.0.0.1:$API
post() {	# post BODY: the body, then the status on a line of its own
	curl -s -m 30 -H "Authorization: Bearer $KEY" -w '\n%{http_code}' \
	    -X POST --data-binary "$1" "$URL/v1/workloads"
}
last() { printf '%s\n' "$1" | tail -n 1; }
# body NAME PORT HOSTPATH CONTAINERPATH COMMAND
body() {
	printf '{"name": "%s", "hosts": ["%s.test"], "driver": "docker", "image": "%s", "network": "host", "port": %s, "command": "%s", "volumes": [{"host": "%s", "container": "%s"}]}' \
	    "$1" "$1" "$IMAGE" "$2" "$5" "$3" "$4"
}
get() {	# get NAME PATH: the status, then the body
	curl -s -m 60 -H "Host: $1.test" -w '\n%{http_code}' \
	    "http://127.0.0.1:$GW$2"
}
ctl_msg() {	# ctl_msg NAME: its state line and last failure
	"$ORCHCTL" -s "$SOCK" show workload "$1" 2>&1
}
# on $out and $st, the last answer
said() { [ "$(last "$out")" = "$1" ] && printf '%s' "$out" | grep -q -- "$2"; }
not_said() { ! printf '%s' "$out" | grep -q -- "$1"; }
served() { case "$(last "$out")" in 200|404) true ;; *) false ;; esac; }
refused() { [ "$st" = 403 ] || [ "$st" = 400 ]; }
state_says() { ctl_msg "$1" | grep -q -- "$2"; }
not_in() { ! grep -q -- "$1" "$2"; }
no_container() { ! docker container inspect "orchd-$1" >/dev/null 2>&1; }

start_orchd_or_exit

# -- attack 1: B created first, on a path that A will turn into a link
#    to /.  The volume is given as the issue's attacker gave it (an
#    absolute path under the root); where the API takes names only, the
#    same trick through a name is tried as well.
ADIR=$ROOT/a
out=$(post "$(body "$A" "$PA" "$ADIR" /x "sh -c 'rm -rf /x/x; ln -s / /x/x; exec httpd -f -p 127.0.0.1:$PA -h /x'")")
if [ "$(last "$out")" != 201 ]; then
	check "attack 1: an absolute API volume is refused 403 naming the rule (got $(last "$out"))" \
	    said 403 'must be a name'
	ADIR=$IROOT/$A/data
	out=$(post "$(body "$A" "$PA" data /x "sh -c 'rm -rf /x/x; ln -s / /x/x; exec httpd -f -p 127.0.0.1:$PA -h /x'")")
fi
check "attack 1: workload A is created (got $(last "$out"))" \
    [ "$(last "$out")" = 201 ]
bst=
for src in "$ADIR/x" "$A/data/x" "../$A/data/x" ".." "."; do
	out=$(post "$(body "$B" "$PB" "$src" /mnt "httpd -f -p 127.0.0.1:$PB -h /mnt")")
	st=$(last "$out")
	[ "$st" = 201 ] && { bst=$src; break; }
	check "attack 1: B's volume \"$src\" is refused (got $st)" refused
done
check "attack 1: no volume of B on A's volume is accepted (accepted: \"$bst\")" \
    [ -z "$bst" ]
out=$(get "$A" /)
check "attack 1: A wakes and makes its link (got $(last "$out"))" \
    [ -L "$ADIR/x" ]
if [ -n "$bst" ]; then
	out=$(get "$B" "$MARK")
	check "attack 1: the host's / is not mounted in B (got $(last "$out"))" \
	    not_said "host-marker-$$"
fi

# -- attack 2: a path that does not exist, through a link planted under
#    the root, to a directory outside it
ln -s "$OUT" "$ROOT/planted"
out=$(post "$(body "$C" "$PC" "$ROOT/planted/sub" /x "httpd -f -p 127.0.0.1:$PC -h /x")")
st=$(last "$out")
check "attack 2: a volume through a planted link is refused (got $st)" refused
[ "$st" = 201 ] && get "$C" / >/dev/null
check "attack 2: nothing is made where the link leads" [ ! -e "$OUT/sub" ]
rm -f "$ROOT/planted"

# -- 3: a link planted at ROOT/INSTANCE/NAME before the first wake
out=$(post "$(body "$D" "$PD" data /x "httpd -f -p 127.0.0.1:$PD -h /x")")
check "a workload with a volume named \"data\" is created (got $(last "$out"))" \
    [ "$(last "$out")" = 201 ]
ln -s "$OUT" "$IROOT/$D"
out=$(get "$D" /)
check "a link at ROOT/INSTANCE/NAME: the wake fails (got $(last "$out"))" \
    [ "$(last "$out")" = 503 ]
check "... with the reason in its state" state_says "$D" link
check "... and in the log" grep -q "workload $D.*link" "$T/orchd.log"
check "... no container was made" no_container "$D"
check "... nothing is made where the link leads" [ ! -e "$OUT/data" ]
rm -f "$IROOT/$D"
out=$(get "$D" /)
check "the link gone, the next wake works (got $(last "$out"))" served
check "... ROOT/INSTANCE/NAME is root's, 0755" \
    [ "$(stat -c '%u %a' "$IROOT/$D" 2>/dev/null)" = "0 755" ]
check "... ROOT/INSTANCE/NAME/data is a directory, mode 0700" \
    [ "$(stat -c '%F %a' "$IROOT/$D/data" 2>/dev/null)" = "directory 700" ]

# -- 4: the operator's volume swapped for a link to /etc after start
rm -rf "$OPV/data"
ln -s /etc "$OPV/data"
out=$(get "$OP" /passwd)
check "an orchd.conf volume now a link to /etc: the wake fails (got $(last "$out"))" \
    [ "$(last "$out")" = 503 ]
check "... the reason names /etc" state_says "$OP" /etc
check "... no container was made" no_container "$OP"

# -- 5: orchd -n warns about root-equivalent volumes of the file
{
	conf_head
	echo "listen on 127.0.0.1 port $GW"
	echo "workload \"warn\" {"
	echo "	host \"warn.test\""
	echo "	driver docker"
	echo "	image \"$IMAGE\""
	echo "	port $PA"
	n=0
	for p in /root /root/.ssh /usr/bin /var/lib/docker /var/spool/cron \
	    /lib/systemd/system /var/lib; do
		n=$((n + 1))
		echo "	volume \"$p\" \"/v$n\""
	done
	echo "	volume \"$S/fine\" \"/fine\""
	echo "}"
} >"$T/warn.conf"
"$ORCHD" -n -f "$T/warn.conf" >"$T/warn.out" 2>&1
st=$?
check "orchd -n: root-equivalent volumes are no error (exit $st)" [ "$st" -eq 0 ]
for p in /root /root/.ssh /usr/bin /var/lib/docker /var/spool/cron \
    /lib/systemd/system /var/lib; do
	check "orchd -n warns about volume \"$p\"" \
	    grep -q "volume \"$p\".*root" "$T/warn.out"
done
check "... but not about $S/fine" not_in "$S/fine" "$T/warn.out"

e2e_done
