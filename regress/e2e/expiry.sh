#!/bin/sh
# expire after, and orchctl create, update, delete and keep, against the
# real daemons and Docker: an API workload without a request for its
# expire after is deleted, its container removed, its image kept while
# another workload names it and removed with the last one; its history
# kept (orchctl show history); a workload of the file never expires, and
# "expire after" in its block is refused; orchctl keep stops an expiry,
# across a restart too, and so does a PATCH of expire_after 0 (null
# brings the global expire after back); GET shows expires_at.  orchctl
# create from flags and from JSON, update, delete, each seen in show
# workloads and the API; a volume of the whole host refused to orchctl
# as to the API.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root

need_docker
ensure_user

TAG=exp$$
port_base 11
ports GW API P_A P_B P_P P_Q P_CFG RP
# the busybox image under a name of this test's alone, in a registry (an
# image made here is never removed), to see it go
IMG=127.0.0.1:$RP/orchd-test/$TAG:latest
A=${TAG}a
B=${TAG}b
P=${TAG}p
Q=${TAG}q
CFG=${TAG}cfg
V=$(mktemp -d /tmp/orchd-e2e-vol.XXXXXX)
chmod 0755 "$V"

expiry_cleanup() {
	if [ -n "$ORCHD_PID" ] && kill -0 "$ORCHD_PID" 2>/dev/null; then
		kill -TERM "$ORCHD_PID" 2>/dev/null
		wait_gone "$ORCHD_PID" 10
	fi
	for n in $A $B; do
		docker rm -f "orchd-$E2E_INSTANCE-$n" >/dev/null 2>&1
	done
	docker rmi "$IMG" >/dev/null 2>&1
	rm -rf "$V"
	e2e_cleanup
}
trap expiry_cleanup EXIT

registry_start "127.0.0.1:$RP"
registry_push orchd-test/busybox:latest "$IMG" || exit 1

KEY=e2e-key-$$-0123456789abcdef
# the API names its volumes, orchd makes them as $V/INSTANCE/NAME/VOLUME:
# what the containers serve is put where orchd will find it
VI=$V/$E2E_INSTANCE
mkdir -p "$T/log" "$T/bin" "$VI/$A/www" "$VI/$A/bin"
testhttp_bin
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
echo "hello from a container" >"$VI/$A/www/index.html"
cat >"$VI/$A/bin/run.sh" <<'EOF'
#!/bin/sh
trap 'exit 0' TERM
/bin/httpd -f -p "127.0.0.1:$PORT" -h /www &
wait
EOF
chmod -R a+rX "$VI"
cp -Rp "$VI/$A" "$VI/$B"

write_conf() {	# write_conf [EXTRA-LINE-IN-THE-WORKLOAD]
	conf_head >"$T/orchd.conf"
	cat >>"$T/orchd.conf" <<CONF
idle timeout 5m
wake timeout 20s
reaper interval 1s
expire after 3s
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
api allow process
api allow image "127.0.0.1:$RP/orchd-test/$TAG*"
api allow volume "$V"
# the containers share the host's network: --bridge=none here
api allow network host

workload "$CFG" {
	host "cfg.test"
	command "$T/bin/testhttp serve $P_CFG"
	port $P_CFG
	$1
}
CONF
}

ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
api() { curl -sS -m 30 -H "Authorization: Bearer $KEY" "$@"; }
URL=http://127.0.0.1:$API
field() {	# field JSON NAME
	printf '%s' "$1" | python3 -c 'import json, sys
o = json.load(sys.stdin)
v = o.get(sys.argv[1])
print(json.dumps(v) if not isinstance(v, str) else v)' "$2" 2>/dev/null
}
api_names() {
	api "$URL/v1/workloads" | python3 -c 'import json, sys
print(" ".join(w["name"] for w in json.load(sys.stdin)["workloads"]))'
}
api_listed() { api_names | grep -qw "$1"; }
ctl_listed() { ctl show workloads | awk '{ print $1 }' | grep -qx "$1"; }
gone() { ! ctl_listed "$1" && ! api_listed "$1"; }
answers() {	# answers HOST TEXT
	curl -s -m 20 -H "Host: $1" "http://127.0.0.1:$GW/index.html" \
	    | grep -q "$2"
}
container() { docker container inspect "orchd-$E2E_INSTANCE-$1" >/dev/null 2>&1; }
no_container() { ! container "$1"; }
image() { docker image inspect "$IMG" >/dev/null 2>&1; }
no_image() { ! image; }
logged() { grep -q -- "$1" "$T/orchd.log"; }

