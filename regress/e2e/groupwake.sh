#!/bin/sh
# Groups that wake together ("group wake together", runtimed/groupwake.c)
# with process workloads: a request to member a of a group that says so
# wakes its other members b and c too, though a depends on neither, one
# at a time through the admission queue ("max concurrent wakes 1"); the
# request is served once a is ready.  In a group left as the default
# (dependency-driven) a request to a2 wakes a2 and b2, which it depends
# on, and leaves c2 asleep.  The API takes "group_wake": "together" and
# the same request wakes the API group; orchd -n refuses "group wake
# together" without a group, and a word other than together or
# dependencies; orchd -nv prints it.  orchctl import compose maps the
# label org.orchd.group-wake, and refuses a bad word at its line.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports GW API PA PB PC PA2 PB2 PC2 PX PY
KEY=e2e-key-$$-0123456789abcdef
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
mkdir -p "$T/log" "$T/bin"
cp "$BUILD/regress/testhttp" "$T/bin/testhttp"
chmod 0755 "$T/bin" "$T/bin/testhttp"
for f in a b c a2 b2 c2 x y; do
	: >"$T/$f.starts"
	chmod 0666 "$T/$f.starts"
done
G=h34gw$$
wl() {	# wl NAME PORT GROUP [LINE...]
	n=$1 p=$2 g=$3
	shift 3
	printf 'workload "%s" {\n\tgroup "%s"\n' "$n" "$g"
	printf '\tcommand "%s serve %s %s"\n\tport %s\n' "$T/bin/testhttp" \
	    "$p" "$T/$n.starts" "$p"
	conf_end "$@"
}

conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
reaper interval 1s
# the group's wakes go through the admission queue as any: one at a time
max concurrent wakes 1
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
api allow process
CONF
{
	wl a "$PA" "$G-t" 'host "a.test"' 'group wake together'
	wl b "$PB" "$G-t" 'host "b.test"' 'group wake together'
	wl c "$PC" "$G-t" 'host "c.test"'
	wl a2 "$PA2" "$G-d" 'host "a2.test"' 'depends on "b2"'
	wl b2 "$PB2" "$G-d" 'host "b2.test"'
	wl c2 "$PC2" "$G-d" 'host "c2.test"' 'group wake dependencies'
} >>"$T/orchd.conf"

"$ORCHD" -nv -f "$T/orchd.conf" >"$T/nv" 2>&1
check "orchd -nv prints group wake together, not the default" sh -c "
    [ \$(grep -c 'group wake together' $T/nv) -eq 2 ] &&
    ! grep -q 'group wake dependencies' $T/nv"

# orchd -n: together without a group, a word of neither kind
sed -e '/group "'"$G"'-t"/d' "$T/orchd.conf" >"$T/bad1.conf"
"$ORCHD" -n -f "$T/bad1.conf" >"$T/out1" 2>&1
check "orchd -n refuses group wake together without a group: \
$(cat "$T/out1")" sh -c "! '$ORCHD' -n -f '$T/bad1.conf' >/dev/null 2>&1 &&
    grep -q 'no group' $T/out1"
sed -e 's/group wake together/group wake everyone/' "$T/orchd.conf" \
    >"$T/bad2.conf"
"$ORCHD" -n -f "$T/bad2.conf" >"$T/out2" 2>&1
check "orchd -n refuses group wake everyone: $(cat "$T/out2")" \
    sh -c "! '$ORCHD' -n -f '$T/bad2.conf' >/dev/null 2>&1 &&
    grep -q 'together or dependencies' $T/out2"

start_orchd_or_exit

state() {	# state NAME: its state in show workloads
	"$ORCHCTL" -s "$SOCK" show workloads | awk -v n="$1" '$1 == n {
	    print $2 }'
}
running() { [ "$(state "$1")" = running ]; }

check "all asleep at first" sh -c "[ \"\$(cat $T/*.starts)\" = '' ]"
c=$(curl -s -m 30 -o /dev/null -w '%{http_code}' -H 'Host: a.test' \
    "http://127.0.0.1:$GW/")
check "a request to a (together): 200 ($c)" [ "$c" = 200 ]
wait_for 20 running b
wait_for 20 running c
check "b and c woke with a ($(state a) $(state b) $(state c))" sh -c \
    "[ '$(state a)' = running ] && [ '$(state b)' = running ] &&
    [ '$(state c)' = running ]"
check "one start each ($(cat "$T/a.starts" "$T/b.starts" "$T/c.starts" |
    wc -l))" sh -c "[ \$(wc -l <$T/a.starts) -eq 1 ] &&
    [ \$(wc -l <$T/b.starts) -eq 1 ] && [ \$(wc -l <$T/c.starts) -eq 1 ]"
check "the other group stayed asleep" sh -c \
    "[ ! -s $T/a2.starts ] && [ ! -s $T/b2.starts ] && [ ! -s $T/c2.starts ]"

c=$(curl -s -m 30 -o /dev/null -w '%{http_code}' -H 'Host: a2.test' \
    "http://127.0.0.1:$GW/")
