#!/bin/sh
# Attacks of an API key holder on the host through what an API workload
# may say (issue 28, items 4 to 7), replayed against a live orchd with
# the API on and "api allow image" for the test image:
# - a container of the API runs as the image's user, root: it must run
#   as its own uid from "workload uids", without CAP_NET_RAW or any other
#   capability in its bounding set;
# - network host, which shares the host's loopback services: 403 naming
#   "api allow network host", until orchd.conf allows it;
# - an address that is not loopback (169.254.169.254, 10.0.0.1), or one
#   of orchd's own listeners (the API's, the gateway's) as a target:
#   403; a link-local address stays refused under "api allow address
#   0.0.0.0/0", orchd's own ports under any rule;
# - a port published on 0.0.0.0 (HostIp, past the gateway), or below
#   1024 (publish 22): 403, until "api allow publish" says so.
# Each 403 names the rule.  Loopback only, every wait bounded; the one
# container made here is removed at the end.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
need_docker

port_base 29
ports GW API P_DK P_PROC P_PUB
KEY=e2e-apipriv-$$-0123456789abcdef
IMAGE=orchd-test/busybox:latest
DK=apipriv$$
UIDS_LOW=$E2E_UID_LOW		# conf_head's "workload uids"
UIDS_HIGH=$E2E_UID_HIGH
mkdir -p "$T/log"
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
# the container is orchd's; it is removed by its label, whatever orchd
# names it
dk_cleanup() {
	for c in $(docker ps -aq --filter "label=org.orchd.workload=$DK" \
	    2>/dev/null); do
		docker rm -f "$c" >/dev/null 2>&1
	done
	e2e_cleanup
}
trap dk_cleanup EXIT

write_conf() {	# write_conf [EXTRA-GLOBAL-LINE...]
	conf_head >"$T/orchd.conf"
	cat >>"$T/orchd.conf" <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
api allow image "orchd-test/busybox*"
api allow process
CONF
	for x in "$@"; do
		printf '%s\n' "$x" >>"$T/orchd.conf"
	done
}

URL=http://127.0.0.1:$API
post() {	# post BODY: the body, then the status on a line of its own
	curl -s -m 30 -H "Authorization: Bearer $KEY" -w '\n%{http_code}' \
	    -X POST --data-binary "$1" "$URL/v1/workloads"
}
del() {
	curl -s -m 30 -o /dev/null -H "Authorization: Bearer $KEY" \
	    -X DELETE "$URL/v1/workloads/$1"
}
last() { printf '%s\n' "$1" | tail -n 1; }
has() { printf '%s' "$1" | grep -q -- "$2"; }
# wl_name: a new name each time, in a subshell too ($T/name: the last)
wl_name() {
	_c=$(($(cat "$T/n" 2>/dev/null || echo 0) + 1))
	echo "$_c" >"$T/n"
	echo "a$$-$_c" | tee "$T/name"
}
# dk NET [MORE-JSON]: a container of the test image on NET
dk() {
	_w=$(wl_name)
	printf '{"name": "%s", "hosts": ["%s.test"], "driver": "docker", "image": "%s", "network": "%s", "port": %s%s}' \
	    "$_w" "$_w" "$IMAGE" "$1" "$P_DK" "${2:-}"
}
# proc ADDRESS PORT: a process workload aimed at ADDRESS:PORT
proc() {
	_w=$(wl_name)
	printf '{"name": "%s", "hosts": ["%s.test"], "command": "/bin/true", "address": "%s", "port": %s}' \
	    "$_w" "$_w" "$1" "$2"
}
# refused DESC BODY RULE: 403, and the body names RULE
refused() {
	out=$(post "$2")
	st=$(last "$out")
	if [ "$st" = 403 ] && has "$out" "$3"; then
		ok "$1: 403 naming \"$3\""
	else
		fail "$1: 403 naming \"$3\" (got $st:" \
		    "$(printf '%s' "$out" | head -n 1))"
	fi
}
# accepted DESC BODY: 201, then dropped again
accepted() {
	out=$(post "$2")
	st=$(last "$out")
	check "$1: 201 ($st: $(printf '%s' "$out" | head -n 1 | cut -c1-160))" \
	    [ "$st" = 201 ]
	[ "$st" != 201 ] || del "$(cat "$T/name")"
}

write_conf
start_orchd_or_exit

# -- network host: the host's loopback services, by default no
refused "network host" "$(dk host)" "api allow network host"
# -- an address to connect to that is not loopback, or is orchd's own
refused "process at 169.254.169.254" "$(proc 169.254.169.254 80)" \
    "api allow address"
refused "process at 10.0.0.1" "$(proc 10.0.0.1 80)" "api allow address"
refused "process at 0.0.0.0" "$(proc 0.0.0.0 "$P_PROC")" "api allow address"
refused "process at ::ffff:169.254.169.254" \
    "$(proc ::ffff:169.254.169.254 80)" "api allow address"
refused "process at the API's port" "$(proc 127.0.0.1 "$API")" \
    "orchd's own: the API's listener"
refused "process at the API's port on 127.0.0.2" "$(proc 127.0.0.2 "$API")" \
    "orchd's own: the API's listener"
refused "process at the gateway's port" "$(proc 127.0.0.1 "$GW")" \
    "orchd's own: a gateway listener"
