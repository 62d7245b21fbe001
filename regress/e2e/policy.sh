#!/bin/sh
# The operator's policy, enforced by the root parent: what an API key
# holder may create (api allow process, image, volume; never user,
# runtime or allow_root: 403, nothing created), the host paths no
# volume may touch whatever its source, a host under a pattern of the
# file (409), the API's workloads that a reload's policy forbids
# (dropped), and a row written into the database by hand that breaks
# the rules (logged, never loaded).  orchd.conf: forbidden volumes and
# root users are errors at file:line.  No container is run: creation is
# what is checked.  Every wait bounded, loopback only.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

base=$((20000 + ($$ + 7000) % 12000))
GW=$(free_port "$base")
API=$(free_port $((GW + 1)))
P_WILD=$(free_port $((API + 1)))
P_PROC=$(free_port $((P_WILD + 1)))

KEY=e2e-policy-$$-0123456789abcdef
IMAGE=orchd-test/busybox:latest
# volumes live outside $T: the directory of orchd.conf is off limits
V=$(mktemp -d /tmp/orchd-e2e-pvol.XXXXXX)
chmod 0755 "$V"
mkdir -p "$T/log" "$T/bin" "$V/previews/a"
testhttp_bin
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
trap 'rm -rf "$V"; e2e_cleanup' EXIT

write_conf() {	# write_conf [EXTRA-GLOBAL-LINE...]
	conf_head >"$T/orchd.conf"
	cat >>"$T/orchd.conf" <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
api allow image "orchd-test/*"
# the bodies say network host: --bridge=none here
api allow network host
CONF
	for x in "$@"; do
		printf '%s\n' "$x" >>"$T/orchd.conf"
	done
	cat >>"$T/orchd.conf" <<CONF

workload "wild" {
	host "*.preview.test"
	command "$T/bin/testhttp serve $P_WILD"
	port $P_WILD
}
CONF
}

URL=http://127.0.0.1:$API
post() {	# post BODY: the body, then the status on a line of its own
	curl -s -m 30 -H "Authorization: Bearer $KEY" -w '\n%{http_code}' \
	    -X POST --data-binary "$1" "$URL/v1/workloads"
}
last() { printf '%s\n' "$1" | tail -n 1; }
has() { printf '%s' "$1" | grep -q -- "$2"; }
names() {	# the names GET /v1/workloads lists
	curl -s -m 30 -H "Authorization: Bearer $KEY" "$URL/v1/workloads" |
	    python3 -c 'import json, sys
print(" ".join(sorted(w["name"] for w in json.load(sys.stdin)["workloads"])))'
}
names_are() { [ "$(names)" = "$1" ]; }
ctl_lists() {	# ctl_lists NAME: orchctl show workloads has it
	"$ORCHCTL" -s "$SOCK" show workloads | awk '{ print $1 }' |
	    grep -qx "$1"
}
docker_body() {	# docker_body NAME [MORE-JSON]
	printf '{"name": "%s", "hosts": ["%s.test"], "driver": "docker", "image": "%s", "network": "host", "port": %s%s}' \
	    "$1" "$1" "$IMAGE" "$P_PROC" "${2:-}"
}
process_body() {	# process_body NAME [MORE-JSON]
	printf '{"name": "%s", "hosts": ["%s.test"], "command": "%s serve %s", "port": %s%s}' \
	    "$1" "$1" "$T/bin/testhttp" "$P_PROC" "$P_PROC" "${2:-}"
}
# refused DESC BODY STATUS PATTERN: answered STATUS naming the rule, and
# nothing was created
refused() {
	out=$(post "$2")
	st=$(last "$out")
	if [ "$st" = "$3" ] && has "$out" "$4" && names_are "$EXPECT"; then
		ok "$1: $3"
	else
		fail "$1: $3 (got $st: $(printf '%s' "$out" | head -n 1);" \
		    "listed: $(names))"
	fi
}
reload() {
	"$ORCHCTL" -s "$SOCK" reload >/dev/null 2>&1
}

