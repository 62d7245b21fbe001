#!/bin/sh
# The gateway's side of certificates on demand (issue 31), without an
# ACME server: a "tls acme" listener whose hosts get their context by
# the name the ClientHello asks for (peeked before the handshake), a
# certificate swapped by a reload while a long download goes on,
# "redirect https" (a listener's and a workload's) and "hsts", the
# challenge path kept from workloads, and orchd -n on the new keywords.
# What needs acmed (a held handshake resumed by IMSG_ACME_CERT, http-01
# tokens) is tested where acmed is built (acme.sh); a host that routes
# nowhere, bad and slow ClientHellos are attack_acmegw.sh's.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
command -v openssl >/dev/null || skip "no openssl"
command -v curl >/dev/null || skip "no curl"

ports SPORT HPORT PPORT APORT BPORT RPORT DPORT
mkdir -p "$T/log" "$T/bin" "$T/pki"
testhttp_bin
P=$T/pki

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$P/ca.key" -out "$P/ca.crt" -days 2 -subj "/CN=orchd test CA" \
    2>/dev/null
cert() {	# cert NAME [FILE]: NAME's certificate in FILE.crt, FILE.key
	f=${2:-$1}
	openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	    -keyout "$P/$f.key" -out "$P/$f.csr" -subj "/CN=$1" \
	    -addext "subjectAltName=DNS:$1" 2>/dev/null &&
	openssl x509 -req -in "$P/$f.csr" -CA "$P/ca.crt" -CAkey "$P/ca.key" \
	    -CAcreateserial -days 2 -copy_extensions copy \
	    -out "$P/$f.crt" 2>/dev/null
	chmod 0600 "$P/$f.key"
}
cert a.test
cert b.test

: >"$T/r.starts"
chmod 0666 "$T/r.starts"
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
acme {
	directory "https://127.0.0.1:$DPORT/dir"
}
listen on 127.0.0.1 port $SPORT tls acme hsts max age 600 subdomains
listen on 127.0.0.1 port $HPORT redirect https port $SPORT
listen on 127.0.0.1 port $PPORT

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

workload "r" {
	host "r.test"
	command "$T/bin/testhttp serve $RPORT $T/r.starts"
	port $RPORT
	redirect https
}
CONF

"$ORCHD" -n -f "$T/orchd.conf" >"$T/n.out" 2>&1
check "orchd -n accepts tls acme, redirect https, hsts" \
    grep -q "configuration OK" "$T/n.out"
"$ORCHD" -nv -f "$T/orchd.conf" >"$T/nv.out" 2>&1
check "orchd -nv prints them back" sh -c "
    grep -q 'port $SPORT tls acme hsts max age 600 subdomains' '$T/nv.out' &&
    grep -q 'port $HPORT redirect https port $SPORT' '$T/nv.out' &&
    grep -q '^	redirect https$' '$T/nv.out'"
bad() {	# bad DESCRIPTION LINE: orchd -n refuses the file with LINE
	{ conf_head; echo "$2"; } >"$T/bad.conf"
	"$ORCHD" -n -f "$T/bad.conf" >"$T/bad.out" 2>&1; st=$?
	check "orchd -n refuses $1 (status $st)" [ "$st" -ne 0 ]
}
bad "redirect https on a TLS listener" \
    "listen on 127.0.0.1 port $SPORT tls acme redirect https"
bad "hsts on a cleartext listener" "listen on 127.0.0.1 port $HPORT hsts"
bad "tls acme on an api listener" "api listen on 127.0.0.1 port $HPORT tls acme"
bad "tls acme without an acme block" \
    "listen on 127.0.0.1 port $SPORT tls acme"
bad "redirect https twice" \
    "listen on 127.0.0.1 port $HPORT redirect https redirect https"

check "orchd starts" start_orchd

served() {	# served NAME: the subject the tls acme listener presents
	echo | timeout 10 openssl s_client -connect "127.0.0.1:$SPORT" \
	    ${1:+-servername "$1"} 2>/dev/null |
	    openssl x509 -noout -subject 2>/dev/null | sed 's/.*CN *= *//'
}
fingerprint() {
	echo | timeout 10 openssl s_client -connect "127.0.0.1:$SPORT" \
	    -servername "$1" 2>/dev/null |
	    openssl x509 -noout -fingerprint -sha256 2>/dev/null
}
check "SNI a.test gets a.test's certificate" [ "$(served a.test)" = a.test ]
check "SNI b.test gets b.test's certificate" [ "$(served b.test)" = b.test ]
check "SNI A.TEST. (any case, a final dot) gets a.test's" \
    [ "$(served A.TEST)" = a.test ]
check "no SNI gets the first tls keypair's" [ "$(served)" = a.test ]
for v in 2 3; do
	echo | timeout 10 openssl s_client -connect "127.0.0.1:$SPORT" \
	    -servername b.test -tls1_$v >"$T/s_client.out" 2>&1
	check "TLS 1.$v negotiates after the peek" grep -q "TLSv1.$v" \
	    "$T/s_client.out"
