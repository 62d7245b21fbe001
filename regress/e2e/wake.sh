#!/bin/sh
# Wake on request: concurrent requests to a sleeping workload cause one
# start and are all served; a chunked request body survives being held;
# a workload that cannot start answers 503 with Retry-After and is tried
# again on the next request; one that never listens answers 504 at its
# wake timeout and is not left running.  Then the rest of the lifecycle:
# an exec error, suspend by the reaper with a request arriving during the
# stop, keep warm, removal by a reload, a workload that dies, orchctl's
# commands, shutdown and restart.  All on loopback, every wait bounded.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

# a port nothing listens on, at or above $1
# no_proc PATTERN: no process matches (pgrep run here, not by sh -c,
# whose own command line would match)
no_proc() {
	! pgrep -f "$1" >/dev/null
}
ports GW P_HELLO P_POST P_BROKEN P_NEVER P_SLOW P_WARM P_SICK P_NOEXEC
SLEEPER="/bin/busybox sleep 1$P_NEVER"
PYTHON=/usr/bin/python3

# the database directory is left for orchd to make, owned by _orchd
mkdir -p "$T/log" "$T/www/cgi-bin"
echo hello >"$T/www/index.html"

# the workloads run as uids of their own: scripts readable, counters
# writable
cat >"$T/hello.sh" <<EOF
#!/bin/sh
echo start >>"$T/hello.starts"
exec /bin/busybox httpd -f -p 127.0.0.1:$P_HELLO -h "$T/www"
EOF
cat >"$T/broken.sh" <<EOF
#!/bin/sh
echo start >>"$T/broken.starts"
echo boom
exit 1
EOF
# stops slowly: a request that comes while it stops waits for a new start
cat >"$T/slow.sh" <<EOF
#!/bin/sh
echo start >>"$T/slow.starts"
trap 'sleep 2; exit 0' TERM
/bin/busybox httpd -f -p 127.0.0.1:$P_SLOW -h "$T/www" &
wait
EOF
# python, for the chunked body: busybox httpd gives a CGI no chunked body
cat >"$T/post.py" <<'EOF'
import hashlib, sys
from http.server import BaseHTTPRequestHandler, HTTPServer

class Echo(BaseHTTPRequestHandler):
    def body(self):
        if self.headers.get('Transfer-Encoding', '').lower() != 'chunked':
            return self.rfile.read(int(self.headers.get('Content-Length', 0)))
        data = b''
        while True:
            size = int(self.rfile.readline().split(b';')[0].strip(), 16)
            if size == 0:
                while self.rfile.readline() not in (b'\r\n', b'\n', b''):
                    pass
                return data
            data += self.rfile.read(size)
            self.rfile.readline()

    def do_POST(self):
        data = self.body()
        te = self.headers.get('Transfer-Encoding', '-')
        out = ('%s %d %s\n' % (hashlib.md5(data).hexdigest(), len(data),
            te)).encode()
        self.send_response(200)
        self.send_header('Content-Length', str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args):
        pass

HTTPServer(('127.0.0.1', int(sys.argv[1])), Echo).serve_forever()
EOF
cat >"$T/post.sh" <<EOF
#!/bin/sh
echo start >>"$T/post.starts"
exec $PYTHON "$T/post.py" $P_POST
EOF
# and busybox's CGI for a body with a Content-Length
cat >"$T/www/cgi-bin/md5" <<'EOF'
#!/bin/sh
printf 'Content-Type: text/plain\r\n\r\n'
/bin/busybox md5sum | /bin/busybox cut -d' ' -f1
EOF
# each workload runs as a uid of its own: the counters are everyone's
for f in hello broken post slow; do
	: >"$T/$f.starts"
	chmod 0666 "$T/$f.starts"
done
chmod 0755 "$T/hello.sh" "$T/broken.sh" "$T/post.sh" "$T/slow.sh" \
    "$T/www/cgi-bin/md5"
chmod 0644 "$T/post.py"
chmod -R a+rX "$T/www"

