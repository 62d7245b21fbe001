#!/bin/sh
# Keep warm means kept running, for a container too (issue 17): a docker
# workload kept warm whose container is killed by hand (docker kill) is
# started again after about 1 s, the restart in its history and in
# /metrics; one with liveness checks whose server stops answering its
# health path (its httpd stopped with SIGSTOP: the kernel still accepts)
# is found unhealthy and restarted in a fresh start of its container.  Its own workload names; loopback only, every wait
# bounded.
#
#	sh regress/e2e/restartsdk.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root

need_docker
ensure_user

IMAGE=orchd-test/busybox:latest
TAG=rs$$
DKW=${TAG}kw
DHANG=${TAG}hang
KEY=e2e-key-$$-0123456789abcdef
V=$(mktemp -d /tmp/orchd-e2e-vol.XXXXXX)
chmod 0755 "$V"

dk_cleanup() {
	if [ -n "$ORCHD_PID" ] && kill -0 "$ORCHD_PID" 2>/dev/null; then
		kill -TERM "$ORCHD_PID" 2>/dev/null
		wait_gone "$ORCHD_PID" 15
	fi
	for n in $DKW $DHANG; do
		docker rm -f "orchd-$E2E_INSTANCE-$n" >/dev/null 2>&1
	done
	rm -rf "$V"
	e2e_cleanup
}
trap dk_cleanup EXIT

port_base 11
ports GW API P_DKW P_DHANG

mkdir -p "$T/log" "$V/www" "$V/bin"
echo "hello from a container" >"$V/www/index.html"
cat >"$V/bin/run.sh" <<'EOF'
trap 'exit 0' TERM
/bin/httpd -f -p "127.0.0.1:$PORT" -h /www &
wait
EOF
chmod -R a+rX "$V/www" "$V/bin"
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"

wl_conf() {	# wl_conf NAME PORT [LINE...]
	n=$1 p=$2
	shift 2
	cat <<CONF
workload "$n" {
	host "$n.test"
	driver docker
	image "$IMAGE"
	command "/bin/sh /orchd/run.sh"
	network host
	env "PORT=$p"
	volume "$V/www" "/www"
	volume "$V/bin" "/orchd"
	port $p
	health path "/index.html"
	keep warm
	stop timeout 1s
CONF
	conf_end "$@"
}

conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
wake timeout 20s
CONF
wl_conf "$DKW" "$P_DKW" >>"$T/orchd.conf"
wl_conf "$DHANG" "$P_DHANG" 'health interval 1s' 'health timeout 1s' \
    'health failures 2' >>"$T/orchd.conf"

ctl() {
	"$ORCHCTL" -s "$SOCK" "$@" >"$T/out" 2>"$T/err"
}
listed_as() {	# listed_as NAME STATE
	ctl show workloads && grep -Eq "^$1 +$2 " "$T/out"
}
cid() { docker inspect -f '{{.Id}}' "orchd-$E2E_INSTANCE-$1" 2>/dev/null; }
# its container runs, and its start is newer than START
started_since() {
	[ "$(docker inspect -f '{{.State.Running}} {{.State.StartedAt}}' \
	    "orchd-$E2E_INSTANCE-$1" 2>/dev/null)" != "true $2" ] &&
	    [ "$(docker inspect -f '{{.State.Running}}' "orchd-$E2E_INSTANCE-$1" \
	    2>/dev/null)" = true ] && listed_as "$1" running
}
metric() {	# metric NAME-AND-LABELS: its value in a fresh /metrics
	curl -sS -m 30 -H "Authorization: Bearer $KEY" -o "$T/metrics" \
	    "http://127.0.0.1:$API/metrics"
	awk -v m="$1" 'index($0, m " ") == 1 { print $2 }' "$T/metrics"
}
RFC3339='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z'

check "orchd -n accepts the configuration" "$ORCHD" -n -f "$T/orchd.conf"
start_orchd_or_exit
check "$DKW, kept warm, runs" wait_for 30 listed_as "$DKW" running
check "$DHANG, kept warm, runs" wait_for 30 listed_as "$DHANG" running

# 1. docker kill: the container dies, and is started again
at=$(docker inspect -f '{{.State.StartedAt}}' "orchd-$E2E_INSTANCE-$DKW")
docker kill "orchd-$E2E_INSTANCE-$DKW" >/dev/null 2>&1
check "killed by hand, its container runs again" \
    wait_for 30 started_since "$DKW" "$at"
ctl show workload "$DKW"
check "the history: it stopped by itself" \
    grep -Eq "^$RFC3339 +running +failed " "$T/out"
check "then a restart after 1 s" \
    grep -Eq "^$RFC3339 +failed +waking +restart +after 1s$" "$T/out"
m=$(metric "orchd_workload_restarts_total{workload=\"$DKW\"}")
check "/metrics: one restart ($m)" [ "$m" = 1 ]
c=$(curl -s -m 10 -o /dev/null -w '%{http_code}' -H "Host: $DKW.test" \
    "http://127.0.0.1:$GW/index.html")
check "and it answers ($c)" [ "$c" = 200 ]

# 2. its server stops answering: found unhealthy, restarted
at=$(docker inspect -f '{{.State.StartedAt}}' "orchd-$E2E_INSTANCE-$DHANG")
docker exec "orchd-$E2E_INSTANCE-$DHANG" /bin/busybox sh -c \
    'kill -STOP $(/bin/busybox pidof httpd)' >/dev/null 2>&1
check "its httpd stopped, found unhealthy" wait_for 20 grep -q \
    "workload $DHANG: running -> suspending (unhealthy" "$T/orchd.log"
check "and restarted" wait_for 40 started_since "$DHANG" "$at"
ctl show workload "$DHANG"
check "the history says unhealthy, then restart" sh -c "
    grep -Eq '^$RFC3339 +running +suspending +unhealthy +2 health checks failed: ' '$T/out' &&
    grep -Eq '^$RFC3339 +asleep +waking +restart ' '$T/out'"

stop_orchd
check "SIGTERM: orchd exits 0 ($STATUS)" [ "$STATUS" -eq 0 ]
e2e_done
