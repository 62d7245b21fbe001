#!/bin/sh
# make demo: a real orchd on 127.0.0.1:8080 with a small process workload
# that sleeps after 10 idle seconds and wakes on the next request, and a
# container workload as well when a Docker daemon answers.
#
#	sh tools/demo.sh [--once]
#
# With --once the demo shows one sleep and wake, then stops orchd and
# exits (the test suite runs it so); otherwise orchd stays in the
# foreground until ^C.
set -eu
cd "$(dirname "$0")/.."
once=
[ "${1:-}" = --once ] && once=1
PORT=${DEMO_PORT:-8080}
WPORT=$((PORT + 1))
CPORT=$((PORT + 2))
IDLE=${DEMO_IDLE:-10}

if [ "$(id -u)" -ne 0 ]; then
	echo "make demo: run as root (orchd drops privileges to _orchd)" >&2
	exit 1
fi
getent passwd _orchd >/dev/null ||
    useradd -r -d /var/empty -s /usr/sbin/nologin _orchd
mkdir -p /var/empty
chmod 0755 /var/empty

# an orchd instance of its own (orchd-workload.7, instances sharing a host): a
# demo beside another orchd, or another demo, on this host and Docker
# daemon takes neither's name, containers nor workload uids
INSTANCE=demo-$$
UIDS="$((140000000 + $$ * 16))-$((140000000 + $$ * 16 + 15))"

D=$(mktemp -d /tmp/orchd-demo.XXXXXX)
chmod 0755 "$D"
# the configuration in a directory of its own: no volume may lie under
# the configuration file's directory
mkdir -p "$D/etc" "$D/log" "$D/www"
echo "Hello from a workload that was asleep a moment ago." >"$D/www/index.html"
chmod -R a+rX "$D/www"
cat >"$D/etc/orchd.conf" <<CONF
# written by tools/demo.sh
instance name "$INSTANCE"
workload uids "$UIDS"
database "$D/db/orchd.db"
socket "$D/orchd.sock"
log directory "$D/log"
idle timeout ${IDLE}s
reaper interval 1s
listen on 127.0.0.1 port $PORT

workload "hello" {
	host "hello.localhost"
	command "/bin/busybox httpd -f -p 127.0.0.1:$WPORT -h $D/www"
	port $WPORT
}
CONF

# a container too, from an image made here of busybox (no registry needed)
container=
if docker info >/dev/null 2>&1 && sh regress/docker-image.sh 2>/dev/null; then
	container=1
	echo "Hello from a container that was stopped a moment ago." \
	    >"$D/www/container.html"
	cat >>"$D/etc/orchd.conf" <<CONF

workload "box" {
	host "box.localhost"
	driver docker
	image "orchd-test/busybox:latest"
	command "/bin/httpd -f -p 127.0.0.1:$CPORT -h /www"
	network host
	volume "$D/www" "/www"
	port $CPORT
}
CONF
fi

build/orchd -d -f "$D/etc/orchd.conf" >"$D/orchd.log" 2>&1 &
pid=$!
cleanup() {
	kill -TERM "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	# orchd keeps stopped containers for their next wake; the demo's goes
	[ -z "$container" ] || docker rm -f "orchd-$INSTANCE-box" >/dev/null 2>&1 || true
	rm -rf "$D"
}
trap cleanup EXIT
trap 'exit 0' INT TERM

i=0
until build/orchctl -s "$D/orchd.sock" show summary >/dev/null 2>&1; do
	i=$((i + 1))
	if [ $i -gt 100 ]; then
		echo "make demo: orchd did not start:" >&2
		cat "$D/orchd.log" >&2
		exit 1
	fi
	sleep 0.1
done

state() {	# state NAME
	grep -o "workload $1: [a-z]* -> [a-z]*" "$D/orchd.log" | tail -n 1 |
	    sed 's/.*-> //'
}
ask() {		# ask HOST [PATH]
	curl -s -o /dev/null -w '%{http_code} in %{time_total}s' \
	    -H "Host: $1" "http://127.0.0.1:$PORT${2:-/}"
}

cat <<MSG
orchd is running (config $D/etc/orchd.conf, log $D/orchd.log).
The workload "hello" is asleep: no process runs until a request comes.

Try:
curl -H 'Host: hello.localhost' http://127.0.0.1:$PORT/
MSG
[ -z "$container" ] || cat <<MSG
curl -H 'Host: box.localhost' http://127.0.0.1:$PORT/container.html
MSG
cat <<MSG
build/orchctl -s $D/orchd.sock show workloads

MSG
echo "first request (wakes the workload): $(ask hello.localhost)"
echo "second request (already running):   $(ask hello.localhost)"
[ -z "$container" ] ||
    echo "first request to the container:     $(ask box.localhost \
    /container.html)"
echo "waiting for ${IDLE}s of idleness; the reaper then suspends it ..."
i=0
while [ "$(state hello)" != asleep ] && [ $i -lt $((IDLE * 10 + 100)) ]; do
	sleep 0.1
	i=$((i + 1))
done
echo "hello is now $(state hello): its process is gone"
echo "next request (wakes it again):       $(ask hello.localhost)"
echo
build/orchctl -s "$D/orchd.sock" show workloads
echo
if [ -n "$once" ]; then
	exit 0
fi
echo "orchd keeps running; ^C stops it."
wait "$pid"
