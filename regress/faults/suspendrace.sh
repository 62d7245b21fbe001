#!/bin/sh
# A request during a suspend, for the process and the docker drivers:
# each workload ignores SIGTERM, so that with "stop timeout 3s" its
# suspend lasts 3 s; 5 requests sent while it is suspending are held,
# and served (200, never 503 or 504) by a fresh wake once the suspend is
# done: the history goes suspending, asleep, waking, running, and the
# workload was started once more.  The swarm driver's side, with two
# instances, is suspendswarm.sh.  Figures: the held requests' longest
# time.  The docker part is left out, saying so, where no Docker daemon
# answers.  Loopback only, every wait bounded.
. "$(dirname "$0")/../e2e/lib.sh"
e2e_init "$1"
need_root
ensure_user

IMAGE=orchd-test/busybox:latest
TAG=sr$$
PROC=${TAG}p
DOCK=${TAG}d
V=$(mktemp -d /tmp/orchd-faults-vol.XXXXXX)
chmod 0755 "$V"
DOCKER=
have_docker && DOCKER=1

sr_cleanup() {
	if [ -n "$ORCHD_PID" ] && kill -0 "$ORCHD_PID" 2>/dev/null; then
		kill -TERM "$ORCHD_PID" 2>/dev/null
		wait_gone "$ORCHD_PID" 10
	fi
	[ -z "$DOCKER" ] || docker rm -f "$(cname "$DOCK")" >/dev/null 2>&1
	rm -rf "$V"
	e2e_cleanup
}
trap sr_cleanup EXIT

port_base 37
ports GW P_PROC P_DOCK
mkdir -p "$T/log" "$V/www"
echo hello >"$V/www/index.html"
# the server, SIGTERM ignored across its exec; a line per start
cat >"$V/run.sh" <<'EOF'
#!/bin/sh
echo start >>"$STARTS"
trap '' TERM
exec /bin/busybox httpd -f -p "127.0.0.1:$PORT" -h "$WWW"
EOF
: >"$V/starts.p"
: >"$V/starts.d"
chmod 0666 "$V/starts.p" "$V/starts.d"
chmod -R a+rX "$V"

conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
idle timeout 5m
wake timeout 30s

listen on 127.0.0.1 port $GW

workload "$PROC" {
	host "$PROC.test"
	command "/bin/sh $V/run.sh"
	env "PORT=$P_PROC"
	env "STARTS=$V/starts.p"
	env "WWW=$V/www"
	port $P_PROC
	stop timeout 3s
}
CONF
if [ -n "$DOCKER" ]; then
	cat >>"$T/orchd.conf" <<CONF
workload "$DOCK" {
	host "$DOCK.test"
	driver docker
	image "$IMAGE"
	command "/bin/sh /v/run.sh"
	network host
	env "PORT=$P_DOCK"
	env "STARTS=/v/starts.d"
	env "WWW=/v/www"
	volume "$V" "/v"
	port $P_DOCK
	health path "/index.html"
	stop timeout 3s
}
CONF
	ALL="$PROC $DOCK"
else
	echo "# no Docker daemon answers: the docker workload left out"
	ALL=$PROC
fi

ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
state_is() {
	[ "$(ctl show workload "$1" 2>/dev/null |
	    awk '$1 == "state:" { print $2 }')" = "$2" ]
}
starts() {	# starts NAME: its starts so far
	case $1 in
	"$PROC")	wc -l <"$V/starts.p" ;;
	*)		wc -l <"$V/starts.d" ;;
	esac
}
# held NAME I: request I to NAME in the background: "CODE MS" in a file
held() {
	curl -s -m 40 -o /dev/null -w '%{http_code} %{time_total}\n' \
	    -H "Host: $1.test" "http://127.0.0.1:$GW/index.html" \
	    >"$T/r.$1.$2" 2>/dev/null &
}
answered() { [ "$(cat "$T"/r."$1".* 2>/dev/null | wc -l)" -eq 5 ]; }
# history: the last four transitions of NAME, TO states on one line
last_four() {
	ctl show workload "$1" | awk '/^TIME/ { h = 1; next }
	    h && NF >= 4 { print $3 }' | tail -n 4 | tr '\n' ' '
}

fresh() { [ "$(last_four "$1")" = "suspending asleep waking running " ]; }

start_orchd_or_exit

for w in $ALL; do
	c=$(curl -s -m 40 -o /dev/null -w '%{http_code}' -H "Host: $w.test" \
	    "http://127.0.0.1:$GW/index.html")
	check "$w: a request wakes it ($c)" [ "$c" = 200 ]
	n0=$(starts "$w")
	ctl suspend "$w" >"$T/suspend.$w" 2>&1 &
	sp=$!
	check "$w: suspending" wait_for 5 state_is "$w" suspending
	for i in 1 2 3 4 5; do
		held "$w" "$i"
	done
	check "$w: the suspend ends (within 20 s)" wait_for 20 dead "$sp"
	wait "$sp" 2>/dev/null
	check "$w: the 5 requests are answered (within 45 s)" \
	    wait_for 45 answered "$w"
	codes=$(cat "$T"/r."$w".* | awk '{ printf "%s ", $1 }')
	check "$w: all served, 200 ($codes)" \
	    [ "$codes" = "200 200 200 200 200 " ]
	figure "held_max_s.$w" "$(cat "$T"/r."$w".* | sort -k2 -n |
	    tail -n 1 | cut -d' ' -f2)" s
	check "$w: by a fresh wake (suspending asleep waking running)" \
	    wait_for 10 fresh "$w"
	[ "$FAILED" -eq 0 ] || echo "# history ends: $(last_four "$w")"
	check "$w: started once more ($(starts "$w") starts, $n0 before)" \
	    [ "$(starts "$w")" -eq $((n0 + 1)) ]
done
check "no fatal in the log" sh -c "! grep -q fatal '$T/orchd.log'"
stop_orchd
ORCHD_PID=
e2e_done