# -- orchd.conf: forbidden paths and root are errors at file:line
# conf_case DESC BAD BLOCK-LINE...: orchd -n fails at the line BAD
# starts, or accepts the file when BAD is "ok"
conf_case() {
	desc=$1
	bad=$2
	shift 2
	{
		conf_head
		echo 'workload "c" {'
		echo '	host "c.test"'
		echo '	port 1'
		for x in "$@"; do
			printf '\t%s\n' "$x"
		done
		echo '}'
	} >"$T/case.conf"
	"$ORCHD" -n -f "$T/case.conf" >"$T/case.out" 2>&1
	st=$?
	if [ "$bad" = ok ]; then
		check "$desc: accepted" [ "$st" -eq 0 ]
		[ "$st" -eq 0 ] || cat "$T/case.out"
		return
	fi
	line=$(grep -n -F "	$bad" "$T/case.conf" | head -n 1 | cut -d: -f1)
	if [ "$st" -eq 1 ] && grep -q "^$T/case.conf:$line: " "$T/case.out"
	then
		ok "$desc: an error at case.conf:$line"
	else
		fail "$desc: an error at case.conf:$line (status $st)"
		cat "$T/case.out"
	fi
}
conf_case 'volume "/etc"' 'volume' 'driver docker' "image \"$IMAGE\"" \
    'volume "/etc" "/x"'
conf_case 'volume "/"' 'volume' 'driver docker' "image \"$IMAGE\"" \
    'volume "/" "/x"'
conf_case 'volume "/var" (contains /var/run)' 'volume' 'driver docker' \
    "image \"$IMAGE\"" 'volume "/var" "/x"'
conf_case 'volume of the docker socket' 'volume' 'driver docker' \
    "image \"$IMAGE\"" 'volume "/var/run/docker.sock" "/x"'
conf_case 'volume of the log directory' 'volume' 'driver docker' \
    "image \"$IMAGE\"" "volume \"$T/log\" \"/x\""
conf_case 'volume with ".."' 'volume' 'driver docker' "image \"$IMAGE\"" \
    "volume \"$V/previews/../../etc\" \"/x\""
conf_case 'process user "root"' 'user' 'command "/bin/true"' 'user "root"'
conf_case 'process user "0"' 'user' 'command "/bin/true"' 'user "0"'
conf_case 'docker user "0" without allow root' 'user' 'driver docker' \
    "image \"$IMAGE\"" 'user "0"'
conf_case 'docker user "root:root" without allow root' 'user' \
    'driver docker' "image \"$IMAGE\"" 'user "root:root"'
conf_case 'docker user "0" with allow root' ok 'driver docker' \
    "image \"$IMAGE\"" 'user "0"' 'allow root'
conf_case "docker volume under $V" ok 'driver docker' "image \"$IMAGE\"" \
    "volume \"$V/previews/a\" \"/x\""

# -- the API, as the default policy has it: docker only
write_conf "api allow volume \"$V/previews\""
start_orchd_or_exit
EXPECT=wild

refused "an API process workload without api allow process" \
    "$(process_body p1)" 403 'api allow process'
refused "... the error is JSON naming the rule" \
    "$(process_body p1)" 403 \
    '{"error": *"api allow: process workloads are not allowed'
refused '"user": "root" on a docker workload' \
    "$(docker_body d1 ', "user": "root"')" 403 '\\"user\\"'
refused '"user": "0:0" on a docker workload' \
    "$(docker_body d1 ', "user": "0:0"')" 403 'orchd.conf only'
refused '"runtime"' "$(docker_body d1 ', "runtime": "runc"')" 403 \
    '\\"runtime\\"'
refused '"allow_root": true' "$(docker_body d1 ', "allow_root": true')" \
    403 'allow_root'
# an API volume is a name, orchd makes it under the root: no path at all
refused 'a volume of "/"' \
    "$(docker_body d1 ', "volumes": [{"host": "/", "container": "/x"}]')" \
    403 'must be a name'
refused 'a volume of the docker socket' \
    "$(docker_body d1 ', "volumes": [{"host": "/var/run/docker.sock", "container": "/x"}]')" \
    403 'must be a name'
refused 'a volume of the database directory' \
    "$(docker_body d1 ", \"volumes\": [{\"host\": \"$T/db\", \"container\": \"/x\"}]")" \
    403 'must be a name'
refused 'a volume under the allow root, as a path' \
    "$(docker_body d1 ", \"volumes\": [{\"host\": \"$V/previews/a\", \"container\": \"/x\"}]")" \
    403 'must be a name'
refused 'a volume of ".."' \
    "$(docker_body d1 ', "volumes": [{"host": "..", "container": "/x"}]')" \
    403 'must be a name'
refused 'a volume of two names' \
    "$(docker_body d1 ', "volumes": [{"host": "a/b", "container": "/x"}]')" \
    403 'must be a name'
