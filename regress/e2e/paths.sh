#!/bin/sh
# Path routing ("path", "strip prefix"), process workloads on one host:
# web (the host's default), api at "/api/" with strip prefix, and
# api-admin at "/api/admin" (the longer prefix); each request wakes and
# reaches the workload its path routes to, with the path it should see;
# a prefix matches whole segments only (/apix is web's); over HTTP/2
# (prior knowledge), to an upstream h2c workload (node's http2, the
# stream's :path stripped) and for a WebSocket upgrade too; the wake is
# that workload's (show workloads).  The API: one host by path, one
# host and path twice 409, a path on a host of the file's 409, a path
# with ".." 400.  orchd -n refuses two workloads with one host and
# path, and takes two with other paths.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports GW PK API P_WEB P_API P_ADM P_V1 P_V2 P_H2C P_WILD
KEY=e2e-key-$$-0123456789abcdef
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
mkdir -p "$T/log" "$T/bin"
cp "$BUILD/regress/testhttp" "$T/bin/testhttp"
chmod 0755 "$T/bin" "$T/bin/testhttp"
# an upstream h2c workload (node's http2): the :path it was sent
cat >"$T/bin/h2c.js" <<EOF
const fs = require("fs");
require("http2").createServer((req, res) => {
	fs.appendFileSync("$T/h2c.reqs", req.method + " " + req.url + "\\n");
	res.end("h2c\\n");
}).listen($P_H2C, "127.0.0.1");
EOF
chmod 0644 "$T/bin/h2c.js"
for f in web api adm h2c wild; do
	: >"$T/$f.starts"
	: >"$T/$f.reqs"
	chmod 0666 "$T/$f.starts" "$T/$f.reqs"
done

conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
reaper interval 1s
listen on 127.0.0.1 port $GW
listen on 127.0.0.1 port $PK http2 prior knowledge
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
api allow process

workload "web" {
	host "app.test"
	command "$T/bin/testhttp serve $P_WEB $T/web.starts $T/web.reqs"
	port $P_WEB
}
workload "api" {
	host "app.test"
	path "/api/"
	strip prefix
	command "$T/bin/testhttp serve $P_API $T/api.starts $T/api.reqs"
	port $P_API
}
workload "h2c" {
	host "app.test"
	path "/h2c"
	strip prefix
	upstream h2c
	command "/usr/bin/node $T/bin/h2c.js"
	port $P_H2C
}
workload "wild" {
	host "*.w.test"
	path "/x"
	command "$T/bin/testhttp serve $P_WILD $T/wild.starts $T/wild.reqs"
	port $P_WILD
}
workload "api-admin" {
	host "app.test"
	path "/api/admin"
	command "$T/bin/testhttp serve $P_ADM $T/adm.starts $T/adm.reqs"
	port $P_ADM
}
CONF

ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
is_state() { ctl show workloads | grep -Eq "^$1 +$2 "; }
lines() { wc -l <"$1" | tr -d ' '; }
get() { curl -s -m 30 -o "$T/body" -w '%{http_code}' -H 'Host: app.test' \
    "$@"; }
last() { tail -n 1 "$1"; }

check "orchd -n takes three workloads on one host by path" \
    "$ORCHD" -n -f "$T/orchd.conf"
"$ORCHD" -nv -f "$T/orchd.conf" >"$T/nv.out" 2>&1
check "orchd -nv prints path and strip prefix" sh -c \
    "grep -q '^	path \"/api/\"\$' $T/nv.out &&
    grep -q '^	strip prefix\$' $T/nv.out"
start_orchd_or_exit

c=$(get "http://127.0.0.1:$GW/api/users?id=1")
check "/api/users: 200 ($c), api woken, not web" sh -c "[ $c = 200 ] &&
    [ \$(wc -l <$T/api.starts) -eq 1 ] && [ \$(wc -l <$T/web.starts) -eq 0 ]"
check "api saw /users?id=1, the prefix stripped: $(last "$T/api.reqs")" \
    [ "$(last "$T/api.reqs")" = "GET /users?id=1" ]
check "the host's other workloads still asleep" sh -c \
    "$ORCHCTL -s $SOCK show workloads | grep -Eq '^web +asleep ' &&
    $ORCHCTL -s $SOCK show workloads | grep -Eq '^api-admin +asleep '"
c=$(get "http://127.0.0.1:$GW/api")
check "/api alone: api, as / ($c): $(last "$T/api.reqs")" \
    [ "$c" = 200 -a "$(last "$T/api.reqs")" = "GET /" ]
