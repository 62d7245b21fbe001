#!/bin/sh
# What orchd says of a workload right after a crash, and a suspend sent
# while a kept-warm workload restarts (issue 30):
#  - orchd killed with SIGKILL while a process workload runs, then
#    started again: from the moment its socket answers, orchctl (show
#    workloads -j) and the API, polled every 50 ms, say "checking" or
#    the true state (asleep: the process died with orchd), never the
#    "running" the database remembers; a request sent at once (to
#    another workload) is held and served; the history has running ->
#    checking -> asleep;
#  - with Docker, behind a relay that makes the daemon take 3 s to
#    answer after the kill (dockerrelay.py): a container that outlived
#    the kill is adopted, and orchctl and the API say checking, then
#    running, never asleep; one stopped meanwhile is never shown as the
#    running the database remembers; a request for it sent at once is
#    held through the check, then woken and served;
#  - a kept-warm workload with on change restart, replaced in place by
#    a reload, its stop and its start taking a second each: suspends
#    sent in a tight loop
#    throughout, by orchctl and the API, are all refused (409, "kept
#    warm"), none answered "asleep".
# Loopback only, every wait bounded.
#
#	sh regress/e2e/checking.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

IMAGE=orchd-test/busybox:latest
TAG=ck$$
DOCKER=
dockergid=$(getent group docker | cut -d: -f3)
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
if docker info >/dev/null 2>&1 && [ -n "$dockergid" ] && [ -n "$PY" ] &&
    sh "$(dirname "$0")/../docker-image.sh" >/dev/null 2>&1; then
	DOCKER=yes
fi
RELAY_PID=
V=$(mktemp -d /tmp/checking-vol.XXXXXX)
chmod 0755 "$V"

ck_cleanup() {
	if [ -n "$ORCHD_PID" ] && kill -0 "$ORCHD_PID" 2>/dev/null; then
		kill -TERM "$ORCHD_PID" 2>/dev/null
		wait_gone "$ORCHD_PID" 15
	fi
	[ -z "$RELAY_PID" ] || kill "$RELAY_PID" 2>/dev/null
	if [ -n "$DOCKER" ]; then
		docker rm -f "$(cname "${TAG}dk")" >/dev/null 2>&1
		docker rm -f "$(cname "${TAG}dg")" >/dev/null 2>&1
	fi
	rm -rf "$V"
	e2e_cleanup
}
trap ck_cleanup EXIT

port_base 17
ports GW API P_PW P_HW P_KW P_DK P_DG
KEY=e2e-key-$$-0123456789abcdef
mkdir -p "$T/log" "$T/bin" "$T/run" "$T/dock" "$V/www" "$V/bin"
chmod 1777 "$T/run"
testhttp_bin
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
# a start and a stop that take a second each: the restart's window
# stays open while it suspends, is asleep and wakes
cat >"$T/bin/slow.sh" <<EOF
#!/bin/sh
trap 'sleep 1; exit 0' TERM
sleep 1
$T/bin/testhttp serve "\$@" &
wait
EOF
chmod 0755 "$T/bin/slow.sh"
echo "hello from a container" >"$V/www/index.html"
cat >"$V/bin/run.sh" <<'EOF'
trap 'exit 0' TERM
/bin/httpd -f -p "127.0.0.1:$PORT" -h /www &
wait
EOF
chmod -R a+rX "$V/www" "$V/bin"

