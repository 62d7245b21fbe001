#!/bin/sh
# orchctl import compose (issue 34) against a live orchd: the Compose
# files of regress/compose/ are checked first by docker-compose config
# (valid Compose, not a dialect), then
#  - stack.yml (web, PostgreSQL, Redis, a migration): --dry-run prints
#    workloads in orchd.conf syntax that orchd -n takes, the database
#    with its TCP listener where the file maps its port;
#  - paths.yml (a frontend and an API on one host, by path): the same
#    where orchd routes by path, else each org.orchd.path refused at its
#    line;
#  - live.yml (busybox stand-ins; realstack.sh runs PostgreSQL and Redis
#    themselves) is imported: four workloads of one group, a request
#    to web wakes the database, the migration and the cache first and
#    answers with what they serve; show groups has one line for the
#    project (and -j its JSON); the group suspended and woken keeps the database's row in
#    its named volume; the same file again changes nothing; a second
#    import with a changed environment updates web alone, in place; delete --project
#    removes it all; the API's group operations (POST
#    /v1/groups/G/wake, suspend, keepwarm; DELETE /v1/groups/G) act on
#    each member in turn;
#  - the README's "From a compose file" example, run as written.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
need_docker
ensure_user

SRC=$(cd "$(dirname "$0")/../.." && pwd)
P=h34c$$
port_base 17
ports GW API P_WEB P_DB P_MIG P_CACHE
KEY=e2e-compose-$$-0123456789abcdef
S=$(mktemp -d /tmp/h34imp-vol.XXXXXX)
chmod 0755 "$S"
mkdir -m 0755 "$S/root"

compose_cleanup() {
	if [ -n "$ORCHD_PID" ] && kill -0 "$ORCHD_PID" 2>/dev/null; then
		kill -TERM "$ORCHD_PID" 2>/dev/null
		wait_gone "$ORCHD_PID" 15
	fi
	for n in web db cache migrate; do
		docker rm -f "$(cname "$P-$n")" >/dev/null 2>&1
	done
	rm -rf "$S"
	e2e_cleanup
}
trap compose_cleanup EXIT

ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
get() {	# get HOST: the body, then the status on a line of its own
	curl -s -m 60 -H "Host: $1" -w '\n%{http_code}' \
	    "http://127.0.0.1:$GW/"
}
# the live stack with this run's ports
mkdir -p "$T/app"
sed -e "s/28001/$P_WEB/g" -e "s/28002/$P_DB/g" -e "s/28003/$P_MIG/g" \
    -e "s/28004/$P_CACHE/g" "$SRC/regress/compose/live.yml" \
    >"$T/app/docker-compose.yml"

if command -v docker-compose >/dev/null 2>&1; then
	for f in "$SRC/regress/compose/stack.yml" \
	    "$SRC/regress/compose/paths.yml" "$T/app/docker-compose.yml"; do
		check "docker-compose config takes $(basename "$f")" \
		    quiet docker-compose -f "$f" config
	done
else
	fail "docker-compose is installed (tools/deps.sh test)"
fi

# stack.yml: the real images, as orchd.conf
{
	echo "listen on 127.0.0.1 port $GW"
	ctl import compose "$SRC/regress/compose/stack.yml" --project shop \
	    --host-suffix pr-42.preview.example.com --dry-run 2>"$T/dry.err"
} >"$T/dry.conf"
check "stack.yml --dry-run: orchd -n takes its workloads" \
    quiet "$ORCHD" -n -f "$T/dry.conf"
check "stack.yml --dry-run: a database whose port the file maps gets its TCP listener, no host" \
    sh -c "sed -n '/^workload \"shop-db\"/,/^}/p' '$T/dry.conf' |
    grep -qF 'listen on \"127.0.0.1\" port 5432' &&
    ! sed -n '/^workload \"shop-db\"/,/^}/p' '$T/dry.conf' | grep -q host"
