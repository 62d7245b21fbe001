#!/bin/sh
# Pulls from a real registry: Debian's docker-registry (the registry:2
# program), started here on 127.0.0.1 as a process, with htpasswd logins.
# Images are made from busybox, each its own layer, pushed with docker
# push and removed here, so that a wake must pull them.  pull missing: a
# wake pulls and the held request is answered; the next wake does not
# pull again.  pull never: 503 "No such image", nothing pulled.  pull
# always: a new image pushed under the same tag replaces the container
# at the next wake, and the same one keeps it.  orchctl pull shows the
# layers and bytes as they come.  Through a relay that slows the
# registry down, a request is held for the whole pull, past the wake and
# header timeouts, and a pull timeout ends a pull that takes too long.
# The registry auth file: its logins make the pulls work, a wrong
# password gives 503 with the registry's words in the history and the
# log, a file others may read is refused at reload; its password is in
# no log.  Loopback only, every wait bounded; what is made here is
# removed.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root

docker info >/dev/null 2>&1 ||
    skip "no Docker daemon answers (docker info failed)"
for c in docker-registry htpasswd python3; do
	if ! command -v "$c" >/dev/null 2>&1; then
		skip "needs $c (tools/deps.sh test: docker-registry," \
		    "apache2-utils, python3)"
	fi
done
ensure_user

TAG=pull$$
MISS=${TAG}miss
NEVER=${TAG}never
ALWAYS=${TAG}always
BAD=${TAG}bad
CTL=${TAG}ctl
SLOW=${TAG}slow
SHORT=${TAG}short
RUSER=orchd-test
RPASS=pw-$TAG-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
REG_PID=
RELAY_PID=
IMAGES=

port_base 11
ports GW RP SP P_MISS P_NEVER P_ALWAYS P_BAD P_CTL P_SLOW P_SHORT
REG=127.0.0.1:$RP		# the registry
SLOWREG=127.0.0.1:$SP		# the same, through the slow relay
export DOCKER_CONFIG="$T/dockercfg"	# docker login's, not root's own

pull_cleanup() {
	if [ -n "$ORCHD_PID" ] && kill -0 "$ORCHD_PID" 2>/dev/null; then
		kill -TERM "$ORCHD_PID" 2>/dev/null
		wait_gone "$ORCHD_PID" 10
	fi
	for n in $MISS $NEVER $ALWAYS $BAD $CTL $SLOW $SHORT; do
		docker rm -f "orchd-$E2E_INSTANCE-$n" >/dev/null 2>&1
	done
	for i in $IMAGES; do
		docker rmi -f "$i" >/dev/null 2>&1
	done
	[ -z "$RELAY_PID" ] || kill "$RELAY_PID" 2>/dev/null
	[ -z "$REG_PID" ] || kill "$REG_PID" 2>/dev/null
	e2e_cleanup
}
trap pull_cleanup EXIT

# the registry, its logins in htpasswd (bcrypt, as it wants them)
mkdir -p "$T/registry" "$T/log" "$DOCKER_CONFIG"
htpasswd -Bbn "$RUSER" "$RPASS" >"$T/htpasswd"
cat >"$T/registry.yml" <<EOF
version: 0.1
log:
  level: error
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: $T/registry
http:
  addr: $REG
auth:
  htpasswd:
    realm: orchd-test
    path: $T/htpasswd
EOF
docker-registry serve "$T/registry.yml" >"$T/registry.log" 2>&1 &
REG_PID=$!
check "the registry answers, asking for a login" \
    wait_for 10 sh -c "curl -s -o /dev/null -w '%{http_code}' \
    http://$REG/v2/ | grep -q 401"

# the relay: what the registry sends back, at RATE bytes a second
cat >"$T/relay.py" <<'EOF'
import socket, sys, threading, time
lport, rport, rate = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
def pipe(a, b, slow):
    try:
        while True:
            d = a.recv(8192)
            if not d:
                break
            b.sendall(d)
            if slow:
                time.sleep(len(d) / rate)
    except OSError:
        pass
    for s in (a, b):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
def serve(c):
    try:
        u = socket.create_connection(("127.0.0.1", rport), 5)
    except OSError:
        c.close()
        return
    threading.Thread(target=pipe, args=(c, u, False), daemon=True).start()
    pipe(u, c, True)
ls = socket.socket()
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", lport))
ls.listen(64)
while True:
    c, _ = ls.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
EOF
python3 "$T/relay.py" "$SP" "$RP" 400000 >"$T/relay.log" 2>&1 &
RELAY_PID=$!
check "the slow relay answers" wait_for 10 sh -c \
    "curl -s -o /dev/null -w '%{http_code}' http://$SLOWREG/v2/ | grep -q 401"

