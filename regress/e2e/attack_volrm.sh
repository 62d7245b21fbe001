#!/bin/sh
# A deleted API workload's volumes are removed by a child of the spawner
# (spawnerd/volrm.c), not in the root parent's event loop:
#
#   stall    W1's volume holds $NF files: while DELETE ?volumes=true runs,
#            orchctl show version answers within 0.5 s, a reload within 5 s,
#            and the delete is answered once the directory is gone.  On
#            an orchd that removes them in the parent's loop a probe
#            waits for the whole walk: the test fails there.
#   race     W2's volume is being removed when W2 is created again: the
#            create is refused 409 ("still being removed"), never let
#            into the directory that is going; once the delete is
#            answered the create succeeds, and nothing of the old volume
#            is there.  On the old orchd no create is ever answered
#            while the walk runs: it fails there.
#   escape   W3 (woken: its volume is its uid's) plants links to a
#            directory of the host's and to /, a directory it made
#            0000, and root puts a directory of root's in it: the links
#            are removed as links, the 0000 one is removed, the
#            directory of root's is left (the walk inside a volume has
#            the workload's ids: it can remove nothing the workload
#            could not), and the delete says not all were removed.
#            The old orchd removed root's directory too: it fails there.
#   names    delete --project ../INSTANCE/x --volumes and the API's DELETE
#            of ..%2FINSTANCE%2Fx are refused; W4's directory replaced
#            by a link to the host's directory is left, the host's
#            directory untouched.
#   flood    six deletes with their volumes at once: at most four walks
#            run at once (API_RMOPS_MAX), the others wait their turn,
#            each answered 200 once its directory is gone.
#   aside    what W3's removal left is aside (.gone-W3.PID): W3 created
#            again finds an empty volume, and its removal retries the
#            old leftover; W6's removal killed halfway leaves nothing
#            to W6 created again.  The old orchd left both where the
#            next workload of the name found them: it fails there.
#   root     with "api allow root" W5's container runs as its image's
#            user, root, and writes its volume as root: the delete
#            removes it all (the walk has root's ids, as the writer
#            had), 200.  An orchd that walks with W5's own uid there
#            leaves root's files and answers 500: it fails there.
#
#	sh regress/e2e/attack_volrm.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
need_docker
ensure_user

IMAGE=orchd-test/busybox:latest
W=h41vr$$
W1=$W-stall
W2=$W-race
W3=$W-esc
W4=$W-link
W5=$W-root
W6=$W-cut
FLOOD="$W-f1 $W-f2 $W-f3 $W-f4 $W-f5 $W-f6"
NF=${VOLRM_FILES:-120000}		# files in W1's and W2's volumes
KEY=e2e-attack-volrm-$$-0123456789abcdef
ports GW API P1 P2 P3 P4 P5 P6 F1 F2 F3 F4 F5 F6
S=$(mktemp -d /tmp/h41vr-vr.XXXXXX)
chmod 0755 "$S"
ROOT=$S/root
IROOT=$ROOT/$E2E_INSTANCE
OUT=$S/out
mkdir -m 0755 "$ROOT" "$OUT"
echo "keep-$$" >"$OUT/keep"

vr_cleanup() {
	if [ -n "$ORCHD_PID" ] && kill -0 "$ORCHD_PID" 2>/dev/null; then
		kill -TERM "$ORCHD_PID" 2>/dev/null
		wait_gone "$ORCHD_PID" 15
	fi
	for n in "$W1" "$W2" "$W3" "$W4" "$W5" "$W6" $FLOOD; do
		docker rm -f "$(cname "$n")" >/dev/null 2>&1
	done
	rm -rf "$S"
	e2e_cleanup
}
trap vr_cleanup EXIT

printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
{
	conf_head
	cat <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
api allow image "orchd-test/*"
api allow volume "$ROOT"
api allow network host
CONF
} >"$T/orchd.conf"