# -- the file's workloads never expire: "expire after" is refused there
write_conf "expire after 1s"
"$ORCHD" -n -f "$T/orchd.conf" >"$T/n.out" 2>&1
st=$?
check "expire after in a workload of the file is refused (status $st)" \
    [ "$st" -ne 0 ]
check "... saying the file's workloads never expire" \
    grep -q "configuration file never expire" "$T/n.out"
write_conf
"$ORCHD" -nv -f "$T/orchd.conf" >"$T/nv.out" 2>&1
check "orchd -nv prints the global expire after" \
    grep -qx "expire after 3s" "$T/nv.out"

start_orchd_or_exit

# -- orchctl create from flags: a docker workload, expiring after 4s
ctl create "$A" --driver docker --image "$IMG" \
    --command "/bin/sh /orchd/run.sh" --host a.test --port "$P_A" \
    --env "PORT=$P_A" --network host --volume "www:/www" \
    --volume "bin:/orchd" --expire-after 4s >"$T/ca.out" 2>&1
check "orchctl create NAME --flags ... succeeds" grep -q "created" "$T/ca.out"
check "... show workloads lists it" ctl_listed "$A"
check "... so does the API" api_listed "$A"
def=$(api "$URL/v1/workloads/$A")
check "... its expire_after is 4 seconds" [ "$(field "$def" expire_after)" = 4 ]

# -- orchctl create from JSON on standard input: never expires
cat >"$T/b.json" <<EOF
{"name": "$B", "driver": "docker", "image": "$IMG",
 "command": "/bin/sh /orchd/run.sh", "hosts": ["b.test"], "port": $P_B,
 "env": ["PORT=$P_B"], "network": "host",
 "volumes": [{"host": "www", "container": "/www"},
	     {"host": "bin", "container": "/orchd"}],
 "expire_after": 0}
EOF
ctl create - <"$T/b.json" >"$T/cb.out" 2>&1
check "orchctl create - (JSON) succeeds" grep -q "created" "$T/cb.out"
check "... show workloads and the API list it" \
    sh -c "$ORCHCTL -s $SOCK show workloads | grep -q '^$B '"
check "... the API too" api_listed "$B"

# -- both woken: their containers are there
check "a.test is answered (a wake)" answers a.test "hello from a container"
check "... its container is there" container "$A"
check "b.test is answered (a wake)" answers b.test "hello from a container"
check "... its container is there" container "$B"
def=$(api "$URL/v1/workloads/$B")
check "GET of one that never expires: expires_at null" \
    [ "$(field "$def" expires_at)" = null ]

# -- a workload created and kept through orchctl keep
body=$(printf '{"name": "%s", "hosts": ["p.test"], "command": "%s serve %s", "port": %s}' \
    "$P" "$T/bin/testhttp" "$P_P" "$P_P")