refused "container publishing on the API's port" \
    "$(dk bridge ", \"publish\": $API")" "orchd's own: the API's listener"
# -- where Docker publishes the port: loopback and 1024 up only
refused "container published on 169.254.169.254" \
    "$(dk bridge ', "address": "169.254.169.254"')" "api allow publish"
refused "publish on 0.0.0.0" "$(dk bridge ', "address": "0.0.0.0"')" \
    "api allow publish"
refused "publish on ::" "$(dk bridge ', "address": "::"')" \
    "api allow publish"
refused "publish 22" "$(dk bridge ', "publish": 22')" \
    "api allow publish port"
refused "port 80 published as itself" \
    "$(dk bridge '' | sed "s/\"port\": $P_DK/\"port\": 80/")" \
    "api allow publish port"
# what stays open: loopback, a port from 1024
accepted "process at 127.0.0.1" "$(proc 127.0.0.1 "$P_PROC")"
accepted "container published on 127.0.0.1" \
    "$(dk bridge ", \"publish\": $P_PUB")"
check "orchd still runs" alive "$ORCHD_PID"

# -- the operator allows: network host, addresses, publish
write_conf 'api allow network host' 'api allow address "0.0.0.0/0"' \
    'api allow publish "0.0.0.0"' 'api allow publish port 22'
check "a reload with api allow network host, address, publish" \
    quiet "$ORCHCTL" -s "$SOCK" reload
accepted "network host, allowed" "$(dk host)"
accepted "process at 10.0.0.1 under 0.0.0.0/0" "$(proc 10.0.0.1 80)"
refused "... 169.254.169.254 not, by a rule that is not link-local" \
    "$(proc 169.254.169.254 80)" "api allow address"
refused "... the API's port not, by any rule" "$(proc 127.0.0.1 "$API")" \
    "orchd's own"
accepted "publish on 0.0.0.0, allowed" \
    "$(dk bridge ", \"address\": \"0.0.0.0\", \"publish\": $P_PUB")"
accepted "publish 22, allowed" "$(dk bridge ', "publish": 22')"

# -- a container of the API runs as its own uid, with no capability
out=$(post "$(printf '{"name": "%s", "hosts": ["%s.test"], "driver": "docker", "image": "%s", "network": "host", "port": %s, "command": "/bin/httpd -f -p 127.0.0.1:%s -h /etc", "health": "path", "health_path": "/hostname"}' \
    "$DK" "$DK" "$IMAGE" "$P_DK" "$P_DK")")
check "a container of the API created ($(last "$out"))" \
    [ "$(last "$out")" = 201 ]
st=$(curl -s -m 40 -o /dev/null -w '%{http_code}' -H "Host: $DK.test" \
    "http://127.0.0.1:$GW/hostname")
check "... it wakes and answers ($st)" [ "$st" = 200 ]
C=$(docker ps -q --filter "label=org.orchd.workload=$DK" | head -n 1)
cuid=$(docker exec "$C" /bin/busybox id -u 2>/dev/null)
cgid=$(docker exec "$C" /bin/busybox id -g 2>/dev/null)
check "... it runs as a uid of workload uids, not root (uid $cuid)" \
    eval "[ -n '$cuid' ] && [ '$cuid' -ge $UIDS_LOW ] &&
    [ '$cuid' -le $UIDS_HIGH ]"
check "... its gid is that number ($cgid)" [ "$cgid" = "$cuid" ]
# the server itself, not only what docker exec runs
spid=$(docker inspect -f '{{.State.Pid}}' "$C" 2>/dev/null)
suid=$(awk '/^Uid:/ { print $2 }' "/proc/$spid/status" 2>/dev/null)
# a test run in a container of its own sees no pid of the host's: the
# container's own view of its process 1
[ -n "$suid" ] || suid=$(docker exec "$C" /bin/busybox awk \
    '/^Uid:/ { print $2 }' /proc/1/status 2>/dev/null)
check "... process 1 of the container too ($suid)" [ "$suid" = "$cuid" ]
bnd=$(docker exec "$C" /bin/busybox awk '/^CapBnd:/ { print $2 }' \
    /proc/self/status 2>/dev/null)
# CAP_NET_RAW is bit 13
check "... no CAP_NET_RAW in its bounding set ($bnd)" \
    eval "[ -n '$bnd' ] && [ \$((0x$bnd & 0x2000)) -eq 0 ]"
check "... no capability at all ($bnd)" [ "$bnd" = 0000000000000000 ]
nnp=$(docker exec "$C" /bin/busybox awk '/^NoNewPrivs:/ { print $2 }' \
    /proc/self/status 2>/dev/null)
check "... no new privileges ($nnp)" [ "$nnp" = 1 ]
user=$(docker inspect -f '{{.Config.User}}' "$C" 2>/dev/null)
check "... docker says User \"uid:gid\" ($user)" [ "$user" = "$cuid:$cuid" ]
# the definition the API shows is the one it takes back
def=$(curl -s -m 30 -H "Authorization: Bearer $KEY" "$URL/v1/workloads/$DK")
check "... GET shows no run_uid" eval "! printf '%s' '$def' | grep -q run_uid"
del "$DK"
check "orchd still runs" alive "$ORCHD_PID"

stop_orchd
e2e_done
