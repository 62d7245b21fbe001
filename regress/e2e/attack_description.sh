#!/bin/sh
# The API's "description" field, a line of text for people that orchctl
# prints to a terminal: an attacker with the key tries a terminal escape,
# a newline, invalid UTF-8, an empty one and one past 256 bytes (each 400,
# nothing created), then a fair one is kept and shown as it was given.
# Loopback only, every wait bounded.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root

ports GW API
KEY=e2e-desc-$$-0123456789abcdef
mkdir -p "$T/log"
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
CONF
start_orchd_or_exit
URL=http://127.0.0.1:$API

post() {	# post DESCRIPTION-JSON: the status alone
	printf '{"name": "d", "hosts": ["d.test"], "driver": "docker", "image": "x:1", "port": 8080, "description": %s}' "$1" >"$T/body"
	curl -s -m 30 -o "$T/out" -w '%{http_code}' \
	    -H "Authorization: Bearer $KEY" --data-binary "@$T/body" \
	    "$URL/v1/workloads"
}
long=$(head -c 257 /dev/zero | tr '\0' 'a')
for d in '"\u001b]0;owned\u0007"' '"two\nlines"' '"\u0000"' '""' \
    "\"$long\""; do
	st=$(post "$d")
	check "description case $((i = ${i:-0} + 1)): 400 ($st: $(cat "$T/out"))" \
	    [ "$st" = 400 ]
done
printf '\xff\xfe' >"$T/bad"
printf '{"name": "d", "hosts": ["d.test"], "driver": "docker", "image": "x:1", "port": 8080, "description": "%s"}' "$(cat "$T/bad")" >"$T/body"
st=$(curl -s -m 30 -o "$T/out" -w '%{http_code}' \
    -H "Authorization: Bearer $KEY" --data-binary "@$T/body" \
    "$URL/v1/workloads")
check "description of invalid UTF-8: 400 ($st)" [ "$st" = 400 ]
st=$(curl -s -m 10 -o /dev/null -w '%{http_code}' \
    -H "Authorization: Bearer $KEY" "$URL/v1/workloads/d")
check "... none of them was created ($st)" [ "$st" = 404 ]
st=$(post '"preview of PR 42, review app"')
check "a fair description: 201 ($st)" [ "$st" = 201 ]
"$ORCHCTL" -s "$SOCK" show workload d >"$T/show" 2>&1
check "... orchctl show workload prints it as given" \
    grep -q 'description: *preview of PR 42, review app' "$T/show"
stop_orchd
check "orchd exits cleanly" [ "$STATUS" -eq 0 ]
e2e_done
