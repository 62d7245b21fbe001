#!/bin/sh
# Attacks on path routing ("path", "strip prefix"), replayed against a
# live orchd, each failing if it works.  On one host: web, the default,
# open; admin at "/admin/", its gate refusing loopback (403, never
# woken); api at "/api/" with strip prefix.  What must never happen:
# admin's workload started, web handed a path that reads as admin's
# after normalisation, api handed a path that climbs out of its prefix.
#  - dot segments: /x/../admin/k, /./admin/k, /admin/.., /api/../k
#  - encoded: /%2e%2e/admin/k, /x/%2E%2E/admin/k, /x%2fadmin, twice (%252e),
#    /admin%2fk, /x%5cadmin, /api/%2e%2e/k
#  - //admin/k, /x//../admin/k, a backslash
#  - a path matching admin's prefix only after normalisation, over
#    HTTP/2 too (curl --path-as-is)
#  - a path of 60,000 bytes, and one of 8,000 under /admin/
#  - the prefix smuggled: absolute-form target of another host, an
#    X-Original-URL / X-Rewrite-URL field, a second request line in a
#    header, a target without its leading '/'
# Each of the first is 400, never routed; the rest go where their own
# target says.  The gateway is alive at the end.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports GW PK P_WEB P_ADM P_API
mkdir -p "$T/log"
testhttp_bin
for f in web adm api; do
	: >"$T/$f.starts"
	: >"$T/$f.reqs"
	chmod 0666 "$T/$f.starts" "$T/$f.reqs"
done
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
listen on 127.0.0.1 port $GW
listen on 127.0.0.1 port $PK http2 prior knowledge
workload "web" {
	host "app.test"
	command "$T/bin/testhttp serve $P_WEB $T/web.starts $T/web.reqs"
	port $P_WEB
}
workload "admin" {
	host "app.test"
	path "/admin/"
	command "$T/bin/testhttp serve $P_ADM $T/adm.starts $T/adm.reqs"
	port $P_ADM
	deny from "all"
}
workload "api" {
	host "app.test"
	path "/api/"
	strip prefix
	command "$T/bin/testhttp serve $P_API $T/api.starts $T/api.reqs"
	port $P_API
}
CONF
start_orchd_or_exit

raw() {	# raw REQUEST-TEXT: the status of the answer to it
	printf "$1" | "$T/bin/testhttp" raw "$GW" 3 2>/dev/null |
	    head -n 1 | awk '{ print $2 }'
}
asis() {	# asis PATH: curl --path-as-is, its status
	curl -s -m 20 --path-as-is -o /dev/null -w '%{http_code}' \
	    -H 'Host: app.test' "http://127.0.0.1:$GW$1"
}
# web up first, so that a wrong route would reach it
c=$(asis /)
check "web answers / ($c)" [ "$c" = 200 ]
for p in /x/../admin/k /./admin/k /admin/.. /admin/./k /api/../k \
    /%2e%2e/admin/k /x/%2E%2E/admin/k /x%2fadmin /admin%2fk /x%2Fadmin \
    /x%5cadmin /api/%2e%2e/k /api/%2E./k //admin/k /x//../admin/k \
    /x/%252e%252e/admin/k /api/%252e%252e/k \
    /api//k /x/.. /x/.; do
	c=$(asis "$p")
	check "$p: 400 ($c)" [ "$c" = 400 ]
done
c=$(raw 'GET /x\\..\\admin/k HTTP/1.1\r\nHost: app.test\r\nConnection: close\r\n\r\n')
check "a backslash: refused ($c)" [ "$c" = 400 ]

# HTTP/2: the same paths, as sent
for p in /x/../admin/k //admin/k /%2e%2e/admin/k /api/../k; do
	c=$(curl -s -m 20 --http2-prior-knowledge --path-as-is -o /dev/null \
	    -w '%{http_code}' -H 'Host: app.test' "http://127.0.0.1:$PK$p")
	check "HTTP/2 $p: 400 ($c)" [ "$c" = 400 ]
done

# long paths: refused whole, or routed by their own prefix
long=$(head -c 60000 /dev/zero | tr '\0' a)
c=$(asis "/$long")
check "a path of 60,000 bytes: refused, not 200 ($c)" \
    sh -c "[ '$c' != 200 ] && [ '$c' != 000 ]"
long=$(head -c 8000 /dev/zero | tr '\0' b)
c=$(asis "/admin/$long")
check "8,000 bytes under /admin/: admin's gate, 403 ($c)" [ "$c" = 403 ]

# the prefix smuggled
c=$(raw 'GET http://app.test/admin/k HTTP/1.1\r\nHost: app.test\r\nConnection: close\r\n\r\n')
check "absolute-form /admin/k: admin's gate, 403 ($c)" [ "$c" = 403 ]
c=$(raw 'GET / HTTP/1.1\r\nHost: app.test\r\nX-Original-URL: /admin/k\r\nX-Rewrite-URL: /admin/k\r\nConnection: close\r\n\r\n')
check "X-Original-URL /admin/k: routed by the target, to web ($c)" \
    [ "$c" = 200 ]
c=$(raw 'GET / HTTP/1.1\r\nHost: app.test\r\nX-Junk: x\r\nGET /admin/k HTTP/1.1\r\nConnection: close\r\n\r\n')
check "a request line in a header: not a route ($c)" \
    sh -c "[ '$c' = 400 ] || [ '$c' = 200 ]"
c=$(raw 'GET /k HTTP/1.1\r\nHost: app.test/admin\r\nConnection: close\r\n\r\n')
check "the prefix in the Host field: refused ($c)" [ "$c" = 400 ]
c=$(raw 'GET http://app.test/admin/k HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n')
check "absolute-form /admin/k, another Host: refused, never web's ($c)" \
    sh -c "[ '$c' = 400 ] || [ '$c' = 403 ]"
c=$(raw 'GET admin/k HTTP/1.1\r\nHost: app.test\r\nConnection: close\r\n\r\n')
check "a target without '/': refused ($c)" [ "$c" = 400 ]
c=$(raw 'GET /api/k HTTP/1.1\r\nHost: app.test\r\nContent-Length: 0\r\n\r\nGET /admin/k HTTP/1.1\r\nHost: app.test\r\nConnection: close\r\n\r\n')
check "pipelined: the second request by its own path ($c, then admin 403)" \
    [ "$c" = 200 ]

check "admin never started" [ "$(wc -l <"$T/adm.starts")" -eq 0 ]
check "web never saw an admin path: $(grep -c -i admin "$T/web.reqs")" \
    sh -c "! grep -qi 'admin' $T/web.reqs"
check "api never saw a dot segment or an encoded one: \
$(grep -E '\.\.|%2e|%2f|//' "$T/api.reqs" | head -n 3 | tr '\n' ';')" \
    sh -c "! grep -Eiq '\.\.|%2e|%2f|//' $T/api.reqs"
check "the gateway still serves" [ "$(asis /api/ok)" = 200 ]
check "orchd runs" kill -0 "$ORCHD_PID"
stop_orchd
e2e_done