c=$(get "http://127.0.0.1:$GW/api?x=2")
check "/api?x=2: api, as /?x=2 ($c): $(last "$T/api.reqs")" \
    [ "$c" = 200 -a "$(last "$T/api.reqs")" = "GET /?x=2" ]
c=$(get "http://127.0.0.1:$GW/api/admin/stats")
check "/api/admin/stats: the longer prefix wins, unstripped ($c): \
$(last "$T/adm.reqs")" \
    [ "$c" = 200 -a "$(last "$T/adm.reqs")" = "GET /api/admin/stats" ]
c=$(get "http://127.0.0.1:$GW/apix")
check "/apix: web's, a prefix is whole segments ($c): $(last "$T/web.reqs")" \
    [ "$c" = 200 -a "$(last "$T/web.reqs")" = "GET /apix" ]
c=$(get "http://127.0.0.1:$GW/")
check "/: web ($c)" [ "$c" = 200 -a "$(last "$T/web.reqs")" = "GET /" ]
c=$(get "http://127.0.0.1:$GW/api/adminx")
check "/api/adminx: api's ($c): $(last "$T/api.reqs")" \
    [ "$c" = 200 -a "$(last "$T/api.reqs")" = "GET /adminx" ]

# HTTP/2, prior knowledge
n=$(lines "$T/api.reqs")
out=$(curl -s -m 30 --http2-prior-knowledge -o /dev/null \
    -w '%{http_code} %{http_version}' -H 'Host: app.test' \
    "http://127.0.0.1:$PK/api/h2?y=3")
check "HTTP/2: /api/h2 to api, stripped ($out): $(last "$T/api.reqs")" \
    [ "$out" = "200 2" -a "$(last "$T/api.reqs")" = "GET /h2?y=3" ]
out=$(curl -s -m 30 --http2-prior-knowledge -o /dev/null \
    -w '%{http_code} %{http_version}' -H 'Host: app.test' \
    "http://127.0.0.1:$PK/api/admin/h2")
check "HTTP/2: /api/admin/h2 to api-admin ($out): $(last "$T/adm.reqs")" \
    [ "$out" = "200 2" -a "$(last "$T/adm.reqs")" = "GET /api/admin/h2" ]

# a wildcard host by path, and no default for the rest of it
c=$(curl -s -m 30 -o /dev/null -w '%{http_code}' -H 'Host: a.w.test' \
    "http://127.0.0.1:$GW/x/y")
check "*.w.test /x: a.w.test/x/y to wild ($c): $(last "$T/wild.reqs")" \
    [ "$c" = 200 -a "$(last "$T/wild.reqs")" = "GET /x/y" ]
c=$(curl -s -m 30 -o /dev/null -w '%{http_code}' -H 'Host: a.w.test' \
    "http://127.0.0.1:$GW/y")
check "a.w.test/y: no workload has it, 404 ($c)" [ "$c" = 404 ]

# upstream h2c, stripped on the stream's :path
for p in /h2c/a/b?q=1 /h2c; do
	out=$(curl -s -m 30 --http2-prior-knowledge -o /dev/null \
	    -w '%{http_code}' -H 'Host: app.test' "http://127.0.0.1:$PK$p")
	check "upstream h2c: $p ($out): $(last "$T/h2c.reqs")" \
	    [ "$out" = 200 -a "$(last "$T/h2c.reqs")" = \
	    "GET $(echo "$p" | sed 's,^/h2c,,; s,^$,/,')" ]
done

# a WebSocket upgrade, routed by path and stripped to testhttp's /ws
printf 'GET /api/ws HTTP/1.1\r\nHost: app.test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\nping-by-path' |
    "$T/bin/testhttp" raw "$GW" 2 >"$T/ws.out"
