#!/bin/sh
# The README's preview example, as written, under orchd's default API
# policy: its three curl commands (create, PATCH, DELETE), their bodies
# read out of README.md itself, against a live orchd with nothing but an
# API listener and a key, as the README sets one up.  The create must
# not be refused by the defaults (a uid of its own, loopback publish,
# no network host): 201, then 200 and the delete.  Its image is the
# README's, which no registry here has, so nothing is woken: what is
# checked is that the example passes the policy, not Docker.
# Loopback only, every wait bounded.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
top=$(cd "$(dirname "$0")/../.." && pwd)

ports GW API
KEY=e2e-readme-$$-0123456789abcdef
mkdir -p "$T/log"
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
CONF

# readme_body METHOD: the -d '...' of the README's curl with -X METHOD
# (none: the create), one line
readme_body() {
	awk -v m="$1" '
	/curl -H "Authorization: Bearer \$KEY"/ { c = 1; x = ""; b = "" }
	c && /-X [A-Z]+/ { match($0, /-X [A-Z]+/); x = substr($0, RSTART + 3, RLENGTH - 3) }
	c && /-d '\''/ { d = 1; sub(/.*-d '\''/, "") }
	c && d { s = $0; e = index(s, "'\''"); if (e) { b = b substr(s, 1, e - 1); d = 0 } else b = b s " " }
	c && /http:\/\/127\.0\.0\.1:8081/ { if (x == m && b != "") { print b; exit } c = 0 }
	' "$top/README.md"
}
create=$(readme_body "")
patch=$(readme_body PATCH)
check "the README has its create body ($create)" [ -n "$create" ]
check "the README has its PATCH body ($patch)" [ -n "$patch" ]
grep -q 'http://127.0.0.1:8081/v1/workloads/pr-42' "$top/README.md"
check "the README's commands name pr-42" [ $? -eq 0 ]

start_orchd_or_exit
URL=http://127.0.0.1:$API
api() {	# api METHOD PATH [BODY]: the status alone
	curl -s -m 30 -o "$T/body" -w '%{http_code}' \
	    -H "Authorization: Bearer $KEY" -X "$1" \
	    ${3:+--data-binary "$3"} "$URL$2"
}
st=$(api POST /v1/workloads "$create")
check "the README's create: 201 under the default policy ($st: $(cat "$T/body"))" \
    [ "$st" = 201 ]
st=$(api PATCH /v1/workloads/pr-42 "$patch")
check "the README's PATCH: 200 ($st: $(cat "$T/body"))" [ "$st" = 200 ]
st=$(api GET /v1/workloads/pr-42)
check "... its image is the PATCH's" \
    grep -q '"registry.example.com/app:pr-42-2"' "$T/body"
check "... and no uid of its own is shown (the parent's to give)" \
    sh -c '! grep -q run_uid "$1"' sh "$T/body"
st=$(api DELETE /v1/workloads/pr-42)
check "the README's DELETE: 2xx ($st)" sh -c "[ '$st' -ge 200 ] && [ '$st' -lt 300 ]"
st=$(api GET /v1/workloads/pr-42)
check "... then it is gone ($st)" [ "$st" = 404 ]

stop_orchd
check "orchd exits cleanly" [ "$STATUS" -eq 0 ]
e2e_done