echo "$RPASS" | docker login -u "$RUSER" --password-stdin "$REG" \
    >"$T/login.out" 2>&1
check "docker login to the registry" grep -q "Login Succeeded" "$T/login.out"

# mkimage REF TEXT [KB]: an image of busybox serving TEXT as /index.html
# (and KB of noise, for a pull that takes its time), pushed, then
# removed here
mkimage() {
	r=$T/rootfs
	rm -rf "$r"
	mkdir -p "$r/bin" "$r/www" "$r/tmp"
	cp /bin/busybox "$r/bin/busybox"
	for app in sh httpd; do
		ln -s busybox "$r/bin/$app"
	done
	echo "$2" >"$r/www/index.html"
	[ -z "$3" ] || head -c $(($3 * 1024)) /dev/urandom >"$r/noise"
	IMAGES="$IMAGES $1"
	tar -C "$r" -c . | docker import -c 'CMD ["/bin/sh"]' - "$1" \
	    >/dev/null && docker push "$1" >"$T/push.out" 2>&1 &&
	    docker rmi "$1" >/dev/null 2>&1
}
present() { docker image inspect "$1" >/dev/null 2>&1; }

IM_MISS=$REG/orchd-pull-$TAG-miss:1
IM_NEVER=$REG/orchd-pull-$TAG-never:1
IM_ALWAYS=$REG/orchd-pull-$TAG-always:1
IM_BAD=$REG/orchd-pull-$TAG-bad:1
IM_CTL=$REG/orchd-pull-$TAG-ctl:1
IM_SLOW=$REG/orchd-pull-$TAG-slow:1
IM_SHORT=$REG/orchd-pull-$TAG-short:1
made=0
mkimage "$IM_MISS" "MISS $TAG" && made=$((made + 1))
mkimage "$IM_NEVER" "NEVER $TAG" && made=$((made + 1))
mkimage "$IM_ALWAYS" "ALWAYS $TAG" && made=$((made + 1))
mkimage "$IM_BAD" "BAD $TAG" && made=$((made + 1))
mkimage "$IM_CTL" "CTL $TAG" 2048 && made=$((made + 1))
mkimage "$IM_SLOW" "SLOW $TAG" 3072 && made=$((made + 1))
mkimage "$IM_SHORT" "SHORT $TAG" 3072 && made=$((made + 1))
check "7 images pushed and removed here ($made)" [ "$made" -eq 7 ]
# the slow ones by the relay's name: the same repositories
IM_CTL_SLOW=$SLOWREG/orchd-pull-$TAG-ctl:1
IM_SLOW_SLOW=$SLOWREG/orchd-pull-$TAG-slow:1
IM_SHORT_SLOW=$SLOWREG/orchd-pull-$TAG-short:1
IMAGES="$IMAGES $IM_CTL_SLOW $IM_SLOW_SLOW $IM_SHORT_SLOW"
check "none of them is here" sh -c "! docker image inspect $IMAGES \
    >/dev/null 2>&1"

# the logins, as docker login writes them: one entry by each name
auth=$(printf '%s:%s' "$RUSER" "$RPASS" | base64 | tr -d '\n')
regauth() {	# regauth PASSWORD: the registry auth file
	a=$(printf '%s:%s' "$RUSER" "$1" | base64 | tr -d '\n')
	printf '{"auths": {"%s": {"auth": "%s"}, "http://%s/v2/": {"auth": "%s"}}}\n' \
	    "$REG" "$a" "$SLOWREG" "$a" >"$T/registry.json"
	chmod 0600 "$T/registry.json"
}
regauth "$RPASS"

