#!/bin/sh
# Builds the images of the real stack regress/e2e/realstack.sh runs,
# with `docker import`, from the host's Debian packages (postgresql-15,
# redis-server, busybox-static: tools/deps.sh test), since no registry
# is reachable here:
#	orchd-test/postgres:15	initdb, postgres, pg_isready, psql
#	orchd-test/redis:7	redis-server, redis-cli
#	orchd-test/pgapp:1	busybox httpd with a CGI script that answers
#				from PostgreSQL and counts in Redis; psql
#				for the migration job
# Each holds the programs, the shared libraries ldd names and ld.so,
# busybox for sh, and what the programs read at run time.  orchd runs
# an API container as a uid of its own that no passwd names, and
# initdb needs a name for it: /etc/passwd and /etc/group are links to
# /tmp, which each entrypoint writes for its uid before anything else.
# An image is made only where it is missing or older than REV.
set -eu
REV=3
PGBIN=/usr/lib/postgresql/15/bin
HERE=$(cd "$(dirname "$0")" && pwd)
r=
trap '[ -z "$r" ] || rm -rf "$r"' EXIT

fresh() {	# fresh IMAGE: it exists, of this REV
	docker image inspect --format '{{range .Config.Env}}{{println .}}{{end}}' \
	    "$1" 2>/dev/null | grep -qx "ORCHD_TEST_REV=$REV"
}

copy() {	# copy ROOT FILE...: each FILE at its own path under ROOT
	_r=$1
	shift
	for _f in "$@"; do
		mkdir -p "$_r$(dirname "$_f")"
		cp -L "$_f" "$_r$_f"
	done
}

# addbin ROOT PROGRAM...: each program with what ldd says it loads
addbin() {
	_r=$1
	shift
	copy "$_r" "$@"
	for _l in $(ldd "$@" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }
	    $1 ~ /^\/.*ld-linux/ { print $1 }' | sort -u); do
		[ -e "$_r$_l" ] || copy "$_r" "$_l"
	done
}

# base ROOT: busybox, /tmp for any uid, passwd and group by the
# entrypoint, files first in the name service
base() {
	mkdir -p "$1/bin" "$1/etc" "$1/usr/local/bin"
	mkdir -m 1777 "$1/tmp"
	cp /bin/busybox "$1/bin/busybox"
	for _a in sh cat echo env id sleep mkdir sed httpd wget; do
		ln -s busybox "$1/bin/$_a"
	done
	ln -s /tmp/passwd "$1/etc/passwd"
	ln -s /tmp/group "$1/etc/group"
	printf 'passwd: files\ngroup: files\nhosts: files\n' \
	    >"$1/etc/nsswitch.conf"
	printf '127.0.0.1 localhost\n' >"$1/etc/hosts"
	cat >"$1/usr/local/bin/whoami.sh" <<'EOF'
#!/bin/sh
# the uid orchd runs this container as, named: initdb asks for its name
echo "${ORCHD_TEST_USER:-app}:x:$(id -u):$(id -g)::/tmp:/bin/sh" >/tmp/passwd
echo "${ORCHD_TEST_USER:-app}:x:$(id -g):" >/tmp/group
exec "$@"
EOF
	chmod 0755 "$1/usr/local/bin/whoami.sh"
}

# make_image IMAGE ROOT CHANGE...: ROOT as IMAGE, then ROOT removed
make_image() {
	_i=$1
	_r=$2
	shift 2
	_old=$(docker image inspect --format '{{.Id}}' "$_i" 2>/dev/null) ||
	    _old=
	set -- -c "ENV ORCHD_TEST_REV=$REV" "$@"
	tar -C "$_r" -c . | docker import "$@" - "$_i" >/dev/null
	rm -rf "$_r"
	# the former REV's, untagged now, unless a container or a tag
	# still holds it
	[ -z "$_old" ] || docker rmi "$_old" >/dev/null 2>&1 || :
	echo "regress/docker-image-pg.sh: imported $_i" >&2
}

pg_image() {
	r=$(mktemp -d /tmp/orchd-pgimg.XXXXXX)
	base "$r"
	addbin "$r" "$PGBIN/postgres" "$PGBIN/initdb" "$PGBIN/pg_isready" \
	    "$PGBIN/psql"
	# share/ (bki, timezone sets) and the modules initdb loads; not
	# the JIT, which needs LLVM
	mkdir -p "$r/usr/share/postgresql" "$r/usr/lib/postgresql/15/lib"
	cp -R /usr/share/postgresql/15 "$r/usr/share/postgresql/15"
	for m in /usr/lib/postgresql/15/lib/*.so; do
		[ "$(basename "$m")" = llvmjit.so ] || cp "$m" "$r$m"
	done
	mkdir -p "$r/usr/share/zoneinfo/Etc"
	cp -L /usr/share/zoneinfo/UTC /usr/share/zoneinfo/GMT \
	    "$r/usr/share/zoneinfo/"
	cp -L /usr/share/zoneinfo/Etc/UTC "$r/usr/share/zoneinfo/Etc/"
	cat >"$r/usr/local/bin/postgres.sh" <<'EOF'
#!/bin/sh
# initdb into the volume at the first start, then the server: on
# loopback only, no Unix socket, trusting its clients (a test's)
set -e
if [ ! -s "$PGDATA/PG_VERSION" ]; then
	initdb -D "$PGDATA" -U "${POSTGRES_USER:-postgres}" --auth=trust \
	    --locale=C -E UTF8 --no-sync >/dev/null
fi
exec postgres -D "$PGDATA" -c listen_addresses=127.0.0.1 \
    -c unix_socket_directories= -c fsync=off "$@"
EOF
	chmod 0755 "$r/usr/local/bin/postgres.sh"
	make_image orchd-test/postgres:15 "$r" \
	    -c "ENV PATH=$PGBIN:/bin:/usr/local/bin" -c 'ENV TZ=UTC' \
	    -c 'ENV ORCHD_TEST_USER=postgres' \
	    -c 'ENV PGDATA=/var/lib/postgresql/data' \
	    -c 'ENTRYPOINT ["/usr/local/bin/whoami.sh", "/usr/local/bin/postgres.sh"]'
}

redis_image() {
	r=$(mktemp -d /tmp/orchd-redisimg.XXXXXX)
	base "$r"
	addbin "$r" /usr/bin/redis-server /usr/bin/redis-cli
	make_image orchd-test/redis:7 "$r" -c 'ENV PATH=/usr/bin:/bin' \
	    -c 'CMD ["redis-server"]'
}

app_image() {
	r=$(mktemp -d /tmp/orchd-appimg.XXXXXX)
	base "$r"
	addbin "$r" "$PGBIN/psql" /usr/bin/redis-cli
	mkdir -p "$r/www/cgi-bin"
	cp "$HERE/compose/realstack-app.cgi" "$r/www/cgi-bin/app"
	chmod 0755 "$r/www/cgi-bin/app"
	make_image orchd-test/pgapp:1 "$r" \
	    -c "ENV PATH=$PGBIN:/usr/bin:/bin:/usr/local/bin" \
	    -c 'ENTRYPOINT ["/usr/local/bin/whoami.sh"]' -c 'CMD ["sh"]'
}

[ -x "$PGBIN/postgres" ] || { echo "$0: no $PGBIN/postgres" >&2; exit 1; }
[ -x /usr/bin/redis-server ] || { echo "$0: no redis-server" >&2; exit 1; }
fresh orchd-test/postgres:15 || pg_image
fresh orchd-test/redis:7 || redis_image
fresh orchd-test/pgapp:1 || app_image
