#!/bin/sh
# Attacks through "docker labels on": whoever can make a container
# (docker run, docker compose up) labels it org.orchd.host and hopes
# orchd runs and routes it.  Each container here asks for something the
# operator's policy refuses to the API (--privileged, --cap-add, a
# device, / or the Docker socket bound, root without "api allow root", a
# port published on every address or all of them (-P), network host
# without "api allow network host"), or takes what is another's (the host of a workload of
# the file, its name, another instance's label), or gives labels that
# are no workload's (port 0 or 99999, control bytes, 10 KB, a host that
# is no host name, an idle timeout that is no duration), or replaces a
# workload's container by a privileged one of its name: each is
# refused with its reason in the log, is not routed, and is never
# started by orchd, not even by a request to its host; and the daemon
# survives it all.  A well-behaved container beside them is a workload,
# so that the refusals are not the feature being off.  The containers
# are made with `docker create` (never started by anyone) and labelled
# for this run's instance; they are removed at the end.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
need_docker
ensure_user

IMAGE=orchd-test/busybox:latest
TAG=h34atk$$
CASES="good priv cap dev rootfs sock root nouser publish pall hostdup \
    port0 port99999 ctrl big badhost badidle other swap neth vol"
CFG=${TAG}cfg
# the API's volume root: what lies under it is API workloads' data
VROOT=$(mktemp -d /tmp/orchd-e2e-vol.XXXXXX)
chmod 0755 "$VROOT"

atk_cleanup() {
	if [ -n "$ORCHD_PID" ] && kill -0 "$ORCHD_PID" 2>/dev/null; then
		kill -TERM "$ORCHD_PID" 2>/dev/null
		wait_gone "$ORCHD_PID" 10
	fi
	for c in $CASES; do
		docker rm -f "$TAG$c" >/dev/null 2>&1
	done
	docker rm -f "$CFG" >/dev/null 2>&1
	rm -rf "$VROOT"
	e2e_cleanup
}
trap atk_cleanup EXIT

port_base 13
ports GW P_CFG P

# write_conf [EXTRA-LINE]: no "api allow root", and network host allowed
# unless told otherwise
write_conf() {
	conf_head >"$T/orchd.conf"
	cat >>"$T/orchd.conf" <<CONF
wake timeout 10s
reaper interval 1s
docker labels on
api allow volume "$VROOT"
${1:-api allow network host}

listen on 127.0.0.1 port $GW

workload "$CFG" {
	host "taken$$.test"
	driver docker
	image "$IMAGE"
	network host
	port $P_CFG
}
CONF
}
write_conf
mkdir -p "$T/log"

# made CASE HOST [DOCKER-CREATE-ARGS...]: a labelled container, stopped
made() {
	c=$1 h=$2
	shift 2
	docker create --name "$TAG$c" \
	    --label "org.orchd.instance=$E2E_INSTANCE" \
	    --label "org.orchd.host=$h" "$@" \
	    "$IMAGE" /bin/httpd -f -p "127.0.0.1:$P" -h / >/dev/null 2>"$T/create.err" ||
	    { echo "# docker create $c: $(cat "$T/create.err")"; return 1; }
}
# host network, uid 4242, port $P, unless the case says otherwise
std() { echo --network host --user 4242:4242 --label "org.orchd.port=$P"; }

show() { "$ORCHCTL" -s "$SOCK" show workload "$1" >/dev/null 2>&1; }
never_started() {
	[ "$(docker inspect -f '{{.State.StartedAt}}' "$1" 2>/dev/null)" = \
	    0001-01-01T00:00:00Z ]
}
logged() { grep -q -- "$1" "$T/orchd.log"; }
get() {
	curl -s -m 15 -o /dev/null -w '%{http_code}' -H "Host: $1" \
	    "http://127.0.0.1:$GW/bin/echo"
}

start_orchd_or_exit

# the control: a container that asks for nothing is a workload
made good "good$$.test" $(std)
check "a well-behaved labelled container is a workload" \
    wait_for 20 show "${TAG}good"

made priv "priv$$.test" $(std) --privileged
made cap "cap$$.test" $(std) --cap-add NET_ADMIN
made dev "dev$$.test" $(std) --device /dev/null:/dev/xnull
made rootfs "rootfs$$.test" $(std) -v /:/host
made sock "sock$$.test" $(std) -v /var/run/docker.sock:/sock
# another workload's volume, under the API's root
mkdir -p "$VROOT/$E2E_INSTANCE/someapp"
made vol "vol$$.test" $(std) -v "$VROOT/$E2E_INSTANCE/someapp:/data"
made root "root$$.test" --network host --user 0 \
    --label "org.orchd.port=$P"
made nouser "nouser$$.test" --network host --label "org.orchd.port=$P"
made publish "publish$$.test" --user 4242:4242 -p "$P:$P" \
    --label "org.orchd.port=$P"