URL=http://127.0.0.1:$API
apiout() {	# apiout FILE METHOD PATH [BODY]: the status, the body in FILE
	curl -s -m 120 -o "$1" -w '%{http_code}' -X "$2" \
	    -H "Authorization: Bearer $KEY" ${4:+--data-binary "$4"} \
	    "$URL$3"
}
api() { apiout "$T/body" "$@"; }	# api METHOD PATH [BODY]
body() {	# body NAME PORT EXTRA-SHELL
	cmd="sh -c 'echo $1 >/data/f; $3 exec httpd -f -p 127.0.0.1:$2 -h /data'"
	printf '{"name": "%s", "hosts": ["%s.test"], "driver": "docker", ' \
	    "$1" "$1"
	printf '"image": "%s", "network": "host", "port": %s, ' "$IMAGE" "$2"
	printf '"command": "%s", ' "$cmd"
	printf '"volumes": [{"host": "data", "container": "/data"}]}'
}
# fill DIR [N]: N ($NF) empty files in 100 directories, made here as root
fill() {
	python3 - "$1" "${2:-$NF}" <<'EOF'
import os, sys
top, n = sys.argv[1], int(sys.argv[2])
per = max(1, n // 100)
for d in range(100):
    p = os.path.join(top, "d%d" % d)
    os.makedirs(p, exist_ok=True)
    for f in range(per):
        open(os.path.join(p, "f%d" % f), "w").close()
EOF
}
wake() {	# wake NAME: the status of GET /f on its host
	curl -s -m 60 -o /dev/null -w '%{http_code}' -H "Host: $1.test" \
	    "http://127.0.0.1:$GW/f"
}
# prepare NAME [N]: woken, its volume made (by voldir.c) and filled, as if
# by the workload: all its uid's
prepare() {
	c=$(wake "$1")
	check "$1 wakes and makes its volume ($c)" sh -c \
	    "[ $c = 200 ] && [ -d '$IROOT/$1/data' ]"
	fill "$IROOT/$1/data" "$2"
	chown -R --reference="$IROOT/$1/data" "$IROOT/$1/data"
}
ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }

start_orchd_or_exit