check "a request to a2 (dependencies): 200 ($c)" [ "$c" = 200 ]
sleep 2
check "a2 and b2 run, c2 stays asleep ($(state a2) $(state b2) \
$(state c2))" sh -c "[ '$(state a2)' = running ] &&
    [ '$(state b2)' = running ] && [ '$(state c2)' = asleep ] &&
    [ ! -s $T/c2.starts ]"

# the API: group_wake in the JSON, read back, and the same wake
post() {	# post NAME PORT JSON-MEMBERS: the status
	curl -s -m 30 -o "$T/body" -w '%{http_code}' -X POST \
	    -H "Authorization: Bearer $KEY" -d "{\"name\": \"$1\",
	    \"group\": \"$G-api\", \"port\": $2, $3
	    \"command\": \"$T/bin/testhttp serve $2 $T/$1.starts\"}" \
	    "http://127.0.0.1:$API/v1/workloads"
}
c=$(post x "$PX" '"hosts": ["x.test"], "group_wake": "together",')
check "API: a member with group_wake together ($c): $(cat "$T/body")" \
    [ "$c" = 201 ]
c=$(post y "$PY" '"hosts": ["y.test"],')
check "API: another member ($c)" [ "$c" = 201 ]
c=$(post z "$PY" '"hosts": ["z.test"], "group_wake": "everyone",')
check "API: group_wake everyone: 400 ($c): $(cat "$T/body")" \
    [ "$c" = 400 ]
check "... its exact text" grep -qxF \
    '{"error":"field \"group_wake\": must be \"dependencies\" or \"together\""}' \
    "$T/body"
# the error texts of the group routes and of a delete's volumes=
apicall() {	# apicall METHOD PATH: the status, the body in $T/body
	curl -s -m 30 -o "$T/body" -w '%{http_code}' -X "$1" \
	    -H "Authorization: Bearer $KEY" "http://127.0.0.1:$API$2"
}
c=$(apicall GET "/v1/groups/$G-nosuch")
check "API: GET of a group that does not exist: 404 ($c): $(cat "$T/body")" \
    sh -c "[ $c = 404 ] && grep -qxF '{\"error\":\"no such group: $G-nosuch\"}' \
    '$T/body'"
c=$(apicall DELETE "/v1/groups/$G-api?volumes=yes")
check "API: DELETE with volumes=yes: 400 ($c): $(cat "$T/body")" \
    sh -c "[ $c = 400 ] && grep -qxF \
    '{\"error\":\"volumes: must be true or false\"}' '$T/body'"
c=$(apicall DELETE "/v1/workloads/x?volumes=")
check "API: DELETE with volumes= empty: 400 ($c): $(cat "$T/body")" \
    sh -c "[ $c = 400 ] && grep -qxF \
    '{\"error\":\"volumes: must be true or false\"}' '$T/body'"
c=$(curl -s -m 30 -o "$T/json" -w '%{http_code}' \
    -H "Authorization: Bearer $KEY" "http://127.0.0.1:$API/v1/workloads/x")
check "API: GET returns group_wake ($c)" sh -c \
    "[ $c = 200 ] && grep -q '\"group_wake\": *\"together\"' $T/json"
c=$(curl -s -m 30 -o /dev/null -w '%{http_code}' -H 'Host: x.test' \
    "http://127.0.0.1:$GW/")
wait_for 20 running y
check "API: a request to x ($c) wakes y ($(state y))" sh -c \
    "[ $c = 200 ] && [ '$(state y)' = running ]"

# orchctl import compose: the label org.orchd.group-wake
cat >"$T/gw.yml" <<'YML'
services:
  web:
    image: orchd-test/busybox:latest
    ports:
      - "8080"
    labels:
      org.orchd.group-wake: together
  db:
    image: orchd-test/busybox:latest
    expose:
      - "5432"
YML
"$ORCHCTL" -s "$SOCK" import compose "$T/gw.yml" --project "$G-c" \
    --dry-run >"$T/gw.out" 2>&1
check "import --dry-run: org.orchd.group-wake together, web alone" sh -c \
    "sed -n '/^workload \"$G-c-web\"/,/^}/p' $T/gw.out |
    grep -q '^	group wake together\$' &&
    ! sed -n '/^workload \"$G-c-db\"/,/^}/p' $T/gw.out | grep -q 'group wake'"
sed -e 's/group-wake: together/group-wake: everyone/' "$T/gw.yml" \
    >"$T/gw2.yml"
"$ORCHCTL" -s "$SOCK" import compose "$T/gw2.yml" --project "$G-c" \
    --dry-run >"$T/gw2.out" 2>&1
st=$?
check "import: org.orchd.group-wake everyone refused at its line ($st): \
$(head -n 1 "$T/gw2.out")" sh -c "[ $st -ne 0 ] &&
    grep -q ':7:.*together or dependencies' $T/gw2.out"

stop_orchd
check "orchd exits 0 ($STATUS)" [ "$STATUS" = 0 ]
e2e_done
