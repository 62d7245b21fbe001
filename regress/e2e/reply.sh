#!/bin/sh
# reply: answers find whoever asked, and only them (struct proc_asker,
# the parent's requests in flight).  An orchctl that leaves while its
# answer is under way (a wake waiting on a slow start) leaves orchd
# serving the next client, and the late answer goes nowhere; two
# clients with requests under way at once each get their own answer;
# the API's logs are answered by each of several gateways ("prefork"),
# to the gateway that asked, a docker workload's too (read by runtimed,
# relayed by the parent), and a wake asked through several gateways at
# once is answered to each.  Every wait bounded.
#
#	sh regress/e2e/reply.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
command -v python3 >/dev/null 2>&1 || skip "needs python3"

ports GW API P_SLOW P_APP P_DOCK
KEY=e2e-key-$$-0123456789abcdef
mkdir -p "$T/log"
testhttp_bin
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
# a workload that takes 3 s to start, and one that logs a line
cat >"$T/bin/slow.sh" <<EOF
#!/bin/sh
sleep 3
exec "$T/bin/testhttp" serve $P_SLOW
EOF
cat >"$T/bin/app.sh" <<EOF
#!/bin/sh
echo "output of app $$"
exec "$T/bin/testhttp" serve $P_APP
EOF
chmod 0755 "$T/bin/slow.sh" "$T/bin/app.sh"

# with Docker, a container whose logs runtimed reads; what it mounts lies
# outside $T, where no volume may be
DOCK=
if have_docker; then
	DOCK=e2e$$reply
	V=$(mktemp -d /tmp/orchd-e2e-vol.XXXXXX)
	chmod 0755 "$V"
	cat >"$V/run.sh" <<EOF
#!/bin/sh
trap 'exit 0' TERM
echo "output of a container $$"
/bin/httpd -f -p "127.0.0.1:$P_DOCK" -h /orchd &
wait
EOF
	echo "hello" >"$V/index.html"
	chmod -R a+rX "$V"
else
	echo "# no Docker: a container's logs through the API are not tried"
fi
reply_cleanup() {
	if [ -n "$ORCHD_PID" ] && kill -0 "$ORCHD_PID" 2>/dev/null; then
		kill -TERM "$ORCHD_PID" 2>/dev/null
		wait_gone "$ORCHD_PID" 10
	fi
	if [ -n "$DOCK" ]; then
		docker rm -f "orchd-$E2E_INSTANCE-$DOCK" >/dev/null 2>&1
		rm -rf "$V"
	fi
	e2e_cleanup
}
trap reply_cleanup EXIT

conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
prefork 3
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"

workload "slow" {
	host "slow.test"
	command "/bin/sh $T/bin/slow.sh"
	port $P_SLOW
	wake timeout 20s
	idle timeout 10m
}
workload "app" {
	host "app.test"
	command "/bin/sh $T/bin/app.sh"
	port $P_APP
	idle timeout 10m
}
CONF
[ -z "$DOCK" ] || cat >>"$T/orchd.conf" <<CONF
workload "$DOCK" {
	host "dock.test"
	driver docker
	image "orchd-test/busybox:latest"
	command "/bin/sh /orchd/run.sh"
	network host
	volume "$V" "/orchd"
	port $P_DOCK
	health path "/index.html"
	idle timeout 10m
	wake timeout 30s
}
CONF

# ctl ARGS...: orchctl's status in $rc, stdout in $T/out, stderr in $T/err
ctl() {
	"$ORCHCTL" -s "$SOCK" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	return $rc
}
is_state() {	# is_state NAME STATE
	"$ORCHCTL" -s "$SOCK" show workloads | grep -Eq "^$1 +$2 "
}
api() {
	curl -sS -m 30 -H "Authorization: Bearer $KEY" "$@"
}

start_orchd_or_exit

# 1. a client that leaves while its wake waits on the start
"$ORCHCTL" -s "$SOCK" wake slow >"$T/gone.out" 2>&1 &
gone=$!
check "a wake of slow is under way" wait_for 5 is_state slow waking
kill -KILL "$gone" 2>/dev/null
wait "$gone" 2>/dev/null
check "its client killed, orchd answers the next one" ctl show summary
check "while slow is still waking" is_state slow waking
check "the wake goes on without its client" wait_for 15 is_state slow running
check "orchctl wake slow then answers at once" ctl wake slow
check "that it runs ($(cat "$T/out"))" grep -qx 'slow is running' "$T/out"
check "orchd is still up" alive "$ORCHD_PID"

# 2. two clients under way at once, each answered its own
check "orchctl suspend slow" ctl suspend slow
"$ORCHCTL" -s "$SOCK" wake slow >"$T/a.out" 2>&1 &
a=$!
check "client A's wake is under way" wait_for 5 is_state slow waking
check "client B's show workload slow is answered meanwhile" \
    ctl show workload slow