for n in "$W1:$P1" "$W2:$P2" "$W4:$P4"; do
	c=$(api POST /v1/workloads "$(body "${n%%:*}" "${n##*:}" "")")
	check "${n%%:*} is created ($c)" [ "$c" = 201 ]
done
c=$(api POST /v1/workloads "$(body "$W3" "$P3" \
    "ln -s $OUT /data/out; ln -s / /data/root; mkdir -p /data/shut/in; \
echo x >/data/shut/in/f; chmod 0 /data/shut/in /data/shut;")")
check "W3 is created ($c)" [ "$c" = 201 ]
prepare "$W1"
prepare "$W2"
check "W1's volume holds $NF files" \
    [ -f "$IROOT/$W1/data/d99/f$((NF / 100 - 1))" ]

# -- stall: the parent answers while W1's volume is removed
apiout "$T/del1.body" DELETE "/v1/workloads/$W1?volumes=true" \
    >"$T/del1.code" &
DEL=$!
t0=$(now_ms)
max=0
n=0
rl=none
while kill -0 "$DEL" 2>/dev/null && [ $n -lt 600 ]; do
	p0=$(now_ms)
	ctl show version >/dev/null 2>&1 || echo "probe $n failed" >>"$T/probe"
	ms=$(($(now_ms) - p0))
	[ "$ms" -le "$max" ] || max=$ms
	n=$((n + 1))
	if [ $n = 3 ]; then
		p0=$(now_ms)
		ctl reload >/dev/null 2>&1 && rl=$(($(now_ms) - p0))
	fi
	sleep 0.05
done
wait "$DEL"
took=$(($(now_ms) - t0))
figure volrm_delete_ms "$took" "delete --volumes of $NF files"
figure volrm_probe_max_ms "$max" "show version while it ran ($n probes)"
check "DELETE W1?volumes=true: 200 ($(cat "$T/del1.code")): \
$(cat "$T/del1.body")" [ "$(cat "$T/del1.code")" = 200 ]
check "... and W1's directory is gone when it is answered" \
    [ ! -e "$IROOT/$W1" ]
check "show version answered within 0.5 s all along ($n probes, the \
slowest ${max} ms, the delete ${took} ms)" sh -c \
    "[ $max -lt 500 ] && [ ! -s '$T/probe' ]"
check "a reload meanwhile was answered within 5 s ($rl ms)" sh -c \
    "[ $rl != none ] && [ $rl -lt 5000 ]"

# -- race: W2 created again while its volume goes
apiout "$T/del2.body" DELETE "/v1/workloads/$W2?volumes=true" \
    >"$T/del2.code" &
DEL=$!
refused=0
n=0
while [ $n -lt 300 ]; do
	c=$(api POST /v1/workloads "$(body "$W2" "$P2" "")")
	if [ "$c" = 409 ] && grep -q "being removed" "$T/body"; then
		refused=1
		cp "$T/body" "$T/refused"
		break
	fi
	[ "$c" != 201 ] || break
	n=$((n + 1))
	sleep 0.05
done
wait "$DEL"
check "the create of W2 while its volumes are removed: 409 \
($(cat "$T/refused" 2>/dev/null || echo "got $c"))" [ "$refused" = 1 ]
check "... the delete is answered 200 ($(cat "$T/del2.code")): \
$(cat "$T/del2.body")" \
    [ "$(cat "$T/del2.code")" = 200 ]
check "... W2's old volume is gone" [ ! -e "$IROOT/$W2/data/d0" ]
c=$(api POST /v1/workloads "$(body "$W2" "$P2" "")")
check "... then W2 is created again ($c)" [ "$c" = 201 ]
c=$(wake "$W2")
check "... and wakes with a fresh volume ($c)" sh -c \
    "[ $c = 200 ] && [ ! -e '$IROOT/$W2/data/d0' ]"
# a volume its workload made 0000 (as it may): removed all the same
echo "w2-$$" >"$IROOT/$W2/data/f"
chmod 0000 "$IROOT/$W2/data"
c=$(api DELETE "/v1/workloads/$W2?volumes=true")
check "a volume made 0000 by its workload: removed ($c: $(cat "$T/body"))" \
    sh -c "[ $c = 200 ] && [ ! -e '$IROOT/$W2/data' ]"

# -- escape: what W3 planted, and a directory of root's in its volume
c=$(wake "$W3")
check "W3 wakes and plants its links ($c)" sh -c \
    "[ $c = 200 ] && [ -L '$IROOT/$W3/data/out' ] &&
    [ -L '$IROOT/$W3/data/root' ] && [ -d '$IROOT/$W3/data/shut' ]"
uid=$(stat -c %u "$IROOT/$W3/data")
check "W3's volume is its uid's ($uid), not root's" [ "$uid" != 0 ]
mkdir -m 0755 "$IROOT/$W3/data/roots"
echo "root-$$" >"$IROOT/$W3/data/roots/keep"
c=$(api DELETE "/v1/workloads/$W3?volumes=true")
check "DELETE W3?volumes=true: not all removed ($c): $(cat "$T/body")" \
    sh -c "[ $c = 500 ] && grep -q 'not all removed' '$T/body'"
check "... the log says which ($(grep -o 'its volumes not all removed: .*' \
"$T/orchd.log" | head -n 1))" grep -q "roots/keep: Permission denied" \
    "$T/orchd.log"
check "... the links were not followed: $OUT/keep" \
    [ "$(cat "$OUT/keep" 2>/dev/null)" = "keep-$$" ]
check "... and / is there" [ -d /etc -a -d /usr/bin ]
check "... the links are gone, and the 0000 directory" sh -c \
    "[ ! -L '$IROOT/$W3/data/out' ] && [ ! -L '$IROOT/$W3/data/root' ] &&
    [ ! -e '$IROOT/$W3/data/shut' ]"
check "... root's directory, which W3 could not remove, is left, aside" \
    sh -c "[ \"\$(cat '$IROOT'/.gone-'$W3'.*/data/roots/keep)\" = root-$$ ]"
check "... and W3's own directory is gone" [ ! -e "$IROOT/$W3" ]
c=$(api POST /v1/workloads "$(body "$W3" "$P3" "")")
check "W3 created again ($c)" [ "$c" = 201 ]
c=$(wake "$W3")
check "... its volume begins empty: nothing of the old one ($c)" sh -c \
    "[ $c = 200 ] && [ ! -e '$IROOT/$W3/data/roots' ] &&
    [ ! -e '$IROOT/$W3/data/shut' ]"
c=$(api DELETE "/v1/workloads/$W3?volumes=true")
check "... deleted with its volumes: 200 ($c)" [ "$c" = 200 ]
check "... the old leftover tried again and named in the log" grep -q \
    "an earlier removal's leftover: .*/.gone-$W3\.[0-9]*/data/roots/keep" \
    "$T/orchd.log"

# -- names: a path as the name, a link as the directory
mkdir -p "$IROOT/x"
echo "x-$$" >"$IROOT/x/keep"
ctl delete --project "../$E2E_INSTANCE/x" --volumes >"$T/out" 2>&1
st=$?
check "orchctl delete --project ../INSTANCE/x --volumes refused ($st)" \
    [ "$st" != 0 ]
c=$(api DELETE "/v1/workloads/..%2F$E2E_INSTANCE%2Fx?volumes=true")
check "API DELETE ..%2FINSTANCE%2Fx?volumes=true refused ($c)" sh -c \
    "[ $c = 400 ] || [ $c = 404 ]"
check "... x is there" [ "$(cat "$IROOT/x/keep")" = "x-$$" ]
ln -s "$OUT" "$IROOT/$W4"
c=$(api DELETE "/v1/workloads/$W4?volumes=true")
check "W4's directory a link: not removed ($c): $(cat "$T/body")" \
    [ "$c" = 500 ]
check "... the link is left, and what it points to" sh -c \
    "[ -L '$IROOT/$W4' ] && [ \"\$(cat '$OUT/keep')\" = keep-$$ ]"

# -- flood: six deletes with their volumes at once, four walks at most
i=0
for n in $FLOOD; do
	i=$((i + 1))
	eval "p=\$F$i"
	c=$(api POST /v1/workloads "$(body "$n" "$p" "")")
	check "$n is created ($c)" [ "$c" = 201 ]
	prepare "$n" 25000
done
DELS=
for n in $FLOOD; do
	apiout "$T/$n.body" DELETE "/v1/workloads/$n?volumes=true" \
	    >"$T/$n.code" &
	DELS="$DELS $!"
done
most=0
n=0
while [ $n -lt 1200 ] && pgrep -f "^curl .*$W-f.*volumes=true" >/dev/null; do
	k=$(pgrep -fc "spawner: removing $W-f")
	[ "$k" -le "$most" ] || most=$k
	n=$((n + 1))
	sleep 0.02
done
wait $DELS
figure volrm_flood_walks "$most" "walks at once, six deletes"
check "at most four walks ran at once ($most)" [ "$most" -le 4 ]
for n in $FLOOD; do
	check "... $n: 200 ($(cat "$T/$n.code")), its directory gone" sh -c \
	    "[ \"\$(cat '$T/$n.code')\" = 200 ] && [ ! -e '$IROOT/$n' ]"
done
check "orchd is still running" kill -0 "$ORCHD_PID"

# -- cut: a removal killed halfway leaves nothing to the next of its name
c=$(api POST /v1/workloads "$(body "$W6" "$P6" "")")
check "W6 is created ($c)" [ "$c" = 201 ]
prepare "$W6" 40000
apiout "$T/w6.body" DELETE "/v1/workloads/$W6?volumes=true" >"$T/w6.code" &
DEL=$!
n=0
while [ $n -lt 500 ] && ! pgrep -f "spawner: removing $W6" >/dev/null; do
	n=$((n + 1))
	sleep 0.01
done
pkill -KILL -f "spawner: removing $W6"
wait $DEL
check "W6's removal killed halfway: 500 ($(cat "$T/w6.code"))" \
    [ "$(cat "$T/w6.code")" = 500 ]
c=$(api POST /v1/workloads "$(body "$W6" "$P6" "")")
check "W6 created again ($c)" [ "$c" = 201 ]
c=$(wake "$W6")
check "... its volume begins empty: none of the old files ($c)" sh -c \
    "[ $c = 200 ] && [ ! -e '$IROOT/$W6/data/d0' ] &&
    [ ! -e '$IROOT/$W6/data/d99' ]"
c=$(api DELETE "/v1/workloads/$W6?volumes=true")
check "... deleted with its volumes: 200 ($c), the old half removed too" \
    sh -c "[ $c = 200 ] && [ ! -e '$IROOT/$W6' ] &&
    ! ls -d '$IROOT'/.gone-'$W6'.* 2>/dev/null"

# -- root: with api allow root, a volume its root container wrote
echo 'api allow root' >>"$T/orchd.conf"
ctl reload >"$T/out" 2>&1
check "reload with api allow root ($(cat "$T/out"))" [ $? = 0 ]
c=$(api POST /v1/workloads "$(body "$W5" "$P5" \
    "mkdir -p /data/r/s; echo r >/data/r/s/f; chmod 0700 /data/r;")")
check "W5 is created ($c)" [ "$c" = 201 ]
c=$(wake "$W5")
check "W5 wakes and writes as root ($c)" sh -c "[ $c = 200 ] &&
    [ \"\$(stat -c %u '$IROOT/$W5/data/r/s/f')\" = 0 ]"
c=$(api DELETE "/v1/workloads/$W5?volumes=true")
check "DELETE W5?volumes=true: 200 ($c): $(cat "$T/body")" [ "$c" = 200 ]
check "... its directory is gone" [ ! -e "$IROOT/$W5" ]
check "orchd is still running" kill -0 "$ORCHD_PID"

stop_orchd
check "orchd exits 0 ($STATUS)" [ "$STATUS" = 0 ]
e2e_done
