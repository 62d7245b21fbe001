#!/bin/sh
# How process workloads stop: a server that ignores SIGTERM (busybox
# httpd started with SIGTERM ignored) is suspended at once with "stop
# signal INT" or "stop signal KILL", and after its "stop timeout" with
# SIGKILL, instead of the default 10 s.  The containers' side is in
# docker.sh.  Loopback only, every wait bounded.
#
#	sh regress/e2e/stop.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

if [ ! -x /bin/busybox ]; then
	skip "no /bin/busybox (busybox-static)"
fi

port_base 13
ports GW P_INT P_KILL P_SHORT

# the workloads run as _orchd: their script and pages readable
mkdir -p "$T/log" "$T/www"
echo "hello" >"$T/www/index.html"
cat >"$T/ign.sh" <<EOF
#!/bin/sh
# SIGTERM stays ignored across the exec
trap '' TERM
exec /bin/busybox httpd -f -p "127.0.0.1:\$1" -h "$T/www"
EOF
chmod -R a+rX "$T/ign.sh" "$T/www"

wl() {	# wl NAME PORT [EXTRA...]
	n=$1 p=$2
	shift 2
	cat <<CONF
workload "$n" {
	host "$n.test"
	command "/bin/sh '$T/ign.sh' $p"
	port $p
CONF
	conf_end "$@"
}
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
idle timeout 5m
reaper interval 1s
wake timeout 10s

listen on 127.0.0.1 port $GW

CONF
wl int "$P_INT" 'stop signal INT' >>"$T/orchd.conf"
wl kill "$P_KILL" 'stop signal SIGKILL' >>"$T/orchd.conf"
wl short "$P_SHORT" 'stop timeout 1s' >>"$T/orchd.conf"

logged() { grep -q -- "$1" "$T/orchd.log"; }
quiet() { "$@" >/dev/null 2>&1; }
serving() { pgrep -f "httpd -f -p 127.0.0.1:$1" >/dev/null; }
gone() { ! serving "$1"; }
wake() { "$ORCHCTL" -s "$SOCK" wake "$1" >/dev/null 2>&1; }
# ignores_term PID: SIGTERM (15, bit 14) is in its ignored signals
ignores_term() {
	m=$(sed -n 's/^SigIgn:[[:space:]]*//p' "/proc/${1:-0}/status" 2>/dev/null)
	[ -n "$m" ] && [ $((0x$m & 0x4000)) -ne 0 ]
}

start_orchd_or_exit

# 1. stop signal INT: the server's own way out, at once
check "wake int" wake int
check "it serves" wait_for 5 serving "$P_INT"
pid=$(pgrep -f "httpd -f -p 127.0.0.1:$P_INT" | head -n 1)
check "and ignores SIGTERM" ignores_term "$pid"
t=$(suspend_ms int)
check "suspended in well under the 10 s default ($t ms)" within "$t" 0 5000
check "its process is gone" wait_for 5 gone "$P_INT"
check "by SIGINT, not killed" \
    sh -c "! grep -q 'workload int: pid .* still there' '$T/orchd.log'"
check "the parent sent SIGINT" wait_for 5 logged \
    "workload int: pid $pid killed by signal 2"

# 2. stop signal KILL
check "wake kill" wake kill
check "it serves" wait_for 5 serving "$P_KILL"
t=$(suspend_ms kill)
check "suspended in well under 10 s ($t ms)" within "$t" 0 5000
check "its process is gone" wait_for 5 gone "$P_KILL"
check "killed by signal 9" wait_for 5 logged "workload kill: pid .* killed by signal 9"

# 3. stop timeout 1s: SIGTERM, ignored, then SIGKILL a second later
check "wake short" wake short
check "it serves" wait_for 5 serving "$P_SHORT"
t=$(suspend_ms short)
check "suspended after its 1 s stop timeout, not 10 s ($t ms)" \
    within "$t" 800 8000
check "its process is gone" wait_for 5 gone "$P_SHORT"
check "killed once its stop timeout passed" wait_for 5 logged \
    "workload short: pid .* still there 1s after SIGTERM, killing it"

# 4. a reload changes the stop signal: the next start uses it
sed "s/stop timeout 1s/stop signal KILL/" "$T/orchd.conf" >"$T/new.conf"
mv "$T/new.conf" "$T/orchd.conf"
check "orchctl reload" quiet "$ORCHCTL" -s "$SOCK" reload
check "wake short" wake short
check "it serves" wait_for 5 serving "$P_SHORT"
t=$(suspend_ms short)
check "now suspended at once by SIGKILL ($t ms)" within "$t" 0 5000
check "its process is gone" wait_for 5 gone "$P_SHORT"

stop_orchd
check "orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]
check "a clean stop logs no fatal and loses no child" \
    sh -c "! grep -E 'fatal|lost child' '$T/orchd.log'"
ORCHD_PID=
e2e_done
