#!/bin/sh
# The gateway's definitions kept small (gatewayd/wldef.c, issue 38): of
# 2,000 workloads, those without a gate, a path, error pages, ignores or
# schedules are kept in their small form and read back when the API asks.
# Every field the configuration gives comes back through the API as
# orchd.conf said it, for a sample of them, before and after a reload
# that changes one; a group's members are found among them; a PATCH of a
# workload the API made works (its base, a hash of the definition's
# bytes, is the one the parent holds: a definition read back wrong is
# refused); the settings the request path reads of every workload
# (redirect https) still act; a gated one, kept in full, still gates.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports GW API
N=2000
KEY=e2e-key-$$-wldef0123456789ab
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"

# write_conf IDLE: N workloads, the 7th's idle timeout IDLE seconds
write_conf() {
	conf_head >"$T/orchd.conf"
	cat >>"$T/orchd.conf" <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api host "api.test"
api key file "$T/api.key"
api allow process

workload "gated" {
	host "gated.wldef"
	command "/bin/sleep 1000"
	port 9
	deny from 127.0.0.0/8
}
CONF
	awk -v n="$N" -v idle7="$1" 'BEGIN {
		for (i = 1; i <= n; i++) {
			printf "workload \"w%d\" {\n\thost \"w%d.wldef\"\n", i, i
			printf "\thost \"alias%d.wldef\"\n", i
			printf "\tcommand \"/bin/sleep %d\"\n", 1000 + i
			printf "\taddress \"127.0.9.1\"\n\tport %d\n", 20000 + i
			printf "\tidle timeout %ds\n", i == 7 ? idle7 : 60 + i
			printf "\twake timeout %ds\n", 5 + i % 50
			printf "\tenv \"N=%d\"\n\tenv \"M=x%d\"\n", i, i
			printf "\tgroup \"g%d\"\n", i % 5
			if (i % 3 == 0)
				printf "\tredirect https\n"
			if (i % 4 == 0)
				printf "\tupstream h2c\n"
			printf "}\n"
		}
	}' >>"$T/orchd.conf"
}
write_conf 67

URL=http://127.0.0.1:$API
api() {
	curl -sS -m 30 -H "Authorization: Bearer $KEY" "$@"
}
code() {
	curl -s -m 30 -o /dev/null -w '%{http_code}' "$@"
}

# same I IDLE: the API's definition of wI is what orchd.conf said
same() {
	api "$URL/v1/workloads/w$1" >"$T/w$1.json" || return 1
	python3 - "$1" "$2" "$T/w$1.json" <<'PY'
import json, sys
i, idle, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
o = json.load(open(path))
want = {
	"name": "w%d" % i,
	"hosts": ["w%d.wldef" % i, "alias%d.wldef" % i],
	"command": "/bin/sleep %d" % (1000 + i),
	"port": 20000 + i,
	"idle_timeout": idle,
	"wake_timeout": 5 + i % 50,
	"env": ["N=%d" % i, "M=x%d" % i],
	"group": "g%d" % (i % 5),
}
bad = [k for k in want if o.get(k) != want[k]]
if (o.get("redirect_https") in (True, 1)) != (i % 3 == 0):
	bad.append("redirect_https")
if (o.get("upstream") == "h2c") != (i % 4 == 0):
	bad.append("upstream")
if bad:
	print("w%d: %s" % (i, ", ".join("%s=%r" % (k, o.get(k)) for k in bad)))
	sys.exit(1)
PY
}

start_orchd_or_exit
for i in 1 3 4 7 12 999 1000 1999 2000; do
	idle=$((60 + i))
	[ "$i" = 7 ] && idle=67
	check "w$i read back as orchd.conf said it" same "$i" "$idle"
done
check "the list pages through all $((N + 1))" sh -c "
	n=0; after=; while :; do
		curl -sS -m 30 -H 'Authorization: Bearer $KEY' \
		    '$URL/v1/workloads?limit=100&after='\$after >'$T/page.json' ||
		    exit 1
		k=\$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))[\"workloads\"]))' '$T/page.json')
		[ \"\$k\" -gt 0 ] || break
		n=\$((n + k))
		after=\$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[\"workloads\"][-1][\"name\"])' '$T/page.json')
		[ \$n -le $((N + 1)) ] || break
	done
	[ \$n -eq $((N + 1)) ]"
check "group g3 has its $((N / 5)) members" sh -c "
	curl -sS -m 30 -H 'Authorization: Bearer $KEY' '$URL/v1/groups/g3' |
	python3 -c 'import json,sys
m = json.load(sys.stdin)[\"members\"]
want = sorted(\"w%d\" % i for i in range(1, $N + 1) if i % 5 == 3)
sys.exit(sorted(m) != want)'"
# the request path: a redirect of w3's plain HTTP, none of w1's
check "w3 (redirect https): 308" sh -c "[ \"\$(curl -s -m 10 -o /dev/null \
    -w '%{http_code}' -H 'Host: w3.wldef' http://127.0.0.1:$GW/)\" = 308 ]"
check "w1 (no redirect): not 308" sh -c "[ \"\$(curl -s -m 20 -o /dev/null \
    -w '%{http_code}' -H 'Host: w1.wldef' http://127.0.0.1:$GW/)\" != 308 ]"
check "gated (kept in full): 403" sh -c "[ \"\$(curl -s -m 10 -o /dev/null \
    -w '%{http_code}' -H 'Host: gated.wldef' http://127.0.0.1:$GW/)\" = 403 ]"

# a reload that changes w7: w7 new, the others as they were
write_conf 777
kill -HUP "$ORCHD_PID"
check "the reload is applied" wait_for 30 same 7 777
for i in 6 8 2000; do
	check "w$i unchanged by the reload" same "$i" $((60 + i))
done

# a workload the API made: PATCH against the base the parent holds
apic() {	# apic METHOD PATH BODY: the status alone
	curl -s -m 30 -o "$T/apic.out" -w '%{http_code}' \
	    -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \
	    -X "$1" -d "$3" "$URL$2"
}
out=$(apic POST /v1/workloads '{"name": "api1", "hosts": ["api1.wldef"],
    "command": "/bin/sleep 5", "address": "127.0.9.2", "port": 19999, "description": "one",
    "env": ["A=1"]}')
check "POST api1: 201 ($out)" [ "$out" = 201 ]
out=$(apic PATCH /v1/workloads/api1 '{"description": "two"}')
check "PATCH api1: 200 ($out $(head -c 200 "$T/apic.out"))" [ "$out" = 200 ]
check "api1 reads back patched, the rest kept" sh -c "
	curl -sS -m 30 -H 'Authorization: Bearer $KEY' $URL/v1/workloads/api1 |
	python3 -c 'import json,sys
o = json.load(sys.stdin)
sys.exit(not (o.get(\"description\") == \"two\" and
    o[\"env\"] == [\"A=1\"] and o[\"port\"] == 19999 and
    o[\"hosts\"] == [\"api1.wldef\"]))'"

stop_orchd
check "orchd exits 0" [ "$STATUS" = 0 ]
e2e_done