check "with slow's own definition and state" \
    grep -Eq '^state: +waking$' "$T/out"
check "client A is still waiting" alive "$a"
check "then client A is answered" wait_gone "$a" 20
wait "$a"
st=$?
check "that slow runs ($st: $(cat "$T/a.out"))" \
    [ "$st" -eq 0 -a "$(cat "$T/a.out")" = "slow is running" ]

# 3. the API on each gateway: the answer to the one that asked.  Each
# try is one connection, kept open after its answer, so that ss says
# which gateway holds it: tries until each of the three has answered.
check "orchctl wake app" ctl wake app
cat >"$T/ask.py" <<'EOF'
import http.client, re, subprocess, sys
port, key, path, want = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
c.request("GET", path, headers={"Authorization": "Bearer " + key})
try:
    r = c.getresponse()
    body = r.read().decode("utf-8", "replace")
except OSError:
    print("timeout - no")
    sys.exit(0)
mine = c.sock.getsockname()[1]
ss = subprocess.run(["ss", "-tnpH", "state", "established",
    "( sport = :%d and dport = :%d )" % (port, mine)],
    capture_output=True, text=True).stdout
m = re.search(r"pid=(\d+)", ss)
print(r.status, m.group(1) if m else "-", "yes" if want in body else "no")
c.close()
EOF
"$ORCHCTL" -s "$SOCK" show summary >"$T/summary"
instance_of() {	# instance_of PID: the gateway's number, or -
	awk -v p="$1" '$1 == "gateway" && $3 == p { print $2; f = 1 }
	    END { if (!f) print "-" }' "$T/summary"
}
# each_gateway NAME WANT: asks for NAME's logs until each of the three
# gateways has answered with WANT in them, or two did not; $seen, $bad
# and $tries say
each_gateway() {
	_eg_name=$1
	_eg_want=$2
	seen=""
	bad=0
	tries=0
	while [ $tries -lt 40 ]; do
		set -- $(python3 "$T/ask.py" "$API" "$KEY" \
		    "/v1/workloads/$_eg_name/logs" "$_eg_want")
		tries=$((tries + 1))
		if [ "$1" != 200 ] || [ "$3" != yes ]; then
			bad=$((bad + 1))
			echo "# try $tries: status $1, gateway pid $2, log $3"
			[ $bad -ge 2 ] && break
			continue
		fi
		i=$(instance_of "$2")
		case " $seen " in
		*" $i "*) ;;
		*) seen="$seen $i" ;;
		esac
		[ "$(echo $seen | wc -w)" -ge 3 ] && break
	done
}
all_three() {
	echo "$seen" | grep -qw 0 && echo "$seen" | grep -qw 1 &&
	    echo "$seen" | grep -qw 2
}
each_gateway app "output of app $$"
check "API logs: every answer 200 with the log ($bad bad of $tries)" \
    [ "$bad" -eq 0 ]
check "answered by each of the 3 gateways (seen:$seen)" all_three
if [ -n "$DOCK" ]; then
	check "orchctl wake $DOCK (a container)" ctl wake "$DOCK"
	each_gateway "$DOCK" "output of a container $$"
	check "a container's logs through the API: every answer 200 with \
its log ($bad bad of $tries)" [ "$bad" -eq 0 ]
	check "answered by each of the 3 gateways (seen:$seen)" all_three
fi

# a wake asked through several gateways at once: each asker answered
check "orchctl suspend slow, again" ctl suspend slow
pids=""
for k in 1 2 3 4 5 6; do
	api -o "$T/wake.$k" -w '%{http_code}' -X POST \
	    "http://127.0.0.1:$API/v1/workloads/slow/wake" >"$T/code.$k" &
	pids="$pids $!"
done
n=0
for p in $pids; do
	wait "$p"
done
for k in 1 2 3 4 5 6; do
	[ "$(cat "$T/code.$k")" = 200 ] && n=$((n + 1))
done
check "6 API wakes at once, on whichever gateways: each 200 ($n/6)" \
    [ "$n" -eq 6 ]
check "slow runs" is_state slow running

check "show summary still lists the 3 gateways" \
    sh -c "[ \$(\"$ORCHCTL\" -s \"$SOCK\" show summary |
    grep -c '^gateway ') -eq 3 ]"
grep -E 'no channel|protocol error' "$T/orchd.log" | sed 's/^/#	/'
check "orchd logged no answer without a channel" \
    sh -c "! grep -Eq 'no channel|protocol error' '$T/orchd.log'"
stop_orchd
check "orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]

e2e_done