refused 'an image matching no api allow image' \
    '{"name": "d1", "hosts": ["d1.test"], "driver": "docker", "image": "evil/busybox:1", "port": 1}' \
    403 'matches no'
refused 'a host under "*.preview.test" of the file' \
    '{"name": "d1", "hosts": ["pr-1.preview.test"], "driver": "docker", "image": "orchd-test/busybox:latest", "port": 8080}' \
    409 'falls under'
refused 'a pattern under "*.preview.test" of the file' \
    '{"name": "d1", "hosts": ["*.a.preview.test"], "driver": "docker", "image": "orchd-test/busybox:latest", "port": 8080}' \
    409 'falls under'

out=$(post "$(docker_body vol1 ', "volumes": [{"host": "a", "container": "/x"}]')")
check "a volume named \"a\": 201 (got $(last "$out"))" \
    [ "$(last "$out")" = 201 ]
check "... listed" names_are "vol1 wild"
out=$(post "$(docker_body plain1)")
check "a docker workload of an allowed image: 201 (got $(last "$out"))" \
    [ "$(last "$out")" = 201 ]
EXPECT="plain1 vol1 wild"

# -- api allow process, by reload
write_conf "api allow volume \"$V/previews\"" "api allow process"
check "reload with api allow process" reload
out=$(post "$(process_body p1)")
check "an API process workload with api allow process: 201 (got $(last "$out"))" \
    [ "$(last "$out")" = 201 ]
EXPECT="p1 plain1 vol1 wild"
refused '... and with "user": "root"' \
    "$(process_body p2 ', "user": "root"')" 403 '\\"user\\"'

# -- a reload whose policy forbids what the API made: dropped, logged
write_conf
check "reload without api allow process and volume" reload
check "... the process workload is dropped" \
    wait_for 10 names_are "plain1 wild"
check "... logged with its rule" grep -q \
    "workload p1 created through the API is dropped from the running configuration: api allow: process" \
    "$T/orchd.log"
check "... and the one with a volume" grep -q \
    "workload vol1 created through the API is dropped from the running configuration: api allow volume: volumes are not allowed" \
    "$T/orchd.log"

# -- a row written by hand into the database: never loaded
stop_orchd
check "orchd stops (status $STATUS)" [ "$STATUS" -eq 0 ]
sqlite3 "$T/db/orchd.db" "INSERT INTO workloads (name, definition, source,
    since_ms, updated) VALUES ('rooted', '{\"name\": \"rooted\", \"driver\":
    \"process\", \"source\": \"api\", \"hosts\": [\"rooted.test\"],
    \"command\": \"/bin/sh -c true\", \"user\": \"root\", \"port\": 1}',
    'api', 0, 0); INSERT INTO workloads (name, definition, source,
    since_ms, updated)
    VALUES ('mounted', '{\"name\": \"mounted\", \"driver\": \"docker\",
    \"source\": \"api\", \"hosts\": [\"mounted.test\"], \"image\":
    \"$IMAGE\", \"volumes\": [{\"host\": \"/\", \"container\": \"/x\"}],
    \"port\": 1}', 'api', 0, 0);"
check "rows inserted by hand" [ $? -eq 0 ]
# p1 is in the store still, and this policy allows it again
write_conf "api allow process"
start_orchd_or_exit
check "the root row is logged, with its rule" wait_for 10 grep -q \
    'workload rooted created through the API is not loaded: api: "user"' \
    "$T/orchd.log"
check "the row mounting / is logged, with its rule" wait_for 10 grep -q \
    'workload mounted created through the API is not loaded: api allow volume: volume "/" must be a name' \
    "$T/orchd.log"
check "neither is listed by the API ($(names))" names_are "p1 plain1 wild"
# orchctl show workloads lists the database's rows: these too, but they
# are not in the running configuration, and nothing can wake them
check "orchctl wake rooted: refused" sh -c \
    "! $ORCHCTL -s $SOCK wake rooted >$T/wake.out 2>&1"
check "... as no such workload" grep -qi "no such workload" "$T/wake.out"
check "the gateway does not route it" [ "$(curl -s -m 10 -o /dev/null \
    -w '%{http_code}' -H 'Host: rooted.test' "http://127.0.0.1:$GW/")" = 404 ]
check "orchctl lists the loaded ones" ctl_lists plain1

stop_orchd
check "orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]
e2e_done