# write_conf [warm]: the configuration, with the keep warm workload or not
write_conf() {
	conf_head >"$T/orchd.conf"
	cat >>"$T/orchd.conf" <<CONF
idle timeout 5m
wake timeout 10s
reaper interval 1s

listen on 127.0.0.1 port $GW

workload "hello" {
	host "hello.test"
	command "/bin/sh '$T/hello.sh'"
	port $P_HELLO
}
workload "post" {
	host "post.test"
	command "/bin/sh '$T/post.sh'"
	port $P_POST
}
workload "broken" {
	host "broken.test"
	command "/bin/sh '$T/broken.sh'"
	port $P_BROKEN
}
workload "noexec" {
	host "noexec.test"
	command "'$T/missing' --flag"
	port $P_NOEXEC
}
workload "slow" {
	host "slow.test"
	command "/bin/sh '$T/slow.sh'"
	port $P_SLOW
	health path "/index.html"
	idle timeout 1s
}
workload "unhealthy" {
	host "unhealthy.test"
	command "/bin/busybox httpd -f -p 127.0.0.1:$P_SICK -h '$T/www'"
	port $P_SICK
	health path "/health"
	wake timeout 2s
}
workload "never" {
	host "never.test"
	command "$SLEEPER"
	port $P_NEVER
	wake timeout 2s
}
CONF
	[ "$1" = warm ] || return 0
	cat >>"$T/orchd.conf" <<CONF
workload "warm" {
	host "warm.test"
	command "/bin/busybox httpd -f -p 127.0.0.1:$P_WARM -h '$T/www'"
	port $P_WARM
	keep warm
}
CONF
}
write_conf warm

# logged PATTERN: the daemon's log has a line with it
logged() {
	grep -q -- "$1" "$T/orchd.log"
}

# get HOST [CURL-ARGS...]: prints the status code, then the body
get() {
	h=$1
	shift
	curl -s -m 20 -o "$T/body" -w '%{http_code}\n' -H "Host: $h" "$@" \
	    "http://127.0.0.1:$GW/"
	cat "$T/body" 2>/dev/null
}
lines() { wc -l <"$1" | tr -d ' '; }

start_orchd_or_exit

# 1. twenty requests at once to a sleeping workload: one start, 20 x 200
i=0
pids=
while [ $i -lt 20 ]; do
	curl -s -m 20 -o "$T/c$i.body" -w '%{http_code}\n' \
	    -H 'Host: hello.test' "http://127.0.0.1:$GW/" >"$T/c$i.code" &
	pids="$pids $!"
	i=$((i + 1))
done
# not a bare wait: orchd is a child of this shell too
for p in $pids; do
	wait "$p"
done
codes=$(cat "$T"/c*.code | sort | uniq -c | tr -s ' ' | tr '\n' ',')
check "20 concurrent requests to a sleeping workload: all 200 ($codes)" \
    [ "$(grep -lx 200 "$T"/c*.code | wc -l)" -eq 20 ]
check "and every one got the page" \
    [ "$(grep -lx hello "$T"/c*.body | wc -l)" -eq 20 ]
check "exactly one start ($(lines "$T/hello.starts"))" \
    [ "$(lines "$T/hello.starts")" -eq 1 ]
out=$(get hello.test)
check "a request to the running workload: 200" \
    [ "$(echo "$out" | head -n 1)" = 200 ]
check "still one start" [ "$(lines "$T/hello.starts")" -eq 1 ]
hpid=$(pgrep -f "httpd -f -p 127.0.0.1:$P_HELLO" | head -n 1)
owner=$(stat -c %u "/proc/${hpid:-0}" 2>/dev/null)
check "the workload runs as a uid of its own ($owner), not root or _orchd" \
    sh -c '[ -n "$1" ] && [ "$1" -ne 0 ] && [ "$1" -ne "$2" ]' sh "$owner" \
    "$(id -u _orchd)"
pgid=$(ps -o pgid= -p "${hpid:-0}" 2>/dev/null | tr -d ' ')
check "in its own process group" [ "${pgid:-x}" = "${hpid:-y}" ]
check "its log file belongs to that uid" \
    [ "$(stat -c %u "$T/log/hello.log" 2>/dev/null)" = "$owner" ]

# a body with a Content-Length, through busybox's CGI
head -c 65536 /dev/urandom >"$T/payload"
want=$(md5sum <"$T/payload" | cut -d' ' -f1)
out=$(curl -s -m 20 -H 'Host: hello.test' --data-binary @"$T/payload" \
    "http://127.0.0.1:$GW/cgi-bin/md5")
check "a 64 KiB POST with Content-Length arrives intact" [ "$out" = "$want" ]

# 2. a 64 KiB chunked POST to a sleeping workload
if [ -x "$PYTHON" ]; then
	out=$(curl -s -m 20 -H 'Host: post.test' \
	    -H 'Transfer-Encoding: chunked' --data-binary @"$T/payload" \
	    "http://127.0.0.1:$GW/upload")
	check "a 64 KiB chunked POST to a sleeping workload arrives intact" \
	    [ "$out" = "$want 65536 chunked" ]
	[ "$out" = "$want 65536 chunked" ] || echo "# got: $out"
	check "one start for it" [ "$(lines "$T/post.starts")" -eq 1 ]