done

curl_s() {	# curl_s HOST PATH [ARGS]: over the tls acme listener
	h=$1 p=$2
	shift 2
	curl -sS -m 20 --cacert "$P/ca.crt" --resolve "$h:$SPORT:127.0.0.1" \
	    "$@" "https://$h:$SPORT$p"
}
code=$(curl_s a.test /headers -D "$T/a.hdr" -o "$T/a.out" \
    -w '%{http_code} %{http_version}')
check "curl over the tls acme listener gets 200 over h2 ($code)" \
    [ "$code" = "200 2" ]
code=$(curl_s a.test /headers --http1.1 -D "$T/a1.hdr" -o /dev/null \
    -w '%{http_code} %{http_version}')
check "and over HTTP/1.1 ($code)" [ "$code" = "200 1.1" ]
check "hsts: Strict-Transport-Security over TLS, HTTP/1.1" \
    grep -qi '^Strict-Transport-Security: max-age=600; includeSubDomains' \
    "$T/a1.hdr"
check "hsts: and over HTTP/2" \
    grep -qi '^Strict-Transport-Security: max-age=600; includeSubDomains' \
    "$T/a.hdr"
code=$(curl -sS -m 10 -o /dev/null -D "$T/p.hdr" -w '%{http_code}' \
    -H 'Host: a.test' "http://127.0.0.1:$PPORT/")
check "hsts: never over cleartext ($code)" \
    sh -c "[ $code = 200 ] && ! grep -qi '^Strict-Transport' '$T/p.hdr'"

# redirect https: the listener's, then a workload's; nothing woken
code=$(curl -sS -m 10 -o /dev/null -D "$T/r.hdr" -w '%{http_code}' \
    -H 'Host: b.test' "http://127.0.0.1:$HPORT/x/y?q=1&r=2")
check "redirect https: 308 ($code)" [ "$code" = 308 ]
check "to https://b.test:$SPORT/x/y?q=1&r=2" grep -qi \
    "^Location: https://b.test:$SPORT/x/y?q=1&r=2" "$T/r.hdr"
code=$(curl -sS -m 10 -o /dev/null -w '%{http_code}' \
    -H 'Host: 127.0.0.1' "http://127.0.0.1:$HPORT/")
check "no redirect to an IP literal: 400 ($code)" [ "$code" = 400 ]
code=$(curl -sS -m 10 -o /dev/null -D "$T/w.hdr" -w '%{http_code}' \
    -H 'Host: r.test' "http://127.0.0.1:$PPORT/p?x")
check "a workload's redirect https: 308 ($code)" [ "$code" = 308 ]
check "to https://r.test/p?x" grep -qi '^Location: https://r.test/p?x' \
    "$T/w.hdr"
code=$(curl -sS -m 10 -o /dev/null -w '%{http_code}' \
    -H 'Host: a.test' "http://127.0.0.1:$PPORT/")
check "a workload without it is proxied on cleartext ($code)" [ "$code" = 200 ]
code=$(curl -sS -m 10 -o /dev/null -w '%{http_code}' \
    -H 'Host: b.test' "http://127.0.0.1:$HPORT/.well-known/acme-challenge/tok")
check "the challenge path is not redirected: 404 of orchd's ($code)" \
    [ "$code" = 404 ]
check "no redirected workload was started" sh -c \
    "[ ! -s '$T/r.starts' ] &&
    ! '$ORCHCTL' -s '$SOCK' show workloads | grep -E '^(b|r) ' | grep -q running"

# a certificate swapped by a reload while a long download goes on
code=$(curl_s b.test / -o /dev/null -w '%{http_code}')
old=$(fingerprint b.test)
curl_s b.test "/big?3000000" --http1.1 --limit-rate 300k -o "$T/big.out" \
    -w '%{http_code}' >"$T/big.code" 2>&1 &
dl=$!
sleep 2
mv "$P/b.test.crt" "$P/b.old.crt"
cert b.test
kill -HUP "$ORCHD_PID"
new_served() { [ "$(fingerprint b.test)" != "$old" ]; }
check "after the reload a new handshake gets b.test's new certificate" \
    wait_for 10 new_served
check "the download begun before goes on" alive "$dl"
wait_for 30 dead "$dl"
wait "$dl"
check "and arrives whole, 200 ($(cat "$T/big.code"), $(wc -c <"$T/big.out") bytes)" \
    sh -c "[ \"\$(cat '$T/big.code')\" = 200 ] &&
    [ \$(wc -c <'$T/big.out') -eq 3000000 ]"

check "orchd is still running" alive "$ORCHD_PID"
check "no sanitizer report" sh -c "! grep -q 'Sanitizer' '$T/orchd.log'"
e2e_done