c=$(curl -s -m 30 -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $KEY" \
    -H 'Content-Type: application/json' -d "$body" "$URL/v1/workloads")
check "an API workload with the global expire after (3s) is created ($c)" \
    [ "$c" = 201 ]
ctl keep "$P" >"$T/keep.out" 2>&1
check "orchctl keep on it succeeds" grep -q "never expires" "$T/keep.out"
def=$(api "$URL/v1/workloads/$P")
check "... its expire_after is 0, never" [ "$(field "$def" expire_after)" = 0 ]

# -- a PATCH clears an expiry too, and null brings the global one back
R=${TAG}r
ports P_R
# apicode METHOD PATH [BODY]: the API's status alone
apicode() {
	curl -s -m 30 -o /dev/null -w '%{http_code}' -X "$1" \
	    -H "Authorization: Bearer $KEY" \
	    -H 'Content-Type: application/json' ${3:+-d "$3"} "$URL$2"
}
body=$(printf '{"name": "%s", "hosts": ["r.test"], ' "$R"
    printf '"command": "%s serve %s", ' "$T/bin/testhttp" "$P_R"
    printf '"port": %s, "expire_after": "1h"}' "$P_R")
c=$(apicode POST /v1/workloads "$body")
check "R, expiring after 1h, is created ($c)" [ "$c" = 201 ]
curl -s -m 20 -o /dev/null -H "Host: r.test" "http://127.0.0.1:$GW/"
check "... after a request, GET shows an expires_at" \
    [ "$(field "$(api "$URL/v1/workloads/$R")" expires_at)" != null ]
c=$(apicode PATCH "/v1/workloads/$R" '{"expire_after": 0}')
check "PATCH of expire_after 0: 200 ($c)" [ "$c" = 200 ]
def=$(api "$URL/v1/workloads/$R")
check "... expires_at is null now" [ "$(field "$def" expires_at)" = null ]
check "... the rest of it kept" [ "$(field "$def" hosts)" = '["r.test"]' ]

# -- A expires
check "A is deleted after its expire after, no request since" \
    wait_for 30 gone "$A"
check "... its container is removed" wait_for 20 no_container "$A"
check "... the image stays: B names it" image
check "... the log says so" wait_for 10 logged "image $IMG kept"
check "... and that it expired" logged "workload $A expired"
ctl show history "$A" >"$T/ha.out" 2>&1
check "orchctl show history of the deleted one: its history kept" \
    grep -q "running" "$T/ha.out"
check "... ending with its expiry" sh -c "tail -n 1 '$T/ha.out' | grep -q expired"
"$ORCHCTL" -s "$SOCK" -j show history "$A" >"$T/ha.json" 2>&1
check "... as JSON, reason expired last" python3 -c 'import json, sys
h = json.load(open(sys.argv[1]))
assert h[-1]["reason"] == "expired", h
assert any(t["to"] == "running" for t in h), h' "$T/ha.json"
c=$(curl -s -m 30 -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $KEY" \
    "$URL/v1/workloads/$A")
check "GET of the expired one: 404 ($c)" [ "$c" = 404 ]

# -- the file's workload and the kept one are still there, past 3s
check "the file's workload did not expire" ctl_listed "$CFG"
check "the kept one did not expire" ctl_listed "$P"
check "nor the one a PATCH kept" ctl_listed "$R"

# -- expires_at, from the last request
body=$(printf '{"name": "%s", "hosts": ["q.test"], "command": "%s serve %s", "port": %s, "expire_after": "1h"}' \
    "$Q" "$T/bin/testhttp" "$P_Q" "$P_Q")
c=$(curl -s -m 30 -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $KEY" \
    -H 'Content-Type: application/json' -d "$body" "$URL/v1/workloads")
check "an API workload expiring after 1h is created ($c)" [ "$c" = 201 ]
curl -s -m 20 -o /dev/null -H "Host: q.test" "http://127.0.0.1:$GW/"
def=$(api "$URL/v1/workloads/$Q")
ls=$(field "$def" last_seen)
ea=$(field "$def" expires_at)
# the clock runs from the later of the last request and the start
# (api_ops.c): the request woke it, so its start may fall in the next
# second
check "GET shows expires_at ($ea), an hour after last_seen ($ls)" \
    python3 -c 'import sys, datetime
f = "%Y-%m-%dT%H:%M:%SZ"
a, b = (datetime.datetime.strptime(x, f) for x in sys.argv[1:3])
assert (b - a).total_seconds() in (3600, 3601)' "$ls" "$ea"

# -- orchctl delete
ctl delete "$Q" >"$T/dq.out" 2>&1
check "orchctl delete succeeds" grep -q "deleted" "$T/dq.out"
check "... gone from show workloads and the API" gone "$Q"
ctl delete "$CFG" >"$T/dc.out" 2>&1
check "orchctl delete of the file's workload is refused" \
    grep -q "defined in the configuration file" "$T/dc.out"
ctl keep "$CFG" >"$T/kc.out" 2>&1
check "orchctl keep of the file's workload is refused" \
    grep -q "never expires it" "$T/kc.out"

# -- the policy's rules bind orchctl too
ctl create "${TAG}x" --driver docker --image "$IMG" --host x.test \
    --port 1 --volume /:/host >"$T/cx.out" 2>&1
st=$?
check "orchctl create with a volume of the whole host is refused ($st)" \
    [ "$st" -ne 0 ]
check "... naming the rule" grep -q "volume .*must be a name" "$T/cx.out"
check "... nothing created" sh -c "! $ORCHCTL -s $SOCK show workloads | grep -q '^${TAG}x '"

# -- keep holds across a restart
stop_orchd
check "orchd stops" [ "$STATUS" -eq 0 ]
start_orchd_or_exit
sleep 5
check "after a restart, the kept one is still there" ctl_listed "$P"
check "... and B, which never expires" ctl_listed "$B"

# -- orchctl update: B now expires after 2s, and takes the image along
sed 's/"expire_after": 0/"expire_after": "2s"/' "$T/b.json" >"$T/b2.json"
ctl update "$B" "$T/b2.json" >"$T/ub.out" 2>&1
check "orchctl update succeeds" grep -q "updated" "$T/ub.out"
def=$(api "$URL/v1/workloads/$B")
check "... the API shows the new expire_after" \
    [ "$(field "$def" expire_after)" = 2 ]
ctl update "$CFG" "$T/b2.json" >"$T/uc.out" 2>&1
check "orchctl update with another name's definition is refused" \
    grep -q "another workload" "$T/uc.out"
printf '{"name": "%s", "hosts": ["cfg.test"], "command": "/bin/true", "port": %s}' \
    "$CFG" "$P_CFG" | ctl update "$CFG" - >"$T/uc2.out" 2>&1
check "orchctl update of the file's workload is refused" \
    grep -q "defined in the configuration file" "$T/uc2.out"
check "B expires" wait_for 30 gone "$B"
check "... its container is removed" wait_for 20 no_container "$B"
check "... and the image, which no workload names now" \
    wait_for 20 no_image
check "... the log says so" wait_for 10 logged "image $IMG removed"

# -- R again: a PATCH of expire_after null, the global 3s, and it goes
c=$(apicode PATCH "/v1/workloads/$R" '{"expire_after": null}')
check "PATCH of expire_after null: 200 ($c)" [ "$c" = 200 ]
check "... R expires after the global expire after" wait_for 30 gone "$R"

# -- a group expires as one: not while a member is used, then together
G1=${TAG}g1
G2=${TAG}g2
ports P_G1 P_G2
gbody() {	# gbody NAME PORT
	printf '{"name": "%s", "hosts": ["%s.test"], "group": "%sgrp", ' \
	    "$1" "$1" "$TAG"
	printf '"command": "%s serve %s", ' "$T/bin/testhttp" "$2"
	printf '"port": %s, "expire_after": "3s"}' "$2"
}
c1=$(apicode POST /v1/workloads "$(gbody "$G1" "$P_G1")")
c2=$(apicode POST /v1/workloads "$(gbody "$G2" "$P_G2")")
check "two members of a group, expiring after 3s, are created ($c1 $c2)" \
    [ "$c1" = 201 ] && [ "$c2" = 201 ]
i=0
while [ $i -lt 10 ]; do
	curl -s -m 5 -o /dev/null -H "Host: $G1.test" "http://127.0.0.1:$GW/"
	sleep 1
	i=$((i + 1))
done
check "while one is used, the other stays (10 s, its own 3 s long past)" \
    sh -c "! grep -q 'workload $G2 expired' '$T/orchd.log'"
check "... the log says it waits for its group" \
    logged "workload $G2: expiry waits for $G1"
check "... and is still listed" ctl_listed "$G2"
check "once neither is used, both go (within 150 s: two asks)" \
    wait_for 150 sh -c "! ctl show workloads | awk '{ print \$1 }' |
    grep -qx '$G1\|$G2'"

e2e_done