else
	echo "# $PYTHON missing: chunked POST not tested"
fi

# 3. a workload that cannot start: 503, Retry-After, logs kept
curl -s -m 20 -D "$T/broken.head" -o /dev/null -H 'Host: broken.test' \
    "http://127.0.0.1:$GW/"
check "a failing workload answers 503" \
    grep -q '^HTTP/1.1 503' "$T/broken.head"
check "with Retry-After" grep -qi '^Retry-After: [0-9]' "$T/broken.head"
check "orchctl show summary still answers" \
    sh -c "\"$ORCHCTL\" -s \"$SOCK\" show summary >/dev/null"
check "its output is in its log file" grep -qx boom "$T/log/broken.log"
check "the daemon logged why" logged \
    'workload broken: waking -> failed (start failed: exited with status 1)'
cat >"$T/broken.sh" <<EOF
#!/bin/sh
echo start >>"$T/broken.starts"
exec /bin/busybox httpd -f -p 127.0.0.1:$P_BROKEN -h "$T/www"
EOF
out=$(get broken.test)
check "once fixed, the next request gets 200" \
    [ "$(echo "$out" | head -n 1)" = 200 ]
check "after two starts ($(lines "$T/broken.starts"))" \
    [ "$(lines "$T/broken.starts")" -eq 2 ]

# 4. a workload that never listens: 504 at its wake timeout, then gone
start=$(date +%s%N)
out=$(get never.test)
ms=$((($(date +%s%N) - start) / 1000000))
check "a workload that never listens answers 504 (got $(echo "$out" |
    head -n 1))" [ "$(echo "$out" | head -n 1)" = 504 ]
check "at its wake timeout of 2 s (${ms} ms)" \
    sh -c "[ $ms -ge 1800 ] && [ $ms -lt 5000 ]"
check "and its process is gone" wait_for 5 no_proc "$SLEEPER"
check "the daemon logged the wake timeout" \
    grep -q 'workload never: waking -> failed (wake timeout' "$T/orchd.log"

# a health path that answers 404: listening is not enough
out=$(get unhealthy.test)
check "a workload whose health check fails answers 504 (got $(echo "$out" |
    head -n 1))" [ "$(echo "$out" | head -n 1)" = 504 ]
check "and is stopped" wait_for 5 no_proc "httpd -f -p 127.0.0.1:$P_SICK"
echo ok >"$T/www/health"
chmod 0644 "$T/www/health"
out=$(get unhealthy.test)
check "once its health path answers 200, so does it" \
    [ "$(echo "$out" | head -n 1)" = 200 ]

# 5. an exec that fails: the parent's error, not a silent exit
out=$(get noexec.test)
check "a command that cannot be executed answers 503" \
    [ "$(echo "$out" | head -n 1)" = 503 ]
check "the daemon logged the exec error" \
    grep -q "exec $T/missing: No such file or directory" "$T/orchd.log"
check "and so did its log file" \
    grep -q "orchd: exec $T/missing: No such file or directory" \
    "$T/log/noexec.log"
check "orchd is still up" \
    sh -c "\"$ORCHCTL\" -s \"$SOCK\" show summary >/dev/null"

# 6. idle: suspended by the reaper; a request during the stop is held
# and served by a fresh start, never sent to the dying process
out=$(get slow.test)
check "the idle test workload answers" [ "$(echo "$out" | head -n 1)" = 200 ]
check "the reaper suspends it when idle" \
    wait_for 10 grep -q 'workload slow: running -> suspending (idle)' \
    "$T/orchd.log"
out=$(get slow.test)
check "a request while it stops: 200 (got $(echo "$out" | head -n 1))" \
    [ "$(echo "$out" | head -n 1)" = 200 ]
check "served by a second start ($(lines "$T/slow.starts"))" \
    [ "$(lines "$T/slow.starts")" -eq 2 ]
check "the stop completed first" \
    grep -q 'workload slow: suspending -> asleep (idle)' "$T/orchd.log"
woken_after_stop() {
	grep 'workload slow:' "$T/orchd.log" | grep -A1 'suspending -> asleep' |
	    grep -q 'asleep -> waking (request)'
}
check "then it was woken again" woken_after_stop
check "suspended again when idle, its process gone" \
    wait_for 10 no_proc "httpd -f -p 127.0.0.1:$P_SLOW"

# 7. keep warm: woken at start without a request; removed by a reload:
# stopped
check "a keep warm workload is woken at start" \
    grep -q 'workload warm: asleep -> waking (keep warm)' "$T/orchd.log"
