#!/bin/sh
# orchctl import compose: a database gets a TCP listener where the file
# maps its port.  A busybox stand-in tagged as a redis image (no
# registry is reachable here for redis itself), on the host's network
# as Docker runs here without a bridge, serving on its own port PC,
# with "PL:PC" mapped: the import makes listen 127.0.0.1:PL through the
# API, a connection to PL wakes it and reaches it, delete --project
# closes PL.  --dry-run prints the listener in orchd.conf syntax, which
# orchd -n takes.  A mapped port that is the service's own on the host
# network is no listener: noted, and the database wakes as a dependency.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
need_docker
ensure_user

P=h34cl$$
IMAGE=orchd-test/redis-$P:latest
ports GW API PL PC
KEY=e2e-composelisten-$$-0123456789abcdef

cl_cleanup() {
	if [ -n "$ORCHD_PID" ] && kill -0 "$ORCHD_PID" 2>/dev/null; then
		kill -TERM "$ORCHD_PID" 2>/dev/null
		wait_gone "$ORCHD_PID" 15
	fi
	docker rm -f "$(cname "$P-cache")" >/dev/null 2>&1
	docker rmi "$IMAGE" >/dev/null 2>&1
	e2e_cleanup
}
trap cl_cleanup EXIT
docker tag orchd-test/busybox:latest "$IMAGE" || skip "no busybox image"

printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
mkdir -p "$T/log" "$T/app"
{
	conf_head
	cat <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
api allow image "orchd-test/*"
api allow network host
CONF
} >"$T/orchd.conf"
cat >"$T/app/docker-compose.yml" <<YML
services:
  cache:
    image: $IMAGE
    network_mode: host
    command: httpd -f -p 127.0.0.1:$PC -h /etc
    ports:
      - "$PL:$PC"
YML
sed -e "s/\"$PL:$PC\"/\"$PC:$PC\"/" "$T/app/docker-compose.yml" \
    >"$T/app/own.yml"
start_orchd_or_exit
ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }

ctl import compose "$T/app/docker-compose.yml" --project "$P" --dry-run \
    >"$T/dry.conf" 2>"$T/dry.err"
check "--dry-run: the listener in orchd.conf syntax" \
    grep -qF "listen on \"127.0.0.1\" port $PL" "$T/dry.conf"
check "--dry-run: no publish on the host's network" \
    sh -c "! grep -q publish '$T/dry.conf'"
{ conf_head; grep -v '^#' "$T/dry.conf"; } >"$T/dry-full.conf"
check "--dry-run: orchd -n takes it" quiet "$ORCHD" -n -f "$T/dry-full.conf"

ctl import compose "$T/app/own.yml" --project "${P}o" --dry-run \
    >"$T/own.conf" 2>"$T/own.err"
check "its own port mapped on the host network: no listener, a comment" \
    sh -c "! grep -q '^	listen on' '$T/own.conf' &&
    grep -q '# listen on 127.0.0.1 port $PC: the service' '$T/own.conf'"

out=$(ctl import compose "$T/app/docker-compose.yml" --project "$P" 2>&1)
check "import: created ($out)" sh -c \
    "printf '%s\n' \"\$1\" | grep -qx '$P-cache created'" _ "$out"
check "PL is bound by orchd, the cache asleep" sh -c \
    "ss -Hltnp 'sport = :$PL' | grep -q orchd &&
    '$ORCHCTL' -s '$SOCK' show workloads | grep -Eq '^$P-cache +asleep '"
c=$(curl -s -m 60 -o "$T/body" -w '%{http_code}' \
    "http://127.0.0.1:$PL/hosts")
check "a connection to PL wakes the cache and reaches it ($c)" \
    sh -c "[ $c = 200 ] && grep -q localhost $T/body"
check "... it runs" sh -c \
    "'$ORCHCTL' -s '$SOCK' show workloads | grep -Eq '^$P-cache +running '"
out=$(ctl delete --project "$P" 2>&1)
check "delete --project ($out)" [ "$out" = "$P-cache: deleted" ]
sleep 1
check "... PL is closed" sh -c "! ss -Hltn 'sport = :$PL' | grep -q ."

stop_orchd
check "orchd exits 0 ($STATUS)" [ "$STATUS" = 0 ]
e2e_done
