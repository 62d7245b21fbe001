#!/bin/sh
# Containers on a network of the operator's (network "NAME"), against a
# real Docker daemon: runtimed creates the network at the first wake,
# labelled org.orchd.network=1; two containers listening on one port
# inside reach each other by workload name, and the gateway reaches
# each through its own published port on 127.0.0.1; after an orchd
# restart both running containers are adopted (same ids, no second
# start), and a stopped one is started again, not replaced; a network
# removed meanwhile is made again, once for two workloads waking
# together, and their containers are replaced; two networks of that
# name fail the wake, saying so; the API joins only networks "api allow
# network" names.  Loopback only, every wait bounded; the containers
# and the networks made here are removed at the end.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root

need_docker
ensure_user

IMAGE=orchd-test/busybox:latest
NET=orchd-test-pr1
A=netw-a
B=netw-b
C=netw-c
INSIDE=8080		# both listen there, in their own containers
KEY=e2e-network-$$-0123456789abcdef
EVENTS_PID=
# what the containers mount lies outside $T: no volume may lie under the
# directory of orchd.conf
V=$(mktemp -d /tmp/orchd-e2e-netw.XXXXXX)
chmod 0755 "$V"

# by id: should there be two of that name, the name finds neither
net_rm() {
	for id in $(docker network ls -q --filter "name=^$NET\$" 2>/dev/null)
	do
		docker network rm "$id" >/dev/null 2>&1
	done
}
network_cleanup() {
	if [ -n "$ORCHD_PID" ] && kill -0 "$ORCHD_PID" 2>/dev/null; then
		kill -TERM "$ORCHD_PID" 2>/dev/null
		wait_gone "$ORCHD_PID" 10
	fi
	[ -z "$EVENTS_PID" ] || kill "$EVENTS_PID" 2>/dev/null
	for n in $A $B $C; do
		docker rm -f "orchd-$E2E_INSTANCE-$n" >/dev/null 2>&1
	done
	net_rm
	rm -rf "$V"
	e2e_cleanup
}
trap network_cleanup EXIT
# a run that was cut short leaves them: start from nothing
for n in $A $B $C; do
	docker rm -f "orchd-$E2E_INSTANCE-$n" >/dev/null 2>&1
done
net_rm

port_base 11
ports GW API P_A P_B P_C

# each container serves its own /www on $INSIDE; b's CGI fetches a's
# page by a's workload name, over the network and nothing else
mkdir -p "$T/log" "$V/bin" "$V/www-a" "$V/www-b/cgi-bin"
echo "hello from $A" >"$V/www-a/index.html"
echo "hello from $B" >"$V/www-b/index.html"
cat >"$V/bin/run.sh" <<EOF
#!/bin/sh
trap 'exit 0' TERM
/bin/httpd -f -p $INSIDE -h /www &
wait
EOF
# (with its length: busybox httpd would end the answer by closing)
cat >"$V/www-b/cgi-bin/peer" <<EOF
#!/bin/sh
page=\$(printf 'GET /index.html HTTP/1.0\r\nHost: $A\r\n\r\n' |
    nc -w 5 $A $INSIDE)
printf 'Content-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s' \
    "\${#page}" "\$page"
EOF
chmod 0755 "$V/bin/run.sh" "$V/www-b/cgi-bin/peer"
chmod -R a+rX "$V"
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"

wl_conf() {	# wl_conf NAME PUBLISH
	cat <<CONF

workload "$1" {
	host "$1.test"
	driver docker
	image "$IMAGE"
	command "/bin/sh /orchd/run.sh"
	network "$NET"
	volume "$V/www-${1#netw-}" "/www"
	volume "$V/bin" "/orchd"
	port $INSIDE
	publish $2
	health path "/index.html"
}
CONF
}
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
idle timeout 10m
wake timeout 30s
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
api allow image "orchd-test/*"
api allow network "orchd-test-pr[0-9]*"
CONF
wl_conf $A "$P_A" >>"$T/orchd.conf"
wl_conf $B "$P_B" >>"$T/orchd.conf"