check "and runs" wait_for 5 pgrep -f "httpd -f -p 127.0.0.1:$P_WARM"
write_conf
# a reload refuses what orchd -n does: noexec's program is missing
"$ORCHCTL" -s "$SOCK" reload >"$T/reload.out" 2>&1
st=$?
check "a reload with noexec's program missing is refused (status $st)" \
    [ "$st" -eq 1 ]
check "it says why" grep -q \
    "workload \"noexec\": command: $T/missing: No such file" "$T/reload.out"
sed '/^workload "noexec" {$/,/^}$/d' "$T/orchd.conf" >"$T/orchd.conf.new" &&
    mv "$T/orchd.conf.new" "$T/orchd.conf"
check "orchctl reload without it" \
    sh -c "\"$ORCHCTL\" -s \"$SOCK\" reload >/dev/null"
check "a removed workload is stopped" \
    wait_for 10 grep -q 'workload warm: suspending -> asleep (removed)' \
    "$T/orchd.log"
check "its process is gone" wait_for 5 no_proc "httpd -f -p 127.0.0.1:$P_WARM"
out=$(get hello.test)
check "the others keep their state across the reload" \
    [ "$(echo "$out" | tail -n 1)" = hello ]
check "without a start" [ "$(lines "$T/hello.starts")" -eq 1 ]

# 8. a running workload that dies: failed, and the next request starts it
kill -KILL "$hpid"
check "a running workload that is killed is failed" wait_for 5 logged \
    'workload hello: running -> failed (exited: killed by signal 9)'
out=$(get hello.test)
check "the next request starts it again: 200" \
    [ "$(echo "$out" | head -n 1)" = 200 ]
check "a second start ($(lines "$T/hello.starts"))" \
    [ "$(lines "$T/hello.starts")" -eq 2 ]

# 9. orchctl wake, suspend, keepwarm (when this orchctl sends them)
ctl() { "$ORCHCTL" -s "$SOCK" "$@" >"$T/ctl.out" 2>&1; }
if ctl wake nosuch || grep -q 'not supported' "$T/ctl.out"; then
	echo "# orchctl wake/suspend/keepwarm not supported yet: skipped"
else
	check "orchctl wake of an unknown workload fails" \
	    grep -q 'no such workload' "$T/ctl.out"
	check "orchctl wake hello" ctl wake hello
	check "orchctl suspend hello" ctl suspend hello
	check "it is suspended by the operator" \
	    grep -q 'workload hello: suspending -> asleep (operator)' \
	    "$T/orchd.log"
	check "its process is gone" \
	    wait_for 5 no_proc "httpd -f -p 127.0.0.1:$P_HELLO"
	check "orchctl wake of one that never listens fails" \
	    sh -c "! \"$ORCHCTL\" -s \"$SOCK\" wake never >\"$T/ctl.out\" 2>&1"
	check "and says why ($(cat "$T/ctl.out"))" \
	    grep -q 'not ready after 2s' "$T/ctl.out"
	check "orchctl keepwarm hello on" ctl keepwarm hello on
	check "wakes it" wait_for 5 pgrep -f "httpd -f -p 127.0.0.1:$P_HELLO"
	check "orchctl suspend of a kept warm workload fails" \
	    sh -c "! \"$ORCHCTL\" -s \"$SOCK\" suspend hello >/dev/null 2>&1"
	check "orchctl keepwarm hello off" ctl keepwarm hello off
fi

# SIGTERM: every workload stops with orchd
stop_orchd
check "SIGTERM: orchd exits 0 (status $STATUS)" [ "$STATUS" -eq 0 ]
check "no workload outlives orchd" \
    wait_for 5 no_proc "httpd -f -p 127.0.0.1:($P_HELLO|$P_BROKEN)|$T/post.py"

# 10. a restart: a process workload died with orchd, so what the store
# remembers as running is asleep now, and nothing is started for it
n=$(lines "$T/hello.starts")
if start_orchd; then
	ok "orchd starts again"
	check "a workload that ran before the restart is restored asleep" \
	    wait_for 10 logged 'workload hello: running -> asleep (restored'
	check "without a start" [ "$(lines "$T/hello.starts")" -eq "$n" ]
	out=$(get hello.test)
	check "and the next request wakes it" \
	    [ "$(echo "$out" | head -n 1)" = 200 ]
	stop_orchd
	check "SIGTERM again: orchd exits 0 ($STATUS)" [ "$STATUS" -eq 0 ]
else
	fail "orchd starts again"
fi
ORCHD_PID=
e2e_done
