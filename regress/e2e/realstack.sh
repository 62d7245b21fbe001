#!/bin/sh
# orchctl import compose with a real stack (issue 34, "Tests with real
# parts"): regress/compose/realstack.yml, a web application on
# PostgreSQL 15 and Redis 7 with its migration, built into local images
# from the host's Debian packages (regress/docker-image-pg.sh), is
# checked by docker-compose config, imported into a live orchd, and
# run:
#  - a request to web wakes the database and the cache, runs the
#    migration once, a job, which creates the table, and answers with
#    its row from PostgreSQL and a count from Redis; PostgreSQL's data,
#    initdb'd at its first start, is in its named volume, owned by the
#    uid orchd runs it as; a note added through the application is
#    stored;
#  - the cache answers redis-cli PING through its TCP listener;
#  - all go to sleep by their idle timeouts, and wake again with the
#    note kept in the database's named volume, the migration not run
#    again;
#  - a second import with web's image changed replaces web alone: the
#    others keep their containers;
#  - delete --project --volumes removes it all, the volume too.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
need_docker
ensure_user

SRC=$(cd "$(dirname "$0")/../.." && pwd)
sh "$SRC/regress/docker-image-pg.sh" ||
    skip "cannot make the real stack's images (regress/docker-image-pg.sh)"
docker tag orchd-test/pgapp:1 orchd-test/pgapp:2 ||
    skip "cannot tag orchd-test/pgapp:2"
P=h34rs$$
port_base 23
ports GW API P_WEB P_DB P_DBL P_CACHE P_CACHEL
KEY=e2e-realstack-$$-0123456789abcdef
S=$(mktemp -d /tmp/h34rs-vol.XXXXXX)
chmod 0755 "$S"
mkdir -m 0755 "$S/root"

rs_cleanup() {
	if [ -n "$ORCHD_PID" ] && kill -0 "$ORCHD_PID" 2>/dev/null; then
		kill -TERM "$ORCHD_PID" 2>/dev/null
		wait_gone "$ORCHD_PID" 20
	fi
	for n in web db cache migrate; do
		docker rm -f "$(cname "$P-$n")" >/dev/null 2>&1
	done
	rm -rf "$S"
	e2e_cleanup
}
trap rs_cleanup EXIT

ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
get() {	# get QUERY: the application's body, then the status on a line
	curl -s -m 90 -H "Host: web.$P.test" -w '\n%{http_code}' \
	    "http://127.0.0.1:$GW/cgi-bin/app$1"
}
cid() { docker inspect --format '{{.Id}}' "$(cname "$P-$1")" 2>/dev/null; }
state() {	# state NAME STATE: show workloads says so
	ctl show workloads | grep -Eq "^$P-$1 +$2 "
}
all_asleep() {
	! ctl show workloads | grep "^$P-" | grep -qv ' asleep '
}
runs() {	# runs NAME: how many runs its history shows
	ctl show history "$P-$1" | grep -c 'job done'
}

mkdir -p "$T/app"
sed -e "s/28101/$P_WEB/g" -e "s/28102/$P_DB/g" -e "s/28103/$P_DBL/g" \
    -e "s/28104/$P_CACHE/g" -e "s/28105/$P_CACHEL/g" \
    "$SRC/regress/compose/realstack.yml" >"$T/app/docker-compose.yml"
if command -v docker-compose >/dev/null 2>&1; then
	check "docker-compose config takes realstack.yml" \
	    quiet docker-compose -f "$SRC/regress/compose/realstack.yml" config
	check "... and the copy with this run's ports" \
	    quiet docker-compose -f "$T/app/docker-compose.yml" config
else
	echo "# no docker-compose here: its check left out (tools/deps.sh test)"
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
reaper interval 1s
CONF
} >"$T/orchd.conf"
start_orchd_or_exit

imp() {
	ctl import compose "$T/app/docker-compose.yml" --project "$P" \
	    --host-suffix "$P.test" 2>&1
}
out=$(imp)
check "import: four workloads created ($out)" \
    [ "$(printf '%s\n' "$out" | grep -c ' created$')" = 4 ]
check "... all asleep, the database's and the cache's listeners bound" \
    sh -c "'$ORCHCTL' -s '$SOCK' show workloads | grep '^$P-' |
    grep -c ' asleep ' | grep -qx 4 &&
    ss -Hltnp 'sport = :$P_DBL' | grep -q orchd &&
    ss -Hltnp 'sport = :$P_CACHEL' | grep -q orchd"

out=$(get "")
check "a request to web: 200, the migration's row from PostgreSQL, a count from Redis ($out)" \
    sh -c "printf '%s' \"\$1\" | tail -n 1 | grep -qx 200 &&
    printf '%s' \"\$1\" | grep -qx 'note: migrated' &&
    printf '%s' \"\$1\" | grep -qx 'hits: 1'" _ "$out"
check "... the migration ran once, a job, and is asleep" \
    sh -c "[ \$('$ORCHCTL' -s '$SOCK' show history '$P-migrate' |
    grep -c 'job done') = 1 ] &&
    '$ORCHCTL' -s '$SOCK' show workloads | grep -Eq '^$P-migrate +asleep '"
