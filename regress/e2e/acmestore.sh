#!/bin/sh
# The stored certificates (orchd/acme_relay.c), without a CA: pairs are
# planted in STATE-certs as a crash would leave them and orchd started.
# A committed store (HOST.crt.new, its key renamed or not) is finished,
# the new pair served; an uncommitted key (HOST.key.new alone) goes, the
# old pair served; a certificate of a host no workload routes is not
# sent to the gateways.  No key is ever served with another's
# certificate.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pebble.subr"
e2e_init "$1"
trap 'e2e_cleanup' EXIT
acme_need
acme_pki || fail_always "the test's CA is made"
# no pebble: acmed cannot order, the stored certificates are all there is
PEBPORT=1

CERTS=$T/orchd-certs
mkdir -p "$CERTS"
chmod 0700 "$CERTS"
# pair NAME HOST SERIAL: a self-signed certificate and its key, P/NAME.*
pair() {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	    -keyout "$P/$1.key" -out "$P/$1.crt" -days 2 -subj "/CN=$2" \
	    -set_serial "$3" -addext "subjectAltName=DNS:$2" 2>/dev/null
}
plant() {	# plant PAIR FILE-BASE
	cp "$P/$1.crt" "$CERTS/$2.crt"
	cp "$P/$1.key" "$CERTS/$2.key"
}
A=app.s8acme.test
B=x.pr.s8acme.test
G=gone.s8acme.test
pair a-old $A 4097 && pair a-new $A 4098 && pair b-old $B 4099 &&
    pair b-new $B 4100 && pair g $G 4101 ||
    fail_always "the test's certificates are made"

# A: committed, its key already renamed: new key, old certificate, and
# the new certificate as HOST.crt.new
plant a-old $A
cp "$P/a-new.key" "$CERTS/$A.key"
cp "$P/a-new.crt" "$CERTS/$A.crt.new"
# B: uncommitted, the new key alone
plant b-old $B
cp "$P/b-new.key" "$CERTS/$B.key.new"
# G: routed by no workload
plant g $G
chmod 0600 "$CERTS"/*

# served HOST SERIAL: the gateway serves it, asked for 10 s at most (a
# host without a certificate has its handshake held)
served() {
	[ "$(timeout 10 openssl s_client -connect "127.0.0.1:$SPORT" \
	    -servername "$1" </dev/null 2>/dev/null |
	    openssl x509 -noout -serial 2>/dev/null)" = "$2" ]
}

acme_conf >"$T/orchd.conf"
start_orchd_or_exit

check "A: the committed store is finished: HOST.crt is the new one" \
    cmp -s "$CERTS/$A.crt" "$P/a-new.crt"
check "... with the new key" cmp -s "$CERTS/$A.key" "$P/a-new.key"
check "... HOST.crt.new is gone" [ ! -e "$CERTS/$A.crt.new" ]
check "... the gateway serves the new certificate (serial 1002)" \
    served $A serial=1002
check "... the log says the store was finished" \
    grep -q "acme: $A: the store a stop cut short is finished" "$T/orchd.log"
check "B: the uncommitted key is removed" [ ! -e "$CERTS/$B.key.new" ]
check "... the old pair is kept" \
    sh -c "cmp -s '$CERTS/$B.crt' '$P/b-old.crt' && cmp -s '$CERTS/$B.key' '$P/b-old.key'"
check "... and served (serial 1003)" served $B serial=1003
check "G, routed by no workload, is not sent to the gateway" \
    sh -c "! grep -q 'acme: $G: certificate installed' '$T/orchd.log'"
check "... A is" grep -q "acme: $A: certificate installed" "$T/orchd.log"
check "... G's files are kept, for when it is routed again" \
    [ -e "$CERTS/$G.crt" ]

# a reload that routes A nowhere: its certificate no longer served; and
# routed again, served again, from the store
cp "$T/orchd.conf" "$T/with-a.conf"
grep -v "host \"$A\"" "$T/with-a.conf" >"$T/orchd.conf"
check "a reload without A's host" quiet "$ORCHCTL" -s "$SOCK" reload
check "... A's certificate is no longer served" sh -c "! \
    timeout 10 openssl s_client -connect 127.0.0.1:$SPORT -servername $A \
    </dev/null 2>/dev/null | openssl x509 -noout -serial 2>/dev/null |
    grep -q serial=1002"
check "... the log says so" \
    grep -q "acme: $A: routed nowhere now" "$T/orchd.log"
check "... B still is (serial 1003)" served $B serial=1003
cp "$T/with-a.conf" "$T/orchd.conf"
check "a reload with A's host again" quiet "$ORCHCTL" -s "$SOCK" reload
check "... A is served again (serial 1002)" served $A serial=1002
stop_orchd
e2e_done
