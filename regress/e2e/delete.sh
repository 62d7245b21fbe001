#!/bin/sh
# A delete removes what the workload leaves in Docker, as an expiry does
# (issue 35): DELETE /v1/workloads/NAME of a woken docker workload, then
# orchctl delete of a second naming the same image; each one's stopped
# container is gone from docker ps -a within a bounded wait, the image
# kept while another workload names it and removed with the last.  The
# image comes from a real registry (Debian's docker-registry, on
# loopback), pulled at the wake: one made on this host, which nothing
# could pull again, is never removed (C, of a tag made here).
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
need_docker
ensure_user

TAG=h35del$$
port_base 47
ports GW API P_A P_B P_C RP
REG=127.0.0.1:$RP
# the busybox image under a name of this test's alone, in the registry
IMG=$REG/orchd-test/$TAG:latest
# and one made on this host alone
LOCAL=orchd-test/$TAG-local:latest
A=${TAG}a
B=${TAG}b
C=${TAG}c
V=$(mktemp -d /tmp/orchd-e2e-vol.XXXXXX)
chmod 0755 "$V"

delete_cleanup() {
	if [ -n "$ORCHD_PID" ] && kill -0 "$ORCHD_PID" 2>/dev/null; then
		kill -TERM "$ORCHD_PID" 2>/dev/null
		wait_gone "$ORCHD_PID" 10
	fi
	for n in $A $B $C; do
		docker rm -f "$(cname "$n")" >/dev/null 2>&1
	done
	docker rmi "$IMG" "$LOCAL" >/dev/null 2>&1
	rm -rf "$V"
	e2e_cleanup
}
trap delete_cleanup EXIT

registry_start "$REG"
sh "$(dirname "$0")/../docker-image.sh" >/dev/null 2>&1
docker tag orchd-test/busybox:latest "$LOCAL" || { fail "cannot tag"; exit 1; }
registry_push orchd-test/busybox:latest "$IMG" || exit 1

KEY=e2e-key-$$-0123456789abcdef
VI=$V/$E2E_INSTANCE
mkdir -p "$VI/$A/www" "$VI/$A/bin"
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
echo "hello from a container" >"$VI/$A/www/index.html"
cat >"$VI/$A/bin/run.sh" <<'EOF'
#!/bin/sh
trap 'exit 0' TERM
/bin/httpd -f -p "127.0.0.1:$PORT" -h /www &
wait
EOF
chmod -R a+rX "$VI"
cp -Rp "$VI/$A" "$VI/$B"
cp -Rp "$VI/$A" "$VI/$C"

conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
idle timeout 5m
wake timeout 20s
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
api allow image "$REG/orchd-test/$TAG*"
api allow image "orchd-test/$TAG-local*"
api allow volume "$V"
api allow network host
CONF

ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
URL=http://127.0.0.1:$API
apicode() {	# apicode METHOD PATH [BODY]
	curl -s -m 30 -o "$T/api.out" -w '%{http_code}' -X "$1" \
	    -H "Authorization: Bearer $KEY" \
	    -H 'Content-Type: application/json' ${3:+-d "$3"} "$URL$2"
}
answers() {	# answers HOST
	curl -s -m 20 -H "Host: $1" "http://127.0.0.1:$GW/index.html" \
	    | grep -q "hello from a container"
}
# docker ps -a: the stopped ones too
container() { docker ps -a --format '{{.Names}}' | grep -qx "$(cname "$1")"; }
no_container() { ! container "$1"; }
image() { docker image inspect "${1:-$IMG}" >/dev/null 2>&1; }
no_image() { ! image "$@"; }
logged() { grep -q -- "$1" "$T/orchd.log"; }
body() {	# body NAME PORT [IMAGE]
	printf '{"name": "%s", "driver": "docker", "image": "%s", ' "$1" \
	    "${3:-$IMG}"
	printf '"command": "/bin/sh /orchd/run.sh", "hosts": ["%s.test"], ' "$1"
	printf '"port": %s, "env": ["PORT=%s"], "network": "host", ' "$2" "$2"
	printf '"volumes": [{"host": "www", "container": "/www"}, '
	printf '{"host": "bin", "container": "/orchd"}]}'
}

start_orchd_or_exit

c=$(apicode POST /v1/workloads "$(body "$A" "$P_A")")
check "A is created through the API ($c)" [ "$c" = 201 ]
c=$(apicode POST /v1/workloads "$(body "$B" "$P_B")")
check "B, of the same image, too ($c)" [ "$c" = 201 ]
check "A is woken and answers" answers "$A.test"
check "B is woken and answers" answers "$B.test"
check "... the image was pulled from the registry" \
    logged "pulling $IMG"
check "... A's container is there" container "$A"
check "... B's container is there" container "$B"

# -- DELETE through the API: A's container goes, the image stays (B)
c=$(apicode DELETE "/v1/workloads/$A")
check "DELETE /v1/workloads/A: 200 ($c)" [ "$c" = 200 ]
check "... A's container is gone from docker ps -a within 20s" \
    wait_for 20 no_container "$A"
check "... the log says it was removed" \
    wait_for 10 logged "$A: deleted: container removed"
check "... the image is kept: B names it" \
    wait_for 10 logged "$A: deleted: image $IMG kept"
check "... and is still there" image
check "... B still answers" answers "$B.test"

# -- orchctl delete: B's container goes, and the image with the last one
ctl delete "$B" >"$T/db.out" 2>&1
check "orchctl delete B succeeds" grep -q "deleted" "$T/db.out"
check "... B's container is gone from docker ps -a within 20s" \
    wait_for 20 no_container "$B"
check "... and the image, no workload naming it now, within 20s" \
    wait_for 20 no_image

check "... the log says so" logged "$B: deleted: image $IMG removed"

# -- an image made on this host stays: nothing could pull it again
c=$(apicode POST /v1/workloads "$(body "$C" "$P_C" "$LOCAL")")
check "C, of an image made here, is created ($c)" [ "$c" = 201 ]
check "C is woken and answers" answers "$C.test"
c=$(apicode DELETE "/v1/workloads/$C")
check "DELETE /v1/workloads/C: 200 ($c)" [ "$c" = 200 ]
check "... C's container is gone within 20s" wait_for 20 no_container "$C"
check "... its image is kept, made on this host" \
    wait_for 10 logged "$C: deleted: image $LOCAL kept: made on this host"
check "... and is still there" image "$LOCAL"

# -- a delete of what is not there removes nothing
c=$(apicode DELETE "/v1/workloads/$A")
check "DELETE of the deleted one: 404 ($c)" [ "$c" = 404 ]

stop_orchd
e2e_done