awk '/^## From a compose file/ { on = 1 } on && /^```yaml/ { y = 1; next }
    y && /^```/ { exit } y' "$SRC/README.md" >"$T/readme-dry.yml"
"$ORCHCTL" import compose "$T/readme-dry.yml" --project pr-42 --dry-run \
    >"$T/readme-dry.conf" 2>/dev/null
check "the README's database, its port not mapped, gets an internal host, refused to every client" \
    sh -c "grep -A1 'host \"db.pr-42.internal\"' '$T/readme-dry.conf' |
    grep -q 'deny from all'"
check "stack.yml --dry-run: the migration is a job, with no host" \
    sh -c "sed -n '/^workload \"shop-migrate\"/,/^}/p' '$T/dry.conf' | grep -q '^	run once\$' &&
    ! sed -n '/^workload \"shop-migrate\"/,/^}/p' '$T/dry.conf' | grep -q host"
check "stack.yml --dry-run: four workloads, web with its host" \
    sh -c "[ \$(grep -c '^workload ' '$T/dry.conf') = 4 ] &&
    grep -q 'host \"web.pr-42.preview.example.com\"' '$T/dry.conf'"
check "stack.yml --dry-run: dependencies first, web last" \
    sh -c "grep '^workload ' '$T/dry.conf' | tail -n 1 |
    grep -q shop-web"
check "stack.yml --dry-run: PostgreSQL's entrypoint" \
    grep -qF "entrypoint \"'docker-entrypoint.sh'\"" "$T/dry.conf"
check "stack.yml --dry-run: each of the group shop" \
    [ "$(grep -c 'group "shop"' "$T/dry.conf")" = 4 ]
check "stack.yml --dry-run: PostgreSQL's mapped port named as a TCP listener" \
    grep -qF 'listen on "127.0.0.1" port 5432' "$T/dry.conf"

# paths.yml: one host, two workloads by path, where orchd routes by
# path (issue 34's path); else each label refused at its line
{
	echo "listen on 127.0.0.1 port $GW"
	ctl import compose "$SRC/regress/compose/paths.yml" --project pr-7 \
	    --dry-run 2>"$T/paths.err"
} >"$T/paths.conf"
if grep -q 'this orchd has no path routing' "$T/paths.err"; then
	check "paths.yml: without path routing, each org.orchd.path refused at its line" \
	    sh -c "grep -q 'paths.yml:12: services.frontend.labels.org.orchd.path' '$T/paths.err' &&
	    grep -q 'paths.yml:19: services.api.labels.org.orchd.path' '$T/paths.err'"
else
	check "paths.yml --dry-run: orchd -n takes one host routed by path" \
	    sh -c "'$ORCHD' -n -f '$T/paths.conf' >/dev/null 2>&1 &&
	    [ \$(grep -c 'app.pr-7.preview.example.com' '$T/paths.conf') = 2 ]"
fi

printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
mkdir -p "$T/log"
{
	conf_head
	cat <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
api allow image "orchd-test/*"
api allow volume "$S/root"
# Docker runs without a bridge here
api allow network host
wake timeout 60s
CONF
} >"$T/orchd.conf"
start_orchd_or_exit

out=$(ctl import compose "$T/app/docker-compose.yml" --project "$P" \
    --host-suffix "$P.test" 2>&1)
check "import: four workloads created ($out)" \
    [ "$(printf '%s\n' "$out" | grep -c ' created$')" = 4 ]
check "import: a workload per service, PROJECT-SERVICE" \
    sh -c "'$ORCHCTL' -s '$SOCK' show workloads | grep -c '^$P-' |
    grep -qx 4"
out=$(ctl import compose "$T/app/docker-compose.yml" --project "$P" \
    --host-suffix "$P.test" 2>&1)
check "the same file imported again: those without env unchanged, web (env) sent again ($out)" \
    sh -c "[ \$(printf '%s\n' \"\$1\" | grep -c ' unchanged\$') = 3 ] &&
    printf '%s\n' \"\$1\" | grep -qx '$P-web updated'" _ "$out"
out=$(ctl show groups 2>&1)
check "show groups: one line for the project, four members ($out)" \
    sh -c "printf '%s\n' \"\$1\" | grep -Eq '^$P +4 '" _ "$out"

out=$(ctl -j show groups 2>&1)
check "show groups -j: the project with its four members ($out)" \
    python3 -c "import json, sys
g = [x for x in json.loads(sys.argv[1]) if x['group'] == '$P']
sys.exit(not (len(g) == 1 and len(g[0]['members']) == 4 and
    all(m['name'].startswith('$P-') for m in g[0]['members'])))" "$out"

out=$(get "web.$P.test")
check "a request to web: 200 with what the database serves ($out)" \
    sh -c "printf '%s' \"\$1\" | tail -n 1 | grep -qx 200 &&
    printf '%s' \"\$1\" | grep -q '^row-'" _ "$out"
check "... after the migration ran once, as a job, and wrote its table" \
    grep -qx table-created "$S/root/$E2E_INSTANCE/$P-migrate/migrations/table"
check "... and went back to sleep" sh -c \
    "'$ORCHCTL' -s '$SOCK' show workloads | grep -q '^$P-migrate *asleep'"
row=$(printf '%s\n' "$out" | grep '^row-')
check "group suspend" quiet ctl group "$P" suspend
check "every member asleep after it" \
    sh -c "! '$ORCHCTL' -s '$SOCK' show workloads | grep '^$P-' |
    grep -q running"
out=$(get "web.$P.test")
check "woken again: the database's row kept in its named volume" \
    sh -c "printf '%s' \"\$1\" | grep -qx '$row'" _ "$out"

# the API's group operations, each member in turn
api() {	# api METHOD PATH [BODY]: the body, then the status on a line
	curl -s -m 120 -H "Authorization: Bearer $KEY" -w '\n%{http_code}' \
	    -X "$1" ${3:+--data-binary "$3"} "http://127.0.0.1:$API$2"
}
out=$(api POST "/v1/groups/$P/suspend")
check "API: POST /v1/groups/P/suspend: 200, four members ok ($out)" \
    sh -c "printf '%s' \"\$1\" | tail -n 1 | grep -qx 200 &&
    [ \$(printf '%s' \"\$1\" | grep -o '\"result\":\"ok\"' | wc -l) = 4 ]" \
    _ "$out"
out=$(api POST "/v1/groups/$P/wake")
check "API: POST /v1/groups/P/wake: 200, web woken last ($out)" \
    sh -c "printf '%s' \"\$1\" | tail -n 1 | grep -qx 200 &&
    printf '%s' \"\$1\" | head -n 1 | grep -q '$P-web\",\"result\":\"ok\"}\]'" \
    _ "$out"
check "API: every member running after the group's wake, the job done" \
    sh -c "[ \$('$ORCHCTL' -s '$SOCK' show workloads | grep '^$P-' |
    grep -c running) = 3 ]"
out=$(api POST "/v1/groups/$P/keepwarm" '{"enabled": false}')
check "API: POST /v1/groups/P/keepwarm with its body: 200 ($out)" \
    sh -c "printf '%s' \"\$1\" | tail -n 1 | grep -qx 200" _ "$out"
out=$(api POST "/v1/groups/nosuch$$/wake")
check "API: a group without members: 404" \
    sh -c "printf '%s' \"\$1\" | tail -n 1 | grep -qx 404" _ "$out"
out=$(api GET "/v1/groups/$P/wake")
check "API: GET of a group's action: 405" \
    sh -c "printf '%s' \"\$1\" | tail -n 1 | grep -qx 405" _ "$out"
out=$(curl -s -m 10 -o /dev/null -w '%{http_code}' -X POST \
    "http://127.0.0.1:$API/v1/groups/$P/suspend")
check "API: a group's operation without the key: 401 ($out)" [ "$out" = 401 ]

cid() { docker inspect --format '{{.Id}}' "$(cname "$P-$1")" 2>/dev/null; }
db_id=$(cid db)
sed -i "s/STAGE: one/STAGE: two/" "$T/app/docker-compose.yml"
out=$(ctl import compose "$T/app/docker-compose.yml" --project "$P" \
    --host-suffix "$P.test" 2>&1)
check "a second import updates web alone in place, the same names ($out)" \
    sh -c "printf '%s\n' \"\$1\" | grep -qx '$P-web updated' &&
    [ \$(printf '%s\n' \"\$1\" | grep -c ' unchanged\$') = 3 ]" _ "$out"
quiet ctl suspend "$P-web"
out=$(get "web.$P.test")
check "web, woken again, runs with its new environment" \
    sh -c "docker inspect --format '{{.Config.Env}}' \
    '$(cname "$P-web")' | grep -q STAGE=two"
check "the database, unchanged, was not replaced (its container kept)" \
    [ -n "$db_id" -a "$(cid db)" = "$db_id" ]

out=$(ctl group "$P" keep 2>&1)
check "group keep: each member never expires ($out)" \
    [ "$(printf '%s\n' "$out" | grep -c ': done$')" = 4 ]
out=$(ctl group "$P" keepwarm on 2>&1)
check "group keepwarm on: each member ($out)" \
    [ "$(printf '%s\n' "$out" | grep -c ': done$')" = 4 ]
quiet ctl group "$P" keepwarm off

out=$(ctl delete --project "$P" 2>&1)
check "delete --project removes the four ($out)" \
    [ "$(printf '%s\n' "$out" | grep -c ': deleted$')" = 4 ]
check "none left" \
    sh -c "! '$ORCHCTL' -s '$SOCK' show workloads | grep -q '^$P-'"

# DELETE /v1/groups/G: the project made again, deleted through the API
P2=${P}b
out=$(ctl import compose "$T/app/docker-compose.yml" --project "$P2" 2>&1)
check "imported again as another project ($out)" \
    [ "$(printf '%s\n' "$out" | grep -c ' created$')" = 4 ]
out=$(api DELETE "/v1/groups/$P2")
check "API: DELETE /v1/groups/G: 200, each member deleted ($out)" \
    sh -c "printf '%s' \"\$1\" | tail -n 1 | grep -qx 200 &&
    [ \$(printf '%s' \"\$1\" | grep -o '\"result\":\"ok\"' | wc -l) = 4 ]" \
    _ "$out"
check "none of it left" \
    sh -c "! '$ORCHCTL' -s '$SOCK' show workloads | grep -q '^$P2-'"
for n in web db cache migrate; do
	docker rm -f "$(cname "$P2-$n")" >/dev/null 2>&1
done

# the README's example, as written
awk '/^## From a compose file/ { on = 1 } on && /^```yaml/ { y = 1; next }
    y && /^```/ { exit } y' "$SRC/README.md" >"$T/app/readme.yml"
cmd=$(awk '/^## From a compose file/ { on = 1 }
    on && /^\$ orchctl import/ { sub(/^\$ /, ""); print; exit }' \
    "$SRC/README.md")
check "the README has its example" [ -s "$T/app/readme.yml" -a -n "$cmd" ]
out=$(cd "$T/app" && cp readme.yml docker-compose.yml &&
    eval "\"$ORCHCTL\" -s \"$SOCK\" ${cmd#orchctl }" 2>&1)
check "the README's example runs as written ($out)" \
    sh -c "printf '%s\n' \"\$1\" | grep -q '^workload \"'" _ "$out"

e2e_done
