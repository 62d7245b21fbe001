#!/bin/sh
# Trust rule 10 (DESIGN.md): the root parent parses no text from a child.
# A gateway taken over would otherwise hand root JSON to parse; now it
# can only hand a packed definition, which the parent bounds-checks and
# judges (regress/unit/test_apidef.c, regress/fuzz/fuzz_parent_def.c
# replay the lying ones, which cannot be sent from outside).  Here:
# - the parent has no JSON codec of definitions linked in
#   (workload_from_json, workload_to_json, json_merge_patch), and every
#   jansson function it calls is one regauth.c calls (the operator's
#   registry auth file, the one JSON root reads);
# - against a live orchd, what now goes packed still works end to end:
#   create, PUT and PATCH through the API (the merge made by the
#   gateway), a rename refused, orchctl create and show workload (whose
#   JSON orchctl writes, env values cut, dependents listed by the parent).
. "$(dirname "$0")/lib.sh"
e2e_init "$1"

# -- what is linked into the parent
syms() { nm "$1" 2>/dev/null | grep -o 'json_[a-z_]*' | sort -u; }
check "the parent links no workload JSON codec" \
    sh -c "! nm '$ORCHD' | grep -Eq ' T (workload_from_json|workload_to_json|json_merge_patch|event_json|cause_json)\$'"
extra=$(syms "$ORCHD" | grep -vxF "$(syms "$BUILD/obj/orchd/regauth.o")" |
    tr '\n' ' ')
check "the parent calls no jansson function regauth.c does not (${extra:-none})" \
    [ -z "$extra" ]

need_root
ensure_user
port_base 30
ports GW API P1 P2
KEY=e2e-rootjson-$$-0123456789abcdef
W=rj$$
mkdir -p "$T/log"
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
api allow process
CONF

URL=http://127.0.0.1:$API
apic() {	# apic METHOD PATH [BODY]: the body, then the status
	curl -s -m 30 -H "Authorization: Bearer $KEY" -w '\n%{http_code}' \
	    -X "$1" ${3:+--data-binary "$3"} "$URL$2"
}
last() { printf '%s\n' "$1" | tail -n 1; }
ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }

start_orchd_or_exit

out=$(apic POST /v1/workloads "{\"name\": \"$W\", \"hosts\": [\"$W.test\"], \"command\": \"/bin/sh -c 'sleep 60'\", \"port\": $P1, \"env\": [\"SECRET=hunter2\"]}")
check "API create: 201 ($(last "$out"))" [ "$(last "$out")" = 201 ]
out=$(apic PATCH "/v1/workloads/$W" "{\"port\": $P2, \"expire_after\": \"1h\"}")
check "PATCH, merged by the gateway: 200 ($(last "$out"))" \
    [ "$(last "$out")" = 200 ]
def=$(apic GET "/v1/workloads/$W")
check "... the port changed" sh -c "printf '%s' '$def' | grep -q '\"port\": *$P2'"
check "... the rest kept" sh -c "printf '%s' '$def' | grep -q 'SECRET'"
out=$(apic PUT "/v1/workloads/$W" "{\"name\": \"other\", \"hosts\": [\"$W.test\"], \"command\": \"/bin/true\", \"port\": $P1}")
check "PUT renaming: 400 ($(last "$out"))" [ "$(last "$out")" = 400 ]
out=$(apic PUT "/v1/workloads/$W" "{\"hosts\": [\"$W.test\"], \"command\": \"/bin/sh -c 'sleep 61'\", \"port\": $P1, \"env\": [\"SECRET=hunter2\"]}")
check "PUT: 200 ($(last "$out"))" [ "$(last "$out")" = 200 ]
out=$(apic PATCH "/v1/workloads/$W" '{"port": "eighty"}')
check "PATCH with a bad port: 400 ($(last "$out"))" [ "$(last "$out")" = 400 ]

printf '{"name": "%sd", "hosts": ["%sd.test"], "command": "/bin/true", "port": %s, "depends_on": ["%s"]}' \
    "$W" "$W" "$P2" "$W" | ctl create - >"$T/c.out" 2>&1
check "orchctl create, packed by orchctl" grep -q created "$T/c.out"
ctl -j show workload "$W" >"$T/show.out" 2>&1
check "orchctl show workload: the definition, its env value cut" \
    sh -c "grep -q '\"SECRET\"' '$T/show.out' && ! grep -q hunter2 '$T/show.out'"
check "... its dependents, from the parent" grep -q "\"${W}d\"" "$T/show.out"
check "the parent logged no failure to read a definition" \
    sh -c "! grep -q 'bad definition' '$T/orchd.log'"

stop_orchd
e2e_done
