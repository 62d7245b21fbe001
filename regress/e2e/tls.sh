#!/bin/sh
# TLS at the gateway: certificates chosen by SNI, TLS 1.2 and 1.3,
# X-Forwarded-Proto https, and a reload that serves a renewed certificate
# to new connections while one opened before carries on.  Keypairs are
# checked by gatewayd -n, for orchd -n, at start and at reload, and the
# parent maps no libtls.  The CA and the certificates are made here with
# openssl(1).
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
command -v openssl >/dev/null || skip "no openssl"

ports PORT APORT BPORT
mkdir -p "$T/log" "$T/bin" "$T/pki"
testhttp_bin
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

# tls_conf LISTENER-KEY B-KEY: a configuration with those two keys
tls_conf() {
	conf_head
	cat <<CONF
listen on 127.0.0.1 port $PORT tls certificate "$P/default.test.crt" key "$1"

workload "a" {
	host "a.test"
	command "$T/bin/testhttp serve $APORT"
	port $APORT
	tls keypair "$P/a.test.crt" "$P/a.test.key"
CONF
	conf_end
	cat <<CONF

workload "b" {
	host "b.test"
	command "$T/bin/testhttp serve $BPORT"
	port $BPORT
CONF
	conf_end "tls keypair \"$P/b.test.crt\" \"$2\""
}
tls_conf "$P/default.test.key" "$P/b.test.key" >"$T/orchd.conf"

# The parent parses no key: gatewayd -n checks them for it, as the
# configured user in the chroot, and the parent names the files.
"$ORCHD" -n -f "$T/orchd.conf" >"$T/n.out" 2>&1
check "orchd -n accepts the keypairs" grep -q "configuration OK" "$T/n.out"
tls_conf "$P/a.test.key" "$P/b.test.key" >"$T/bad-listener.conf"
"$ORCHD" -n -f "$T/bad-listener.conf" >"$T/n.out" 2>&1; st=$?
check "orchd -n refuses a listener's mismatched key (status $st)" [ "$st" -ne 0 ]
check "and names the listener and its files" grep -qF \
    "listen on 127.0.0.1: $P/default.test.crt, $P/a.test.key: " "$T/n.out"
tls_conf "$P/default.test.key" "$P/a.test.key" >"$T/bad-sni.conf"
"$ORCHD" -n -f "$T/bad-sni.conf" >"$T/n.out" 2>&1; st=$?
check "orchd -n refuses a tls keypair's mismatched key (status $st)" \
    [ "$st" -ne 0 ]
check "and names its files" grep -qF \
    "tls keypair $P/b.test.crt, $P/a.test.key: " "$T/n.out"
echo "not a certificate" >"$P/junk.crt"
sed "s|\"$P/a.test.crt\"|\"$P/junk.crt\"|" "$T/orchd.conf" >"$T/junk.conf"
"$ORCHD" -n -f "$T/junk.conf" >"$T/n.out" 2>&1; st=$?
check "orchd -n refuses a certificate that is not one (status $st)" \
    sh -c "[ $st -ne 0 ] && grep -qF 'tls keypair $P/junk.crt, $P/a.test.key: ' '$T/n.out'"
sed "s|^chroot .*|chroot \"$T/nowhere\"|" "$T/orchd.conf" >"$T/chroot.conf"
"$ORCHD" -n -f "$T/chroot.conf" >"$T/n.out" 2>&1; st=$?
check "the checker chroots: a missing chroot fails the check (status $st)" \
    sh -c "[ $st -ne 0 ] && grep -q 'chroot $T/nowhere' '$T/n.out' &&
    grep -q 'checking TLS keypairs: .*gatewayd exited with status 1' '$T/n.out'"
"$ORCHD" -d -f "$T/bad-listener.conf" >"$T/start.out" 2>&1; st=$?
check "orchd does not start with a mismatched key (status $st)" \
    sh -c "[ $st -eq 1 ] && grep -qF '$P/default.test.crt, $P/a.test.key: ' '$T/start.out'"
check "and leaves no socket behind" [ ! -e "$SOCK" ]

# The checker that fails in other ways: an orchd beside a fake gatewayd
mkdir -p "$T/fake"
cp "$ORCHD" "$T/fake/orchd"
cp "$BUILD/confd" "$T/fake/confd"
printf '#!/bin/sh\nkill -SEGV $$\n' >"$T/fake/gatewayd"
chmod 0755 "$T/fake/gatewayd"
"$T/fake/orchd" -n -f "$T/orchd.conf" >"$T/n.out" 2>&1; st=$?
check "a checker that crashes fails the check (status $st)" \
    sh -c "[ $st -ne 0 ] && grep -q 'gatewayd killed by signal 11' '$T/n.out'"
printf '#!/bin/sh\nexec sleep 27\n' >"$T/fake/gatewayd"
t0=$(date +%s)
"$T/fake/orchd" -n -f "$T/orchd.conf" >"$T/n.out" 2>&1; st=$?
t1=$(date +%s)
check "a checker that hangs is killed after 10 s ($((t1 - t0)) s, status $st)" \
    sh -c "[ $st -ne 0 ] && [ $((t1 - t0)) -le 14 ] &&
    grep -q 'took more than 10 seconds: killed' '$T/n.out'"
check "and does not outlive the check" sh -c "! pgrep -x -f 'sleep 27'"
if [ ! -e "/usr/local/libexec/orchd/gatewayd" ]; then
	rm "$T/fake/gatewayd"
	"$T/fake/orchd" -n -f "$T/orchd.conf" >"$T/n.out" 2>&1; st=$?
	check "no gatewayd to exec fails the check (status $st)" \
	    sh -c "[ $st -ne 0 ] && grep -q 'checking TLS keypairs: exec .*gatewayd: No such file' '$T/n.out'"
fi

# gatewayd -n refuses what the parent would never send: a piece of more
# than 1 MiB, an empty one, one of no known kind
checker() {	# checker BYTES: gatewayd -n reading them on fd 3
	printf "$1" | "$BUILD/gatewayd" -n -d -u "${2:-$ORCHD_IDS}" \
	    -c /var/empty 3<&0 >"$T/n.out" 2>&1
}
ORCHD_IDS="$(id -u _orchd):$(id -g _orchd)"
checker '\002\000\000\000\001\000\020\000'; st=$?
check "gatewayd -n refuses a piece of 1 MiB + 1 (status $st)" \
    sh -c "[ $st -eq 1 ] && grep -q 'a piece of 1048577 bytes' '$T/n.out'"
checker '\002\000\000\000\000\000\000\000'; st=$?
check "gatewayd -n refuses an empty piece (status $st)" \
    sh -c "[ $st -eq 1 ] && grep -q 'a piece of 0 bytes' '$T/n.out'"
checker '\011\000\000\000\001\000\000\000x'; st=$?
check "gatewayd -n refuses an unknown piece (status $st)" \
    sh -c "[ $st -eq 1 ] && grep -q 'unknown piece 9' '$T/n.out'"
# the user comes as numbers, which the parent looked up: never a name
checker '\011\000\000\000\001\000\000\000x' _orchd; st=$?
check "gatewayd -n refuses a user given by name (status $st)" \
    sh -c "[ $st -eq 1 ] && grep -q 'usage: gatewayd -n' '$T/n.out'"

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
# curl chooses h2 by ALPN where offered: http2.sh tests it
check "curl over TLS wakes the workload and gets 200 ($code)" [ "$code" = "200 2" ]
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
check "the gateway maps libtls and libcrypto" \
    sh -c "grep -q libtls /proc/$gw/maps && grep -q libcrypto /proc/$gw/maps"
check "the parent maps no libtls, libssl or libcrypto" \
    sh -c "grep -q libevent /proc/$ORCHD_PID/maps &&
    ! grep -qE 'lib(tls|ssl|crypto)' /proc/$ORCHD_PID/maps"
check "orchd is linked with none of them" \
    sh -c "ldd '$ORCHD' | grep -q libevent &&
    ! ldd '$ORCHD' | grep -qE 'lib(tls|ssl|crypto)'"

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
actives() { grep -c 'configuration [0-9]* active' "$T/orchd.log"; }
cp -p "$P/b.test.key" "$P/b.good.key"
cp -p "$P/default.test.key" "$P/default.good.key"
cp "$P/default.test.key" "$P/b.test.key"
before=$(fingerprint b.test)
kill -HUP "$ORCHD_PID"
check "a mismatched key is refused at reload" \
    wait_for 10 grep -q "not reloading" "$T/orchd.log"
check "the log says which keypair" grep -qF \
    "tls keypair $P/b.test.crt, $P/b.test.key: " "$T/orchd.log"
check "b.test is still served its old certificate" \
    [ "$(fingerprint b.test)" = "$before" ]

# the listener's own key broken too: refused, the old listener serves on
cp "$P/a.test.key" "$P/default.test.key"
dbefore=$(fingerprint other.test)
n=$(actives)
kill -HUP "$ORCHD_PID"
check "a listener's mismatched key is refused at reload" wait_for 10 \
    grep -qF "listen on 127.0.0.1: $P/default.test.crt, $P/default.test.key: " \
    "$T/orchd.log"
check "the listener still serves its old certificate" \
    [ "$(fingerprint other.test)" = "$dbefore" ]
check "and the refused reload changed nothing" [ "$(actives)" -eq "$n" ]

# the keys mended: the reload goes through
cp -p "$P/b.good.key" "$P/b.test.key"
cp -p "$P/default.good.key" "$P/default.test.key"
kill -HUP "$ORCHD_PID"
more_active() { [ "$(actives)" -gt "$n" ]; }
check "a good reload goes through" wait_for 10 more_active
check "b.test is served over TLS after it" \
    [ "$(fingerprint b.test)" = "$before" ]
check "the checkers were not taken for lost children" \
    sh -c "kill -0 $ORCHD_PID && ! grep -q 'lost child' '$T/orchd.log'"

check "orchctl still answers" "$ORCHCTL" -s "$SOCK" show summary
stop_orchd; st=$STATUS
check "orchd stops cleanly (status $st)" [ "$st" -eq 0 ]
ORCHD_PID=
e2e_done
