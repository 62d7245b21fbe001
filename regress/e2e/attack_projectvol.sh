#!/bin/sh
# delete --project NAME --volumes (spawnerd/volrm.c), and the API's DELETE
# /v1/groups/NAME?volumes=true, with API docker workloads of the busybox
# test image, each with an API volume "data" it writes a file into:
#
#   P-web      of project P, which also plants in its volume a link to a
#              directory of the host's ($OUT) and a link to /;
#   Px-web     of project Px (P and a suffix: a prefix match would take
#              it);
#   P-web-db   of project P-web (a name that P's member begins);
#   P          a workload of no project, named P itself.
#
# Attacks, each must remove nothing of another's: a project named by a
# glob (P*, P?web) through orchctl and the API, a bad volumes= value, a
# project name with a slash or "..", and the links in P-web's volume,
# which are removed as links and never followed.  Then delete --project
# P --volumes removes ROOT/INSTANCE/P-web and no other directory, the
# API's DELETE of group Px with ?volumes=true removes Px-web's, and a
# delete without --volumes keeps them.  On an orchd without volume
# removal the deletes leave P-web's volume: the test fails there.
#
#	sh regress/e2e/attack_projectvol.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
need_docker
ensure_user

IMAGE=orchd-test/busybox:latest
P=h34v$$
KEY=e2e-attack-projectvol-$$-0123456789abcdef
ports GW API P1 P2 P3 P4
S=$(mktemp -d /tmp/h34g-pv.XXXXXX)
chmod 0755 "$S"
ROOT=$S/root
IROOT=$ROOT/$E2E_INSTANCE
OUT=$S/out
mkdir -m 0755 "$ROOT" "$OUT"
echo "keep-$$" >"$OUT/keep"

pv_cleanup() {
	if [ -n "$ORCHD_PID" ] && kill -0 "$ORCHD_PID" 2>/dev/null; then
		kill -TERM "$ORCHD_PID" 2>/dev/null
		wait_gone "$ORCHD_PID" 15
	fi
	for n in "$P-web" "${P}x-web" "$P-web-db" "$P"; do
		docker rm -f "$(cname "$n")" >/dev/null 2>&1
	done
	rm -rf "$S"
	e2e_cleanup
}
trap pv_cleanup EXIT

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
api allow volume "$ROOT"
api allow network host
CONF
} >"$T/orchd.conf"

URL=http://127.0.0.1:$API
# mk NAME PORT GROUP-MEMBER EXTRA-SHELL: created through the API
mk() {
	cmd="sh -c 'echo $1 >/data/f; $4 exec httpd -f -p 127.0.0.1:$2 -h /data'"
	curl -s -m 30 -o "$T/body" -w '%{http_code}' \
	    -H "Authorization: Bearer $KEY" -X POST --data-binary \
	    "{\"name\": \"$1\", \"hosts\": [\"$1.test\"], \"driver\": \"docker\",
	    \"image\": \"$IMAGE\", \"network\": \"host\", \"port\": $2,
	    \"command\": \"$cmd\", $3
	    \"volumes\": [{\"host\": \"data\", \"container\": \"/data\"}]}" \
	    "$URL/v1/workloads"
}
get() {	# get NAME: the status of GET /f on its host
	curl -s -m 60 -o /dev/null -w '%{http_code}' -H "Host: $1.test" \
	    "http://127.0.0.1:$GW/f"
}
del() {	# del PATH: the status of DELETE on the API
	curl -s -m 60 -o "$T/body" -w '%{http_code}' -X DELETE \
	    -H "Authorization: Bearer $KEY" "$URL$1"
}
has() { [ -f "$IROOT/$1/data/f" ]; }
all_others() {	# the three that are not P's
	has "${P}x-web" && has "$P-web-db" && has "$P"
}

start_orchd_or_exit

c=$(mk "$P-web" "$P1" "\"group\": \"$P\"," \
    "ln -s $OUT /data/out; ln -s / /data/root;")
check "P-web is created ($c): $(cat "$T/body")" [ "$c" = 201 ]
c=$(mk "${P}x-web" "$P2" "\"group\": \"${P}x\"," "")
check "Px-web is created ($c)" [ "$c" = 201 ]
c=$(mk "$P-web-db" "$P3" "\"group\": \"$P-web\"," "")
check "P-web-db is created ($c)" [ "$c" = 201 ]
c=$(mk "$P" "$P4" "" "")
check "P, of no project, is created ($c)" [ "$c" = 201 ]
for n in "$P-web" "${P}x-web" "$P-web-db" "$P"; do
	c=$(get "$n")
	check "$n wakes and writes its volume ($c)" sh -c \
	    "[ $c = 200 ] && [ -f '$IROOT/$n/data/f' ]"