made pall "pall$$.test" $(std) -P --expose 9
made hostdup "taken$$.test" $(std)
# a container named as the file's workload: its name is taken
docker create --name "$CFG" --label "org.orchd.instance=$E2E_INSTANCE" \
    --label "org.orchd.host=cfgname$$.test" --label "org.orchd.port=$P" \
    --network host --user 4242:4242 "$IMAGE" /bin/true >/dev/null
made port0 "port0$$.test" --network host --user 4242:4242 \
    --label org.orchd.port=0
made port99999 "port99999$$.test" --network host --user 4242:4242 \
    --label org.orchd.port=99999
made ctrl "$(printf 'ctrl\001\033[2J%s.test' $$)" $(std)
made big "$(head -c 10240 /dev/zero | tr '\0' a).test" $(std)
made other "other$$.test" $(std) --label org.orchd.instance=another-orchd
# text, but no host name and no duration: the parent's rules say so
made badhost "bad_host!$$.test" $(std)
made badidle "badidle$$.test" $(std) --label "org.orchd.idle-timeout=5 years"
# let runtimed see them all, and the parent judge them
sleep 4

# refused CASE HOST REASON: not a workload, not routed, never started
refused() {
	c=$1 h=$2 why=$3
	check "$c: refused, with its reason in the log" logged "$why"
	check "... $c is no workload" sh -c "! '$ORCHCTL' -s '$SOCK' \
	    show workload '$TAG$c' >/dev/null 2>&1"
	[ -z "$h" ] || code=$(get "$h")
	[ -z "$h" ] || check "... $c's host is not routed ($code)" \
	    [ "$code" != 200 ]
	check "... $c was never started" never_started "$TAG$c"
}
refused priv "priv$$.test" "container ${TAG}priv is not a workload.*privileged"
refused cap "cap$$.test" "container ${TAG}cap is not a workload.*capabilities"
refused dev "dev$$.test" "container ${TAG}dev is not a workload.*devices"
refused rootfs "rootfs$$.test" "container ${TAG}rootfs is not a workload.*volume"
refused sock "sock$$.test" "container ${TAG}sock is not a workload.*volume"
refused vol "vol$$.test" "container ${TAG}vol is not a workload.*mount no host path"
refused root "root$$.test" "container ${TAG}root is not a workload.*api allow root"
refused nouser "nouser$$.test" "container ${TAG}nouser is not a workload.*api allow root"
refused publish "publish$$.test" "container ${TAG}publish is not a workload.*api allow publish"
refused pall "pall$$.test" "container ${TAG}pall is not a workload.*port published"
refused hostdup "" "container ${TAG}hostdup is not a workload.*taken$$.test.*already used by workload \"$CFG\""
check "... the file's workload keeps its host" show "$CFG"
check "a container with the name of the file's workload is refused" \
    logged "container $CFG is not a workload: workload \"$CFG\" already exists"
check "... the file's workload stays the file's" sh -c \
    "'$ORCHCTL' -s '$SOCK' show workload '$CFG' | grep -q 'source: *config'"
refused port0 "port0$$.test" "container ${TAG}port0: org.orchd.port \"0\" is too small"
refused port99999 "port99999$$.test" "container ${TAG}port99999: org.orchd.port \"99999\" is too large"
refused ctrl "" "container ${TAG}ctrl: label org.orchd.host is no text"
refused big "" "container ${TAG}big: label org.orchd.host is no text"
refused badhost "" "container ${TAG}badhost is not a workload: "
refused badidle "badidle$$.test" "container ${TAG}badidle: org.orchd.idle-timeout"
refused other "other$$.test" "labelled for orchd instance another-orchd, not this one"

# a workload's container replaced by a privileged one of its name: the
# workload goes with the old one, and the new one is judged anew
made swap "swap$$.test" $(std)
check "swap: a well-behaved one is a workload" wait_for 20 show "${TAG}swap"
docker rm -f "${TAG}swap" >/dev/null
made swap "swap$$.test" $(std) --privileged
sleep 3
refused swap "swap$$.test" "container ${TAG}swap is not a workload.*privileged"

# network host without "api allow network host": the reload drops the
# good one, and a new one is refused
write_conf "# no api allow network host"
kill -HUP "$ORCHD_PID"
sleep 2
check "reload without api allow network host: the good one is dropped" \
    wait_for 10 sh -c "! '$ORCHCTL' -s '$SOCK' show workload '${TAG}good' \
    >/dev/null 2>&1"
made neth "neth$$.test" $(std)
sleep 3
refused neth "neth$$.test" "container ${TAG}neth is not a workload.*api allow network host"

check "orchd survived it all" alive "$ORCHD_PID"
check "... and answers" "$ORCHCTL" -s "$SOCK" show summary
check "orchd never created a container of them" sh -c \
    "! docker ps -a --filter 'label=org.orchd.instance=$E2E_INSTANCE' \
    --filter label=org.orchd.workload --format '{{.Names}}' | grep -q ."

e2e_done
