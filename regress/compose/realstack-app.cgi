#!/bin/sh
# The application of regress/compose/realstack.yml, a CGI script of
# busybox httpd in the image orchd-test/pgapp (regress/docker-image-pg.sh):
# each request lists the notes of PostgreSQL's table, adds one first
# with ?add=WORD (lower-case letters, digits and '-'), and counts itself
# in Redis.  DB_PORT and CACHE_PORT come from the service's
# environment.  Its head's lines end with CRLF, as HTTP says: busybox
# httpd passes them on as they are, and orchd takes no bare LF.
printf 'Content-Type: text/plain\r\n\r\n'
sql() {
	psql -X -q -tA -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$DB_PORT" -U app \
	    -d postgres -c "$1" 2>&1
}
case "$QUERY_STRING" in
add=*)
	n=${QUERY_STRING#add=}
	case "$n" in
	''|*[!a-z0-9-]*)
		echo "error: a note is [a-z0-9-]+"
		exit 0
		;;
	esac
	sql "INSERT INTO notes (note) VALUES ('$n')" || exit 0
	;;
esac
sql "SELECT 'note: ' || note FROM notes ORDER BY id"
echo "hits: $(redis-cli -h 127.0.0.1 -p "$CACHE_PORT" INCR hits 2>&1)"
