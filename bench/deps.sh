#!/bin/sh
# Installs the public tools the benchmarks use, from Debian's packages,
# only those missing.  The packages' own services are not wanted: if
# installing one started it, it is stopped again (only if it was not
# running before), and nothing is enabled.
#
#	sh bench/deps.sh
set -eu

if [ "$(id -u)" -ne 0 ]; then
	echo "bench/deps.sh: run as root (apt-get)" >&2
	exit 1
fi

need=
have() { command -v "$1" >/dev/null 2>&1; }
have wrk || need="$need wrk"
have nginx || [ -x /usr/sbin/nginx ] || need="$need nginx-light"
have haproxy || [ -x /usr/sbin/haproxy ] || need="$need haproxy"
have hyperfine || need="$need hyperfine"
[ -x /usr/bin/time ] || need="$need time"
[ -x /bin/busybox ] || need="$need busybox-static"
have curl || need="$need curl"
have taskset || need="$need util-linux"
have cc || need="$need gcc"
have valgrind || need="$need valgrind"
have redis-server || need="$need redis-server"
have redis-benchmark || need="$need redis-tools"
# part 13's app that takes seconds to boot (no service of its own)
have gunicorn || have gunicorn3 || need="$need gunicorn"

[ -z "$need" ] && { echo "bench/deps.sh: all tools present"; exit 0; }

# the services running before, which are not ours to stop afterwards
pids_of() { pgrep -x "$1" 2>/dev/null | tr '\n' ' ' || true; }
nginx_before=$(pids_of nginx)
haproxy_before=$(pids_of haproxy)
redis_server_before=$(pids_of redis-server)

# keep the packages' postinst from starting their services where
# invoke-rc.d is honoured
policy=/usr/sbin/policy-rc.d
made_policy=
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\nexit 101\n' >"$policy"
	chmod 0755 "$policy"
	made_policy=1
fi
cleanup() { [ -n "$made_policy" ] && rm -f "$policy"; return 0; }
trap cleanup EXIT

echo "bench/deps.sh: installing$need"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || true
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $need >/dev/null

# stop what the install started, never what was there before
for name in nginx haproxy redis-server; do
	eval before=\$$(echo "$name" | tr - _)_before
	[ -z "$before" ] || continue
	if command -v systemctl >/dev/null 2>&1 &&
	    systemctl is-active --quiet "$name" 2>/dev/null; then
		systemctl stop "$name" || true
		systemctl disable "$name" >/dev/null 2>&1 || true
	fi
	for p in $(pids_of "$name"); do
		# only the master (its parent is init) is signalled
		[ "$(ps -o ppid= -p "$p" | tr -d ' ')" = 1 ] && kill -TERM "$p" || true
	done
done
echo "bench/deps.sh: done"