logged() { grep -q -- "$1" "$T/orchd.log"; }
get() {	# get HOST PATH: the status, then the body (a file of its own:
	# two run at once)
	_body=$(mktemp "$T/body.XXXXXX")
	curl -s -m 40 -o "$_body" -w '%{http_code}\n' -H "Host: $1" \
	    "http://127.0.0.1:$GW$2"
	cat "$_body" 2>/dev/null
	rm -f "$_body"
}
code() { printf '%s\n' "$1" | head -n 1; }
has() { printf '%s' "$1" | grep -q -- "$2"; }
cid() { docker inspect -f '{{.Id}}' "orchd-$E2E_INSTANCE-$1" 2>/dev/null; }
running() {
	[ "$(docker inspect -f '{{.State.Running}}' "orchd-$E2E_INSTANCE-$1" 2>/dev/null)" = true ]
}
stopped() {
	[ "$(docker inspect -f '{{.State.Running}}' "orchd-$E2E_INSTANCE-$1" 2>/dev/null)" = false ]
}
both() {	# both COMMAND: COMMAND A and COMMAND B
	"$1" $A && "$1" $B
}
once() { [ "$(starts "$1")" -eq 1 ]; }
woke_once() { [ "$(wakes "$1")" -eq 1 ]; }
state_is() {
	[ "$("$ORCHCTL" -s "$SOCK" show workload "$1" 2>/dev/null |
	    awk '$1 == "state:" { print $2 }')" = "$2" ]
}
# wakes NAME: the transitions to waking in its history
wakes() {
	"$ORCHCTL" -s "$SOCK" show workload "$1" 2>/dev/null |
	    grep -Ec '^[0-9T:Z-]+ +[a-z]+ +waking '
}
# nets: how many networks have that name (Docker allows more than one)
nets() {
	docker network ls -q --filter "name=^$NET\$" 2>/dev/null | wc -l
}
netlabel() {
	docker network inspect -f '{{index .Labels "org.orchd.network"}}' \
	    "$NET" 2>/dev/null
}
# peer NAME FROM: NAME's page, fetched by name from inside FROM
peer() {
	docker exec "orchd-$E2E_INSTANCE-$2" sh -c "printf 'GET /index.html HTTP/1.0\r\n\r\n' |
	    nc -w 5 $1 $INSIDE" 2>/dev/null | grep -q "hello from $1"
}
# starts NAME: container starts since the test began, from docker events
docker events --filter event=start --filter "label=org.orchd.workload" \
    --format '{{.Actor.Attributes.name}}' >"$T/starts" 2>/dev/null &
EVENTS_PID=$!
starts() {
	sleep 0.2
	grep -cx "orchd-$E2E_INSTANCE-$1" "$T/starts"
}

# 1. the configuration: checked, and printed as read
check "orchd -n accepts it" sh -c "'$ORCHD' -n -f '$T/orchd.conf' >/dev/null 2>&1"
"$ORCHD" -nv -f "$T/orchd.conf" >"$T/nv" 2>&1
check "orchd -nv prints the network" grep -qx "	network \"$NET\"" "$T/nv"
check "and the published port" grep -qx "	publish $P_A" "$T/nv"

start_orchd_or_exit
check "no network before a wake" [ "$(nets)" -eq 0 ]

# 2. the first wake makes the network, orchd's, and the container on it
out=$(get $A.test /index.html)
check "a sleeping container on the network wakes (got $(code "$out"))" \
    [ "$(code "$out")" = 200 ]
check "and answers" has "$out" "hello from $A"
check "runtimed made the network" [ "$(nets)" -eq 1 ]
check "labelled as orchd's: org.orchd.network=$(netlabel)" \
    [ "$(netlabel)" = 1 ]
check "a bridge" [ "$(docker network inspect -f '{{.Driver}}' "$NET")" = bridge ]
check "logged" logged "network $NET: created"
check "the container is on it" [ "$(docker inspect -f \
    '{{.HostConfig.NetworkMode}}' "orchd-$E2E_INSTANCE-$A")" = "$NET" ]
check "known there by its workload name" sh -c "docker inspect -f \
    '{{range .NetworkSettings.Networks}}{{range .Aliases}}{{println .}}{{end}}{{end}}' \
    orchd-$E2E_INSTANCE-$A | grep -qx $A"
check "its port $INSIDE published on 127.0.0.1:$P_A and only there" \
    [ "$(docker inspect -f "{{range \$p, \$b := .HostConfig.PortBindings}}{{\$p}} {{range \$b}}{{.HostIp}}:{{.HostPort}} {{end}}{{end}}" \
    "orchd-$E2E_INSTANCE-$A")" = "$INSIDE/tcp 127.0.0.1:$P_A " ]
check "the gateway's way in: 127.0.0.1:$P_A answers" sh -c \
    "curl -s -m 10 http://127.0.0.1:$P_A/index.html | grep -q 'hello from $A'"
check "nothing else listens on port $P_A" \
    [ "$(ss -Htln "sport = :$P_A" | awk '{ print $4 }' | sort -u)" = \
    "127.0.0.1:$P_A" ]

# 3. the other one: same port inside, its own outside; reaches a by name
out=$(get $B.test /cgi-bin/peer)
check "b wakes and fetches a's page by the name $A (got $(code "$out"))" \
    [ "$(code "$out")" = 200 ]
check "through the network" has "$out" "hello from $A"
out=$(get $B.test /index.html)
check "b's own page through the gateway, port $P_B" has "$out" \
    "hello from $B"
check "a reaches b by the name $B" peer $B $A
check "still one network of that name" [ "$(nets)" -eq 1 ]
check "one start each ($(starts $A), $(starts $B))" both once

# 4. orchd restarts while both run: adopted, not started again
ida=$(cid $A)
idb=$(cid $B)
stop_orchd
check "orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]
check "both containers keep running" both running
check "orchd starts again" start_orchd
for n in $A $B; do
	check "$n's running container is adopted" wait_for 10 logged \
	    "workload $n: asleep -> running (restored: adopted a running"
	check "$n is running" state_is $n running
