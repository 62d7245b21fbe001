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
#  - with Docker, a container that outlives the kill is adopted: the
#    answers say checking, then running, never asleep first;
#  - a kept-warm workload with on change restart, replaced by a reload
#    with a start that takes a second: suspends sent in a tight loop
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
if docker info >/dev/null 2>&1 &&
    sh "$(dirname "$0")/../docker-image.sh" >/dev/null 2>&1; then
	DOCKER=yes
fi
V=$(mktemp -d /tmp/checking-vol.XXXXXX)
chmod 0755 "$V"

ck_cleanup() {
	if [ -n "$ORCHD_PID" ] && kill -0 "$ORCHD_PID" 2>/dev/null; then
		kill -TERM "$ORCHD_PID" 2>/dev/null
		wait_gone "$ORCHD_PID" 15
	fi
	[ -z "$DOCKER" ] ||
	    docker rm -f "$(cname "${TAG}dk")" >/dev/null 2>&1
	rm -rf "$V"
	e2e_cleanup
}
trap ck_cleanup EXIT

port_base 17
ports GW API P_PW P_HW P_KW P_DK
KEY=e2e-key-$$-0123456789abcdef
mkdir -p "$T/log" "$T/bin" "$T/run" "$V/www" "$V/bin"
chmod 1777 "$T/run"
testhttp_bin
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
# a start that takes a second: the restart's window stays open
cat >"$T/bin/slow.sh" <<EOF
#!/bin/sh
sleep 1
exec $T/bin/testhttp serve "\$@"
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
	cat >>"$T/orchd.conf" <<CONF

workload "${TAG}dk" {
	host "dk.test"
	driver docker
	image "$IMAGE"
	command "/bin/sh /orchd/run.sh"
	network host
	env "PORT=$P_DK"
	volume "$V/www" "/www"
	volume "$V/bin" "/orchd"
	port $P_DK
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
print(" ".join("%s=%s" % (w["name"], w["state"]) for w in json.load(sys.stdin)))'
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
	check "the docker workload wakes and serves" hello dk.test
fi
check "pw runs before the kill" running pw
kill -KILL "$ORCHD_PID"
wait "$ORCHD_PID" 2>/dev/null
check "orchd's children and pw are gone" \
    wait_for 15 eval "! pgrep -f 'orchd: .*$E2E_INSTANCE' >/dev/null &&
    ! pgrep -f 'testhttp serve $P_PW ' >/dev/null"
"$ORCHD" -d -f "$T/orchd.conf" >>"$T/orchd.log" 2>&1 &
ORCHD_PID=$!
# from the moment the socket answers, every 50 ms for 10 s at most
seen_pw= seen_dk= seen_api_pw= seen_api_dk= held=
i=0
while [ $i -lt 200 ]; do
	s=$(states)
	if [ -n "$s" ]; then
		if [ -z "$held" ]; then
			# a request at once: held, then served
			(hello hw.test && echo ok >"$T/held") &
			held=$!
		fi
		seen_pw="$seen_pw $(state_of pw "$s")"
		seen_api_pw="$seen_api_pw $(api_state pw)"
		if [ -n "$DOCKER" ]; then
			seen_dk="$seen_dk $(state_of "${TAG}dk" "$s")"
			seen_api_dk="$seen_api_dk $(api_state "${TAG}dk")"
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
    eval "wait $held; [ -s $T/held ]"
check "pw's history: running -> asleep (restored), checking unrecorded" \
    eval "ctl show history pw | tail -n 1 | grep -q 'running  *asleep  *restored'"
if [ -n "$DOCKER" ]; then
	echo "# docker, orchctl: $(squeeze "$seen_dk")"
	echo "# docker, API: $(squeeze "$seen_api_dk")"
	check "the container is adopted: checking, then running" eval \
	    "[ '$(squeeze "$seen_dk")' = 'checking running ' ] ||
	    [ '$(squeeze "$seen_dk")' = 'running ' ]"
	check "... the API never says asleep before running" \
	    eval "! printf '%s\n' $seen_api_dk | grep -qvx 'checking\|running'"
else
	echo "# no Docker: the adoption case is left out"
fi
e2e_done