# wl NAME HOST PORT IMAGE [LINE...]: a docker workload block
wl() {
	n=$1 h=$2 p=$3 img=$4
	shift 4
	cat <<CONF
workload "$n" {
	host "$h"
	driver docker
	image "$img"
	command "/bin/httpd -f -p 127.0.0.1:$p -h /www"
	network host
	port $p
	health path "/index.html"
CONF
	conf_end "$@"
}

write_conf() {
	conf_head >"$T/orchd.conf"
	cat >>"$T/orchd.conf" <<CONF
registry auth file "$T/registry.json"
wake timeout 20s
header timeout 3s
reaper interval 1s
listen on 127.0.0.1 port $GW

CONF
	{
		wl "$MISS" miss.test "$P_MISS" "$IM_MISS"
		wl "$NEVER" never.test "$P_NEVER" "$IM_NEVER" 'pull never'
		wl "$ALWAYS" always.test "$P_ALWAYS" "$IM_ALWAYS" 'pull always'
		wl "$BAD" bad.test "$P_BAD" "$IM_BAD"
		wl "$CTL" ctl.test "$P_CTL" "$IM_CTL_SLOW" 'pull never'
		wl "$SLOW" slow.test "$P_SLOW" "$IM_SLOW_SLOW" \
		    'wake timeout 2s'
		wl "$SHORT" short.test "$P_SHORT" "$IM_SHORT_SLOW" \
		    'pull timeout 2s'
	} >>"$T/orchd.conf"
}
write_conf

get() {	# get HOST: "STATUS SECONDS", then the body
	curl -s -m 60 -o "$T/body" -w '%{http_code} %{time_total}\n' \
	    -H "Host: $1" "http://127.0.0.1:$GW/index.html"
	cat "$T/body" 2>/dev/null
}
code() { echo "$1" | head -n 1 | cut -d' ' -f1; }
secs() { echo "$1" | head -n 1 | cut -d' ' -f2; }
show() { "$ORCHCTL" -s "$SOCK" show workload "$1" 2>&1; }
state() { show "$1" | awk '$1 == "state:" { print $2 }'; }
state_is() { [ "$(state "$1")" = "$2" ]; }
cid() { docker inspect -f '{{.Id}}' "orchd-$E2E_INSTANCE-$1" 2>/dev/null; }
pulls() { grep -c "pulling $1 from" "$T/orchd.log"; }

start_orchd_or_exit -v

# 1. pull missing: the wake pulls, with the login, and serves
out=$(get miss.test)
check "pull missing: the held request is answered 200 (got $(code "$out"))" \
    [ "$(code "$out")" = 200 ]
check "... by the image pulled" sh -c "echo '$out' | grep -q 'MISS $TAG'"
check "the image is here now" present "$IM_MISS"
check "it was pulled with the registry's login" \
    grep -q "pulling $IM_MISS from $REG, with its login" "$T/orchd.log"
"$ORCHCTL" -s "$SOCK" suspend "$MISS" >/dev/null 2>&1
out=$(get miss.test)
check "the next wake serves without pulling again ($(pulls "$IM_MISS"))" \
    sh -c "[ $(code "$out") = 200 ] && [ $(pulls "$IM_MISS") -eq 1 ]"

# 2. pull never: 503, the daemon's "No such image", nothing pulled
out=$(get never.test)
check "pull never: 503 (got $(code "$out"))" [ "$(code "$out")" = 503 ]
check "the history says No such image" sh -c "\"$ORCHCTL\" -s \"$SOCK\" \
    show workload $NEVER | grep -q 'No such image'"
check "nothing was pulled" sh -c "! grep -q 'pulling $IM_NEVER' \
    '$T/orchd.log' && ! docker image inspect $IM_NEVER >/dev/null 2>&1"

# 3. pull always: a new image under the same tag replaces the container
out=$(get always.test)
check "pull always: 200 from the first image" \
    sh -c "[ $(code "$out") = 200 ] && echo '$out' | grep -q 'ALWAYS $TAG'"
c1=$(cid "$ALWAYS")
"$ORCHCTL" -s "$SOCK" suspend "$ALWAYS" >/dev/null 2>&1
out=$(get always.test)
check "the same image again: the same container, pulled anew" \
    sh -c "[ $(code "$out") = 200 ] && [ '$(cid "$ALWAYS")' = '$c1' ] &&
    [ $(pulls "$IM_ALWAYS") -eq 2 ]"
"$ORCHCTL" -s "$SOCK" suspend "$ALWAYS" >/dev/null 2>&1
d1=$(docker image inspect -f '{{.Id}}' "$IM_ALWAYS")
IMAGES="$IMAGES $d1"	# untagged by the pull of the new one
mkimage "$IM_ALWAYS" "ALWAYS v2 $TAG"
check "a new image is pushed under the same tag" sh -c "! docker image \
    inspect $IM_ALWAYS >/dev/null 2>&1"
out=$(get always.test)
check "the next wake pulls it and serves it ($(code "$out"))" \
    sh -c "[ $(code "$out") = 200 ] && echo '$out' | grep -q 'ALWAYS v2'"
d2=$(docker image inspect -f '{{.Id}}' "$IM_ALWAYS")
check "in a new container, made from the new image" \
    sh -c "[ '$d1' != '$d2' ] && [ '$(cid "$ALWAYS")' != '$c1' ] &&
    [ \"\$(docker inspect -f '{{.Image}}' orchd-$E2E_INSTANCE-$ALWAYS)\" = '$d2' ]"
check "the log says why it was replaced" \
    grep -q "workload $ALWAYS: image $IM_ALWAYS is another since" \
    "$T/orchd.log"

# 4. orchctl pull: layers and bytes as they come, through the relay
"$ORCHCTL" -s "$SOCK" pull "$CTL" >"$T/ctl.out" 2>&1
rc=$?
check "orchctl pull succeeds (status $rc)" [ "$rc" -eq 0 ]
check "it shows the progress, more than once ($(grep -c layers \
    "$T/ctl.out") lines)" [ "$(grep -c ' layers, ' "$T/ctl.out")" -ge 2 ]
check "its last line says pulled" sh -c "tail -n 1 '$T/ctl.out' |
    grep -q '^$CTL: $IM_CTL_SLOW pulled: Status: Downloaded newer image'"
check "the bytes grow to the layer's size" sh -c "tail -n 2 '$T/ctl.out' |
    head -n 1 | grep -Eq '1/1 layers, ([0-9.]+M) of \\1\$'"
check "the image is here" present "$IM_CTL_SLOW"
out=$(get ctl.test)
check "the wake then needs no pull (pull never): 200 ($(code "$out"))" \
    [ "$(code "$out")" = 200 ]
"$ORCHCTL" -s "$SOCK" -j pull "$CTL" >"$T/ctl.json" 2>&1
check "orchctl -j pull: one document, up to date" \
    sh -c "grep -q '\"result\": \"ok\"' '$T/ctl.json' &&
    grep -q 'Image is up to date' '$T/ctl.json'"
"$ORCHCTL" -s "$SOCK" pull nosuch >"$T/nosuch.out" 2>&1
rc=$?
check "orchctl pull of no workload fails, saying so (status $rc)" \
    sh -c "[ $rc -ne 0 ] && grep -q 'no such workload: nosuch' \
    '$T/nosuch.out'"

# 5. a slow pull: the request is held for all of it, past its wake
# timeout (2s) and the header timeout (3s)
out=$(get slow.test)
got="got $(code "$out") after $(secs "$out") s"
check "a slow pull: the held request is answered 200 ($got)" \
    sh -c "[ $(code "$out") = 200 ] &&
    awk 'BEGIN { exit !($(secs "$out") > 4) }'"
check "... by its image" sh -c "echo '$out' | grep -q 'SLOW $TAG'"
check "runtimed told the gateway to wait for the pull" \
    grep -q "$SLOW: the wake goes on, 300s more" "$T/orchd.log"
out=$(get short.test)
check "pull timeout 2s: 503 (got $(code "$out") after $(secs "$out") s)" \
    sh -c "[ $(code "$out") = 503 ] &&
    awk 'BEGIN { exit !($(secs "$out") < 15) }'"
check "the history says the pull timed out" sh -c "\"$ORCHCTL\" -s \
    \"$SOCK\" show workload $SHORT | grep -q 'not done within 2s'"

# 6. the registry auth file: a wrong password, a file others may read
regauth "wrong-$RPASS"
check "a reload takes the new logins" sh -c "\"$ORCHCTL\" -s \"$SOCK\" \
    reload >/dev/null"
out=$(get bad.test)
check "a wrong password: 503 (got $(code "$out"))" [ "$(code "$out")" = 503 ]
check "the registry's words in the history ($(show "$BAD" |
    sed -n 's/^ *last failure: *//p'))" sh -c "\"$ORCHCTL\" -s \"$SOCK\" \
    show workload $BAD | grep -q 'pull of $IM_BAD: .*unauthorized'"