check "... PostgreSQL's data in the named volume" \
    test -s "$S/root/$E2E_INSTANCE/$P-db/pgdata/data/PG_VERSION"
u=$(stat -c %u "$S/root/$E2E_INSTANCE/$P-db/pgdata/data" 2>/dev/null)
check "... owned by the uid orchd runs PostgreSQL as, one of its workload uids, not root ($u)" \
    sh -c "[ -n '$u' ] && [ '$u' -ge $E2E_UID_LOW ] &&
    [ '$u' -le $E2E_UID_HIGH ] && [ \"\$(docker inspect --format \
    '{{.Config.User}}' '$(cname "$P-db")')\" = '$u:$u' ]"
out=$(get "?add=kept-$$")
check "a note added through the application ($out)" \
    sh -c "printf '%s' \"\$1\" | grep -qx 'note: kept-$$' &&
    printf '%s' \"\$1\" | grep -qx 'hits: 2'" _ "$out"
out=$(get "?add=bad%27%3B")
check "... a note it refuses is not stored ($out)" \
    sh -c "printf '%s' \"\$1\" | grep -q '^error: a note is'" _ "$out"
if command -v redis-cli >/dev/null 2>&1; then
	out=$(timeout 30 redis-cli -h 127.0.0.1 -p "$P_CACHEL" PING 2>&1)
	check "redis-cli PING through the cache's TCP listener ($out)" \
	    [ "$out" = PONG ]
fi

ids="$(cid db) $(cid cache) $(cid migrate)"
check "all asleep after their idle timeouts" wait_for 60 all_asleep
check "... the database's container stopped" sh -c "[ \"\$(docker inspect \
    --format '{{.State.Running}}' '$(cname "$P-db")')\" = false ]"
check "... the note on the volume's disk, written by PostgreSQL's shutdown checkpoint" \
    grep -rqa "kept-$$" "$S/root/$E2E_INSTANCE/$P-db/pgdata/data/base"
out=$(get "")
check "woken again: the note kept in the named volume ($out)" \
    sh -c "printf '%s' \"\$1\" | tail -n 1 | grep -qx 200 &&
    printf '%s' \"\$1\" | grep -qx 'note: kept-$$'" _ "$out"
check "... the migration not run again: one run, one row" \
    sh -c "[ \$('$ORCHCTL' -s '$SOCK' show history '$P-migrate' |
    grep -c 'job done') = 1 ] &&
    [ \$(printf '%s' \"\$1\" | grep -c '^note: migrated\$') = 1 ]" _ "$out"

# the second import: web's image changed, the migration's (the same
# image under its first tag) not
sed -i "0,/image: orchd-test\/pgapp:1/s//image: orchd-test\/pgapp:2/" \
    "$T/app/docker-compose.yml"
web_id=$(cid web)
out=$(imp)
check "a second import, web's image changed: web updated; the cache and the migration unchanged ($out)" \
    sh -c "printf '%s\n' \"\$1\" | grep -qx '$P-web updated' &&
    printf '%s\n' \"\$1\" | grep -qx '$P-cache unchanged' &&
    printf '%s\n' \"\$1\" | grep -qx '$P-migrate unchanged'" _ "$out"
# web runs on with its former definition until its next wake
quiet ctl suspend "$P-web"
out=$(get "")
check "... web, woken, answers from its new image with the data kept ($out)" \
    sh -c "printf '%s' \"\$1\" | grep -qx 'note: kept-$$' &&
    [ \"\$(docker inspect --format '{{.Config.Image}}' \
    '$(cname "$P-web")')\" = orchd-test/pgapp:2 ]" _ "$out"
check "... web's container replaced" [ -n "$web_id" -a "$(cid web)" != "$web_id" ]
check "... the database's (sent again for its env), the cache's and the migration's kept" \
    [ "$(cid db) $(cid cache) $(cid migrate)" = "$ids" ]
check "... the migration not run again" [ "$(runs migrate)" = 1 ]
check "... orchd found web's definition changed, and only web's" \
    sh -c "grep -q 'workload $P-web: runs with an older definition' \
    '$T/orchd.log' && ! grep -Eq \
    'workload $P-(db|cache|migrate): runs with an older definition' \
    '$T/orchd.log'"

out=$(ctl delete --project "$P" --volumes 2>&1)
check "delete --project --volumes removes the four ($out)" \
    [ "$(printf '%s\n' "$out" | grep -c ': deleted$')" = 4 ]
check "... none left" sh -c "! '$ORCHCTL' -s '$SOCK' show workloads |
    grep -q '^$P-'"
check "... their containers removed" wait_for 30 sh -c \
    "! docker ps -a --format '{{.Names}}' | grep -q '^orchd-$E2E_INSTANCE-$P-'"
check "... the database's volume removed" \
    [ ! -e "$S/root/$E2E_INSTANCE/$P-db" ]
check "... and the listeners closed" wait_for 10 sh -c \
    "! ss -Hltn 'sport = :$P_DBL' | grep -q . &&
    ! ss -Hltn 'sport = :$P_CACHEL' | grep -q ."

stop_orchd
check "orchd exits 0 ($STATUS)" [ "$STATUS" = 0 ]
e2e_done