done
check "P-web planted its links" sh -c \
    "[ -L '$IROOT/$P-web/data/out' ] && [ -L '$IROOT/$P-web/data/root' ]"

# globs and paths as a project's name: refused, nothing removed
for g in "$P*" "$P?web" "$P-*" "../$P" "$P/.." "*"; do
	"$ORCHCTL" -s "$SOCK" delete --project "$g" --volumes \
	    >"$T/out" 2>&1
	st=$?
	check "orchctl delete --project '$g' --volumes refused ($st): \
$(head -n 1 "$T/out")" [ "$st" -ne 0 ]
done
for g in "$P%2A" "$P%3Fweb" "$P*" "..%2F$P" "%2A"; do
	c=$(del "/v1/groups/$g?volumes=true")
	check "API DELETE /v1/groups/$g?volumes=true refused ($c)" sh -c \
	    "[ $c = 400 ] || [ $c = 404 ]"
done
c=$(del "/v1/groups/$P?volumes=yes")
check "API volumes=yes: 400 ($c): $(cat "$T/body")" [ "$c" = 400 ]
check "... its exact text" grep -qxF \
    '{"error":"volumes: must be true or false"}' "$T/body"
check "after the refusals every volume is there" sh -c \
    "[ -f '$IROOT/$P-web/data/f' ] && [ -f '$IROOT/${P}x-web/data/f' ] &&
    [ -f '$IROOT/$P-web-db/data/f' ] && [ -f '$IROOT/$P/data/f' ]"
check "and every workload" sh -c "$ORCHCTL -s $SOCK show workloads |
    grep -c '^$P' | grep -qx 4"

# the project P, with its volumes
"$ORCHCTL" -s "$SOCK" delete --project "$P" --volumes >"$T/out" 2>&1
st=$?
check "orchctl delete --project P --volumes ($st): $(cat "$T/out")" \
    sh -c "[ $st = 0 ] && grep -q '$P-web: deleted' $T/out"
check "P-web's volume directory is gone" [ ! -e "$IROOT/$P-web" ]
check "Px-web's, P-web-db's and P's volumes are untouched" all_others
check "the links in P-web's volume were not followed: $OUT/keep" \
    [ "$(cat "$OUT/keep" 2>/dev/null)" = "keep-$$" ]
check "... and the host's / is there ($(ls / | wc -l) entries)" \
    [ -d /etc -a -d /usr/bin ]
check "the other workloads are there" sh -c \
    "$ORCHCTL -s $SOCK show workloads | grep -Eq '^${P}x-web ' &&
    $ORCHCTL -s $SOCK show workloads | grep -Eq '^$P-web-db ' &&
    $ORCHCTL -s $SOCK show workloads | grep -Eq '^$P '"

# the API: group Px with its volumes, P-web without
c=$(del "/v1/groups/${P}x?volumes=true")
check "API DELETE /v1/groups/Px?volumes=true ($c): $(cat "$T/body")" \
    [ "$c" = 200 ]
check "Px-web's volume directory is gone" [ ! -e "$IROOT/${P}x-web" ]
check "P-web-db's and P's volumes are untouched" sh -c \
    "[ -f '$IROOT/$P-web-db/data/f' ] && [ -f '$IROOT/$P/data/f' ]"
c=$(del "/v1/groups/$P-web")
check "API DELETE /v1/groups/P-web, no volumes ($c)" [ "$c" = 200 ]
check "P-web-db's volume stays" [ -f "$IROOT/$P-web-db/data/f" ]
c=$(del "/v1/workloads/$P?volumes=true")
check "API DELETE /v1/workloads/P?volumes=true ($c): $(cat "$T/body")" \
    [ "$c" = 200 ]
check "P's volume directory is gone, P-web-db's stays" sh -c \
    "[ ! -e '$IROOT/$P' ] && [ -f '$IROOT/$P-web-db/data/f' ]"

stop_orchd
check "orchd exits 0 ($STATUS)" [ "$STATUS" = 0 ]
e2e_done