write_conf() {	# write_conf KW-TAG
	conf_head >"$T/orchd.conf"
	cat >>"$T/orchd.conf" <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
wake timeout 20s
on change restart

workload "pw" {
	host "pw.test"
	command "$T/bin/testhttp serve $P_PW $T/run/pw"
	port $P_PW
	idle timeout 10m
}

workload "hw" {
	host "hw.test"
	command "$T/bin/testhttp serve $P_HW $T/run/hw"
	port $P_HW
	idle timeout 10m
}

workload "kw" {
	host "kw.test"
	command "$T/bin/slow.sh $P_KW $T/run/kw-$1"
	port $P_KW
	keep warm
}
CONF
	[ -n "$DOCKER" ] || return 0
	echo "docker socket \"$T/dock/docker.sock\"" >>"$T/orchd.conf"
	dk_conf "${TAG}dk" dk.test "$P_DK" >>"$T/orchd.conf"
	dk_conf "${TAG}dg" dg.test "$P_DG" >>"$T/orchd.conf"
}
dk_conf() {	# dk_conf NAME HOST PORT
	cat <<CONF

workload "$1" {
	host "$2"
	driver docker
	image "$IMAGE"
	command "/bin/sh /orchd/run.sh"
	network host
	env "PORT=$3"
	volume "$V/www" "/www"
	volume "$V/bin" "/orchd"
	port $3
	idle timeout 10m
	stop timeout 1s
}
CONF
}
write_conf a

ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
URL=http://127.0.0.1:$API
GWURL=http://127.0.0.1:$GW
hello() {	# hello HOST: the gateway proxies it
	curl -s -m 25 -H "Host: $1" "$GWURL/" | grep -q '^hello from'
}
# states: "name=state ..." of every workload, as orchctl -j says
states() {
	ctl -j show workloads 2>/dev/null | python3 -c 'import json, sys
print(" ".join("%s=%s" % (w["name"], w["state"]) for w in json.load(sys.stdin)))' 2>/dev/null
}
api_state() {	# api_state NAME
	curl -s -m 5 -H "Authorization: Bearer $KEY" "$URL/v1/workloads/$1" |
	    python3 -c 'import json, sys; print(json.load(sys.stdin)["state"])' \
	    2>/dev/null
}
state_of() {	# state_of NAME STATES
	for s in $2; do
		case $s in "$1="*) echo "${s#*=}"; return ;; esac
	done
}
running() { [ "$(state_of "$1" "$(states)")" = running ]; }

if [ -n "$DOCKER" ]; then
	cp "$(dirname "$0")/dockerrelay.py" "$T/relay.py"
	"$PY" "$T/relay.py" "$T/dock/docker.sock" \
	    "$(realpath /var/run/docker.sock)" "$dockergid" "$T/slow" &
	RELAY_PID=$!
	wait_for 10 test -S "$T/dock/docker.sock" ||
	    echo "# the relay's socket is not there"
fi
start_orchd_or_exit

# -- b: suspends while a kept-warm workload is replaced
check "kw runs (kept warm)" wait_for 20 running kw
check "pw wakes and serves" hello pw.test
write_conf b
check "a reload that changes kw's command" eval "ctl reload >/dev/null"
n=0 bad=0 asleep=0 refused=0
t_end=$(($(now_ms) + 5000))
while [ "$(now_ms)" -lt "$t_end" ] && [ $n -lt 400 ]; do
	out=$(ctl suspend kw 2>&1)
	rc=$?
	code=$(curl -s -m 10 -o "$T/susp.out" -w '%{http_code}' -X POST \
	    -H "Authorization: Bearer $KEY" "$URL/v1/workloads/kw/suspend")
	n=$((n + 1))
	case "$out" in *"kept warm"*) refused=$((refused + 1)) ;; esac
	case "$out$(cat "$T/susp.out")" in *asleep*) asleep=$((asleep + 1)) ;; esac
	if [ $rc -eq 0 ] || [ "$code" != 409 ]; then
		bad=$((bad + 1))
		echo "# suspend $n: orchctl $rc ($out), API $code" \
		    "($(cat "$T/susp.out"))"
	fi
done
echo "# $n suspends during the restart: $refused refused as kept warm," \
    "$bad not 409, $asleep said asleep"
check "every suspend during kw's restart is refused ($bad of $n not)" \
    eval "[ $n -gt 5 ] && [ $bad -eq 0 ]"
check "... none says asleep ($asleep)" [ $asleep -eq 0 ]
check "... and kw is running its new command" \
    wait_for 20 eval "[ -s $T/run/kw-b ] && running kw"

# -- a: after SIGKILL, "checking" until runtimed has compared
if [ -n "$DOCKER" ]; then
	check "the docker workloads wake and serve" \
	    eval "hello dk.test && hello dg.test"
