# Shared by acme.sh and attack_acme.sh: the real pebble and its DNS
# (pebble-challtestsrv, answering 127.0.0.1 for every name) on loopback
# ports, pebble's own certificate made with openssl, and an orchd whose
# acme block points at it.
#
#	. regress/e2e/lib.sh; . regress/e2e/acme_lib.sh; e2e_init "$1"
#	acme_need; acme_start; acme_conf LINES... >"$T/orchd.conf"

acme_need() {
	need_root
	ensure_user
	for c in pebble pebble-challtestsrv openssl curl; do
		command -v "$c" >/dev/null || skip "no $c"
	done
	ports HPORT SPORT PEBPORT PEBMPORT DNSPORT CHMPORT APORT
	mkdir -p "$T/log" "$T/bin" "$T/pki"
	testhttp_bin
	P=$T/pki
}

# pebble's listener: a CA of the test's and a certificate for 127.0.0.1
acme_pki() {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
	    -nodes -keyout "$P/ca.key" -out "$P/ca.crt" -days 2 \
	    -subj "/CN=s8acme test CA" 2>/dev/null &&
	openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	    -keyout "$P/pebble.key" -out "$P/pebble.csr" -subj "/CN=localhost" \
	    -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" 2>/dev/null &&
	openssl x509 -req -in "$P/pebble.csr" -CA "$P/ca.crt" \
	    -CAkey "$P/ca.key" -CAcreateserial -days 2 -copy_extensions copy \
	    -out "$P/pebble.crt" 2>/dev/null
}

# pebble_start: pebble, its http-01 and tls-alpn-01 ports the gateway's
pebble_start() {
	cat >"$T/pebble.json" <<JSON
{"pebble": {"listenAddress": "127.0.0.1:$PEBPORT",
 "managementListenAddress": "127.0.0.1:$PEBMPORT",
 "certificate": "$P/pebble.crt", "privateKey": "$P/pebble.key",
 "httpPort": $HPORT, "tlsPort": $SPORT, "ocspResponderURL": "",
 "externalAccountBindingRequired": false}}
JSON
	PEBBLE_VA_NOSLEEP=1 PEBBLE_WFE_NONCEREJECT=0 PEBBLE_AUTHZREUSE=0 \
	    pebble -config "$T/pebble.json" -dnsserver "127.0.0.1:$DNSPORT" \
	    >>"$T/pebble.log" 2>&1 &
	PEBBLE_PID=$!
	wait_for 10 curl -sf -m 2 --cacert "$P/ca.crt" \
	    "https://127.0.0.1:$PEBPORT/dir" -o /dev/null
}

pebble_stop() {
	[ -n "${PEBBLE_PID:-}" ] || return 0
	kill "$PEBBLE_PID" 2>/dev/null
	wait_gone "$PEBBLE_PID" 5 || kill -KILL "$PEBBLE_PID" 2>/dev/null
	PEBBLE_PID=
}

acme_start() {
	acme_pki || fail_always "pebble's certificate is made"
	pebble-challtestsrv -defaultIPv4 127.0.0.1 -defaultIPv6 "" \
	    -dns01 "127.0.0.1:$DNSPORT" -http01 "" -https01 "" \
	    -tlsalpn01 "" -management "127.0.0.1:$CHMPORT" \
	    >"$T/challtestsrv.log" 2>&1 &
	CHALL_PID=$!
	if ! pebble_start; then
		fail_always "pebble starts"
		tail -n 20 "$T/pebble.log"
		e2e_done
		exit 1
	fi
	# the root that issues, for curl
	curl -sf -m 5 --cacert "$P/ca.crt" -o "$P/root.pem" \
	    "https://127.0.0.1:$PEBMPORT/roots/0"
}

acme_cleanup() {
	pebble_stop
	[ -z "${CHALL_PID:-}" ] || kill "$CHALL_PID" 2>/dev/null
}

# acme_conf [ACME-LINE...]: a configuration with the acme block, a plain
# and a "tls acme" listener, and workload "app" (app.s8acme.test and
# *.pr.s8acme.test)
acme_conf() {
	conf_head
	cat <<CONF
listen on 127.0.0.1 port $HPORT
listen on 127.0.0.1 port $SPORT tls acme

acme {
	directory "https://127.0.0.1:$PEBPORT/dir"
	contact "mailto:ops@s8acme.test"
	ca file "$P/ca.crt"
CONF
	for x in "$@"; do
		printf '\t%s\n' "$x"
	done
	cat <<CONF
}

workload "app" {
	host "app.s8acme.test"
	host "*.pr.s8acme.test"
	command "$T/bin/testhttp serve $APORT"
	port $APORT
}
CONF
}

# orders: how many orders pebble was asked for
orders() { grep -c 'POST /order-plz' "$T/pebble.log"; }

# https HOST [CURL-ARGS...]: a request to HOST on the TLS listener,
# trusting pebble's root alone; the HTTP status, or 000
https() {
	_h=$1
	shift
	curl -s -m 40 -o /dev/null -w '%{http_code}' --cacert "$P/root.pem" \
	    --resolve "$_h:$SPORT:127.0.0.1" "$@" "https://$_h:$SPORT/"
}

# serial HOST: the serial of the certificate the gateway serves for HOST
serial() {
	openssl s_client -connect "127.0.0.1:$SPORT" -servername "$1" \
	    </dev/null 2>/dev/null | openssl x509 -noout -serial 2>/dev/null
}

# certstate HOST: its STATE in orchctl show certificates
certstate() {
	"$ORCHCTL" -s "$SOCK" show certificates 2>/dev/null |
	    awk -v h="$1" '$1 == h { print $2 }'
}