check "WebSocket: /api/ws upgraded by api ($(head -n 1 "$T/ws.out" | tr -d '\r'))" \
    sh -c "grep -q '^HTTP/1.1 101' $T/ws.out && grep -q ping-by-path $T/ws.out &&
    [ \"\$(tail -n 1 $T/api.reqs)\" = 'GET /ws' ]"

# the reaper's view: each by its own activity
check "api-admin and web run, woken by their own paths" sh -c \
    "$ORCHCTL -s $SOCK show workloads | grep -Eq '^api-admin +running ' &&
    $ORCHCTL -s $SOCK show workloads | grep -Eq '^web +running '"
check "one start each ($(lines "$T/web.starts") $(lines "$T/api.starts") \
$(lines "$T/adm.starts"))" sh -c "[ \$(wc -l <$T/web.starts) -eq 1 ] &&
    [ \$(wc -l <$T/api.starts) -eq 1 ] && [ \$(wc -l <$T/adm.starts) -eq 1 ]"

# the API: one host by path; a host and path twice, or a host of the
# file's whatever the path, 409
post() {	# post NAME HOST PATH PORT: the status, the body in $T/body
	curl -s -m 30 -o "$T/body" -w '%{http_code}' -X POST \
	    -H "Authorization: Bearer $KEY" -d "{\"name\": \"$1\",
	    \"hosts\": [\"$2\"], \"path\": \"$3\", \"path_strip\": true,
	    \"port\": $4, \"command\": \"$T/bin/testhttp serve $4\"}" \
	    "http://127.0.0.1:$API/v1/workloads"
}
c=$(post v1 v.test /v1/ $P_V1)
check "API: a workload at v.test /v1/ ($c)" [ "$c" = 201 ]
c=$(post v2 v.test /v2 $P_V2)
check "API: another at v.test /v2 ($c)" [ "$c" = 201 ]
c=$(post v3 v.test /v1 $P_V2)
check "API: v.test /v1 again: 409 ($c): $(cat "$T/body")" \
    sh -c "[ $c = 409 ] && grep -q 'already used by workload' $T/body"
c=$(post v4 app.test /zzz $P_V2)
check "API: a path on the file's host: 409 ($c): $(cat "$T/body")" \
    sh -c "[ $c = 409 ] && grep -q 'already used by workload' $T/body"
c=$(post v5 v.test /a/../b $P_V2)
check "API: a path with ..: 400 ($c): $(cat "$T/body")" \
    sh -c "[ $c = 400 ] && grep -q 'must be a prefix' $T/body"
c=$(curl -s -m 30 -o "$T/body" -w '%{http_code}' -H 'Host: v.test' \
    "http://127.0.0.1:$GW/v2/x")
check "API: v.test/v2/x reaches v2, which woke ($c)" sh -c "[ $c = 200 ] &&
    $ORCHCTL -s $SOCK show workloads | grep -Eq '^v2 +running ' &&
    ! $ORCHCTL -s $SOCK show workloads | grep -Eq '^v1 +running '"
c=$(curl -s -m 30 -o "$T/json" -w '%{http_code}' \
    -H "Authorization: Bearer $KEY" "http://127.0.0.1:$API/v1/workloads/v1")
check "API: GET returns path and path_strip ($c)" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d = d.get("definition", d)
sys.exit(not (d.get("path") == "/v1/" and d.get("path_strip") is True))' \
    "$T/json"
stop_orchd

# orchd -n: one host and path twice
dup() {	# dup PATH-A PATH-B: workloads x and y on one host
	{ conf_head
	  echo "listen on 127.0.0.1 port $GW"
	  printf 'workload "x" {\n\thost "d.test"\n\tcommand "/bin/true"\n\tport 1\n'
	  [ -n "$1" ] && printf '\tpath "%s"\n' "$1"
	  echo "}"
	  printf 'workload "y" {\n\thost "d.test"\n\tcommand "/bin/true"\n\tport 2\n'
	  [ -n "$2" ] && printf '\tpath "%s"\n' "$2"
	  echo "}"; } >"$T/dup.conf"
	"$ORCHD" -n -f "$T/dup.conf" 2>&1
}
out=$(dup /api /api/)
check "orchd -n refuses /api and /api/ on one host: $out" sh -c \
    "echo \"\$1\" | grep -q 'host \"d.test\" path \"/api/\" already used by workload \"x\"'" \
    sh "$out"
out=$(dup "" "")
check "orchd -n refuses one host twice without path: $out" sh -c \
    "echo \"\$1\" | grep -q 'already used by workload \"x\"'" sh "$out"
out=$(dup "" /v1)
check "orchd -n takes a default and a path on one host: $out" sh -c \
    "echo \"\$1\" | grep -q 'configuration OK'" sh "$out"
out=$(dup /v1 /v2)
check "orchd -n takes two paths on one host: $out" sh -c \
    "echo \"\$1\" | grep -q 'configuration OK'" sh "$out"
out=$(dup x/y "")
check "orchd -n refuses a path not starting with /: $out" sh -c \
    "echo \"\$1\" | grep -q 'must be a prefix'" sh "$out"
out=$(dup "" /a/../b)
check "orchd -n refuses a path with ..: $out" sh -c \
    "echo \"\$1\" | grep -q 'must be a prefix'" sh "$out"

e2e_done
