#!/bin/sh
# TLS at the gateway: certificates chosen by SNI, TLS 1.2 and 1.3,
# X-Forwarded-Proto https, and a reload that serves a renewed certificate
# to new connections while one opened before carries on.  The CA and the
# certificates are made here with openssl(1).
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
command -v openssl >/dev/null || { echo "skipped: no openssl"; echo "0 passed, 0 failed"; exit 0; }

PORT=$((20000 + $$ % 10000))
APORT=$((PORT + 1))
BPORT=$((PORT + 2))
mkdir -p "$T/log" "$T/bin" "$T/pki"
cp "$BUILD/regress/testhttp" "$T/bin/testhttp"
chmod 0755 "$T/bin" "$T/bin/testhttp"
P=$T/pki

# a CA, and a certificate for NAME signed by it: cert NAME
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$P/ca.key" -out "$P/ca.crt" -days 2 -subj "/CN=orchd test CA" \
    2>/dev/null
cert() {
	openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	    -keyout "$P/$1.key" -out "$P/$1.csr" -subj "/CN=$1" \
	    -addext "subjectAltName=DNS:$1" 2>/dev/null &&
	openssl x509 -req -in "$P/$1.csr" -CA "$P/ca.crt" -CAkey "$P/ca.key" \
	    -CAcreateserial -days 2 -copy_extensions copy \
	    -out "$P/$1.crt" 2>/dev/null
	chmod 0600 "$P/$1.key"
}
cert default.test
cert a.test
cert b.test
check "the certificates were made" \
    sh -c "[ -s '$P/a.test.crt' ] && [ -s '$P/b.test.crt' ]"

cat >"$T/orchd.conf" <<CONF
user "_orchd"
database "$T/db/orchd.db"
socket "$SOCK"
log directory "$T/log"
listen on 127.0.0.1 port $PORT tls certificate "$P/default.test.crt" key "$P/default.test.key"

workload "a" {
	host "a.test"
	command "$T/bin/testhttp serve $APORT"
	port $APORT
	tls keypair "$P/a.test.crt" "$P/a.test.key"
}

workload "b" {
	host "b.test"
	command "$T/bin/testhttp serve $BPORT"
	port $BPORT
	tls keypair "$P/b.test.crt" "$P/b.test.key"
}
CONF

check "orchd starts" start_orchd

served() {	# served SERVERNAME [s_client args]: the subject presented
	name=$1
	shift
	echo | openssl s_client -connect "127.0.0.1:$PORT" -servername "$name" \
	    "$@" 2>/dev/null | openssl x509 -noout -subject 2>/dev/null |
	    sed 's/.*CN *= *//'
}
fingerprint() {
	echo | openssl s_client -connect "127.0.0.1:$PORT" -servername "$1" \
	    2>/dev/null | openssl x509 -noout -fingerprint -sha256 2>/dev/null
}

check "SNI a.test gets a.test's certificate" [ "$(served a.test)" = a.test ]
check "SNI b.test gets b.test's certificate" [ "$(served b.test)" = b.test ]
check "another name gets the listener's certificate" \
    [ "$(served other.test)" = default.test ]
for v in 1.2 1.3; do
	opt=-tls1_$(echo $v | cut -d. -f2)
	echo | openssl s_client -connect "127.0.0.1:$PORT" -servername a.test \
	    "$opt" >"$T/s_client.out" 2>&1
	check "TLS $v negotiates" grep -q "TLSv$v" "$T/s_client.out"
done

URL=https://a.test:$PORT
curl_a() {
	curl -sS -m 20 --cacert "$P/ca.crt" --resolve "a.test:$PORT:127.0.0.1" \
	    "$@"
}
code=$(curl_a -o "$T/headers.out" -w '%{http_code} %{http_version}' "$URL/headers")
check "curl over TLS wakes the workload and gets 200 ($code)" [ "$code" = "200 1.1" ]
check "the workload sees X-Forwarded-Proto: https" \
    grep -qi '^X-Forwarded-Proto: https' "$T/headers.out"
code=$(curl -sS -m 20 --cacert "$P/ca.crt" --resolve "b.test:$PORT:127.0.0.1" \
    -o /dev/null -w '%{http_code}' "https://b.test:$PORT/")
check "b.test is served over TLS too ($code)" [ "$code" = 200 ]
head -c 3000000 /dev/urandom >"$T/up.bin"
curl_a --data-binary "@$T/up.bin" -o "$T/echo.out" "$URL/echo"
check "a 3 MB upload over TLS comes back intact" cmp -s "$T/up.bin" "$T/echo.out"
curl_a -o "$T/big.out" "$URL/big?5000000"
check "a 5 MB answer over TLS arrives whole" \
    [ "$(wc -c <"$T/big.out")" -eq 5000000 ]
printf 'GET / HTTP/1.1\r\nHost: a.test\r\n\r\n' |
    "$T/bin/testhttp" raw "$PORT" 2 >"$T/plain.out"
check "plain HTTP on the TLS port is not answered as HTTP" \
    sh -c "! grep -q '^HTTP/1.1 200' '$T/plain.out'"

gw=$(child gateway)
check "the gateway holds no certificate or key file open" \
    sh -c "! ls -l /proc/$gw/fd | grep -q '$P'"

# a connection opened before the reload: one request now, one after
mkfifo "$T/fifo"
openssl s_client -quiet -connect "127.0.0.1:$PORT" -servername a.test \
    <"$T/fifo" >"$T/old.out" 2>/dev/null &
sc=$!
exec 3>"$T/fifo"
printf 'GET /old1 HTTP/1.1\r\nHost: a.test\r\n\r\n' >&3
check "the long-lived connection is answered" \
    wait_for 10 grep -q 'hello from testhttp' "$T/old.out"

old=$(fingerprint a.test)
mv "$P/a.test.crt" "$P/a.old.crt"
cert a.test
kill -HUP "$ORCHD_PID"
new_served() { [ "$(fingerprint a.test)" != "$old" ]; }
check "after SIGHUP a new connection gets the new certificate" \
    wait_for 10 new_served
check "the new certificate verifies" sh -c "curl -sS -m 20 --cacert '$P/ca.crt' --resolve 'a.test:$PORT:127.0.0.1' \
    https://a.test:$PORT/ | grep -q hello"
printf 'GET /old2 HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n' >&3
exec 3>&-
wait_for 10 dead "$sc"
check "the connection opened before the reload is still usable" \
    [ "$(grep -c 'hello from testhttp' "$T/old.out")" -eq 2 ]
kill "$sc" 2>/dev/null

# a key that does not match: the reload is refused, the old one serves on
cp "$P/default.test.key" "$P/b.test.key"
before=$(fingerprint b.test)
kill -HUP "$ORCHD_PID"
check "a mismatched key is refused at reload" \
    wait_for 10 grep -q "not reloading" "$T/orchd.log"
check "b.test is still served its old certificate" \
    [ "$(fingerprint b.test)" = "$before" ]

check "orchctl still answers" "$ORCHCTL" -s "$SOCK" show summary
stop_orchd; st=$STATUS
check "orchd stops cleanly (status $st)" [ "$st" -eq 0 ]
ORCHD_PID=
e2e_done