fi
check "pw runs before the kill" running pw
kill -KILL "$ORCHD_PID"
wait "$ORCHD_PID" 2>/dev/null
check "orchd's children and pw are gone" \
    wait_for 15 eval "! pgrep -f 'orchd: .*$E2E_INSTANCE' >/dev/null &&
    ! pgrep -f 'testhttp serve $P_PW ' >/dev/null"
if [ -n "$DOCKER" ]; then
	# stopped while orchd is down; the daemon slow when it comes back
	docker stop -t 1 "$(cname "${TAG}dg")" >/dev/null 2>&1
	echo 3 >"$T/slow"
fi
"$ORCHD" -d -f "$T/orchd.conf" >>"$T/orchd.log" 2>&1 &
ORCHD_PID=$!
# from the moment the socket answers, every 50 ms for 20 s at most
seen_pw= seen_dk= seen_api_pw= seen_api_dk= seen_dg= seen_api_dg= held=
i=0
while [ $i -lt 400 ]; do
	s=$(states)
	if [ -n "$s" ]; then
		if [ -z "$held" ]; then
			# a request at once: held, then served
			(hello hw.test && echo ok >"$T/held") &
			held=$!
			[ -z "$DOCKER" ] ||
			    (hello dg.test && echo ok >"$T/held_dg") &
		fi
		seen_pw="$seen_pw $(state_of pw "$s")"
		seen_api_pw="$seen_api_pw $(api_state pw)"
		if [ -n "$DOCKER" ]; then
			seen_dk="$seen_dk $(state_of "${TAG}dk" "$s")"
			seen_api_dk="$seen_api_dk $(api_state "${TAG}dk")"
			seen_dg="$seen_dg $(state_of "${TAG}dg" "$s")"
			seen_api_dg="$seen_api_dg $(api_state "${TAG}dg")"
		fi
		case "$s" in *=checking*) ;; *)
			# none checking: a few more answers, then done
			[ $i -ge 10 ] && break ;;
		esac
	fi
	sleep 0.05
	i=$((i + 1))
done
squeeze() { printf '%s\n' $1 | uniq | tr '\n' ' '; }
echo "# pw, orchctl: $(squeeze "$seen_pw")"
echo "# pw, API: $(squeeze "$seen_api_pw")"
check "orchctl never shows pw's stale running after the restart" \
    eval "! printf '%s\n' $seen_pw | grep -qvx 'checking\|asleep\|waking'"
check "... nor does the API" \
    eval "! printf '%s\n' $seen_api_pw | grep -qvx 'checking\|asleep\|waking'"
check "the request sent at once was held and served" \
    wait_for 30 test -s "$T/held"
check "pw's history: running -> asleep (restored), checking unrecorded" \
    eval "ctl show history pw | tail -n 1 | grep -q 'running  *asleep  *restored'"
if [ -n "$DOCKER" ]; then
	rm -f "$T/slow"
	echo "# adopted, orchctl: $(squeeze "$seen_dk")"
	echo "# adopted, API: $(squeeze "$seen_api_dk")"
	echo "# stopped meanwhile, orchctl: $(squeeze "$seen_dg")"
	echo "# stopped meanwhile, API: $(squeeze "$seen_api_dg")"
	check "orchctl: the running container is checking, then running" \
	    [ "$(squeeze "$seen_dk")" = "checking running " ]
	check "... the API too, never asleep" \
	    [ "$(squeeze "$seen_api_dk")" = "checking running " ]
	check "orchctl: the stopped one is checking, never running first" \
	    [ "$(printf '%s\n' $seen_dg | head -n 1)" = checking ]
	check "... the API too" \
	    [ "$(printf '%s\n' $seen_api_dg | head -n 1)" = checking ]
	check "the request for it sent at once was held and served" \
	    wait_for 30 test -s "$T/held_dg"
	check "one container for it, none made twice" \
	    [ "$(docker ps -aq --filter "name=^$(cname "${TAG}dg")\$" |
	    wc -l)" -eq 1 ]
else
	echo "# no Docker: the adoption case is left out"
fi
e2e_done