check "and in the log" grep -q "pull of $IM_BAD: .*unauthorized" \
    "$T/orchd.log"
check "a failed wake in show stats" sh -c "\"$ORCHCTL\" -s \"$SOCK\" -j \
    show stats | tr -d ' \n' | grep -q '\"name\":\"$BAD\",\"wakes\":0,\"failed_wakes\":1'"
chmod 0644 "$T/registry.json"
"$ORCHCTL" -s "$SOCK" reload >"$T/reload.out" 2>&1
rc=$?
msg="registry auth file $T/registry.json is readable by others"
check "a registry auth file others may read: the reload is refused" \
    sh -c "[ $rc -ne 0 ] && grep -q '$msg' '$T/orchd.log' &&
    grep -q '$msg' '$T/reload.out'"
regauth "$RPASS"
check "the right password again: reloaded" sh -c "\"$ORCHCTL\" -s \
    \"$SOCK\" reload >/dev/null"
out=$(get bad.test)
check "and the next request pulls and is served (got $(code "$out"))" \
    [ "$(code "$out")" = 200 ]
check "no log line holds the password" sh -c "! grep -qF -- '$RPASS' \
    '$T/orchd.log'"
"$ORCHD" -nv -f "$T/orchd.conf" >"$T/nv.out" 2>&1
check "orchd -nv names the file, never its logins" sh -c "grep -q \
    '^registry auth file \"$T/registry.json\"' '$T/nv.out' &&
    ! grep -qF -- '$auth' '$T/nv.out'"

stop_orchd
check "orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]
e2e_done