done
out=$(get $B.test /cgi-bin/peer)
check "b still reaches a by name (got $(code "$out"))" \
    has "$out" "hello from $A"
check "same container a" [ "$(cid $A)" = "$ida" ]
check "same container b" [ "$(cid $B)" = "$idb" ]
check "no second start ($(starts $A), $(starts $B))" both once
check "one wake each in their histories ($(wakes $A), $(wakes $B))" \
    both woke_once

# a stopped one on its network, the same: started again, not replaced
"$ORCHCTL" -s "$SOCK" suspend $A >/dev/null 2>&1
check "a suspended" wait_for 20 stopped $A
out=$(get $A.test /index.html)
check "a wakes again (got $(code "$out"))" has "$out" "hello from $A"
check "the same container" [ "$(cid $A)" = "$ida" ]
check "started again ($(starts $A) starts in all)" [ "$(starts $A)" -eq 2 ]
check "not replaced" sh -c "! grep -q 'workload $A: .*replacing' \
    '$T/orchd.log'"

# 5. the network removed while both sleep: made again, once, by two
# wakes at once; containers made on the old one are replaced
for n in $A $B; do
	"$ORCHCTL" -s "$SOCK" suspend $n >/dev/null 2>&1
done
check "both suspended" wait_for 20 both stopped
check "the network is removed behind orchd's back" \
    sh -c "docker network rm $NET >/dev/null"
get $A.test /index.html >"$T/wa" &
pa=$!
get $B.test /index.html >"$T/wb" &
pb=$!
wait $pa
wait $pb
check "a wakes again ($(head -n 1 "$T/wa"))" grep -q "hello from $A" "$T/wa"
check "and b, at the same time ($(head -n 1 "$T/wb"))" \
    grep -q "hello from $B" "$T/wb"
check "one network of that name, not two ($(nets))" [ "$(nets)" -eq 1 ]
check "orchd's again" [ "$(netlabel)" = 1 ]
check "a's container replaced" [ "$(cid $A)" != "$ida" ]
check "b's too" [ "$(cid $B)" != "$idb" ]
check "saying why" logged "workload $A: its network was made again"
out=$(get $B.test /cgi-bin/peer)
check "b reaches a by name on the new network" has "$out" "hello from $A"

# 6. a second network of that name, made behind orchd's back: Docker
# cannot tell which is meant; the wake fails saying so, and recovers
"$ORCHCTL" -s "$SOCK" suspend $A >/dev/null 2>&1
check "a suspended" wait_for 20 stopped $A
dup=$(curl -s -m 10 --unix-socket /var/run/docker.sock -X POST \
    -H 'Content-Type: application/json' \
    -d "{\"Name\": \"$NET\", \"CheckDuplicate\": false}" \
    http://docker/networks/create | sed -n 's/^{"Id":"\([0-9a-f]*\)".*/\1/p')
check "a second network of that name" [ "$(nets)" -eq 2 ]
out=$(get $A.test /index.html)
check "a's wake fails (got $(code "$out"))" [ "$(code "$out")" = 503 ]
check "its failure names the network" sh -c "'$ORCHCTL' -s '$SOCK' show \
    workload $A | grep 'last failure' | grep -q 'network $NET: inspect:'"
check "the duplicate removed" sh -c "docker network rm '$dup' >/dev/null"
out=$(get $A.test /index.html)
check "the next request wakes a (got $(code "$out"))" \
    has "$out" "hello from $A"

# 7. the API: a network "api allow network" names, and no other
URL=http://127.0.0.1:$API
post() {	# post BODY: the body, then the status on a line of its own
	curl -s -m 30 -H "Authorization: Bearer $KEY" -w '\n%{http_code}' \
	    -X POST --data-binary "$1" "$URL/v1/workloads"
}
# the API's container runs as a uid of its own: /dev/shm (mode 1777) is
# where it may write its page
body() {	# body NETWORK
	printf '{"name": "%s", "hosts": ["%s.test"], "driver": "docker", "image": "%s", "command": "/bin/sh -c '"'"'mkdir -p /dev/shm/www && echo hello from %s >/dev/shm/www/index.html && exec httpd -f -p %s -h /dev/shm/www'"'"'", "network": "%s", "port": %s, "publish": %s, "health": "path", "health_path": "/index.html"}' \
	    $C $C "$IMAGE" $C $INSIDE "$1" $INSIDE "$P_C"
}
out=$(post "$(body orchd-test-other)")
check "the API may not join a network orchd.conf does not allow" \
    [ "$(printf '%s\n' "$out" | tail -n 1)" = 403 ]
check "and says which rule" has "$out" "api allow network"
out=$(post "$(body $NET)")
check "it may join one it allows ($(printf '%s\n' "$out" | tail -n 1))" \
    [ "$(printf '%s\n' "$out" | tail -n 1)" = 201 ]
out=$(get $C.test /index.html)
check "the API's container wakes on the network (got $(code "$out"))" \
    has "$out" "hello from $C"
check "a reaches it by name" peer $C $A

e2e_done
