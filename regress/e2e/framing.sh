#!/bin/sh
# The framing table, end to end: each raw request below goes through the
# real gatewayd, and gets the status in its row.  A rejected request must
# also close the connection and reach the workload not at all (the
# workload logs every request it gets, by path); an accepted one must
# reach it.  The parser's own table is regress/unit/test_http.c; this one
# checks that the gateway acts on its verdicts.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports PORT WPORT
mkdir -p "$T/log" "$T/bin"
testhttp_bin
: >"$T/req.log"
chmod 0666 "$T/req.log"
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
listen on 127.0.0.1 port $PORT

workload "app" {
	host "app.test"
	command "$T/bin/testhttp serve $WPORT $T/starts $T/req.log"
	port $WPORT
	wake timeout 10s
}
CONF

check "orchd starts" start_orchd
check "the workload wakes" sh -c "curl -sS -m 20 -H 'Host: app.test' \
    http://127.0.0.1:$PORT/ | grep -q hello"

H='Host: app.test\r\n'
CL='Connection: close\r\n'
N=0
NFWD=0

# row EXPECTED-STATUS FORWARDED(yes|no) DESCRIPTION PRINTF-FORMAT
# The request's path is /fN, N the row's number: the workload's log says
# whether it arrived.
row() {
	N=$((N + 1))
	want=$1 fwd=$2 desc=$3 fmt=$4
	path=/f$N
	[ "$fwd" = yes ] && NFWD=$((NFWD + 1))
	# shellcheck disable=SC2059
	printf "$fmt" "$path" | "$T/bin/testhttp" raw "$PORT" 3 >"$T/out" 2>&1
	got=$(head -n 1 "$T/out" | sed -n 's/^HTTP\/1\.1 \([0-9]*\).*/\1/p')
	n=$(grep -c " $path\$" "$T/req.log")
	if [ "$fwd" = no ]; then
		if [ "$got" = "$want" ] && [ "$n" -eq 0 ] &&
		    grep -q '^closed$' "$T/out" &&
		    tr -d '\r' <"$T/out" | grep -qi '^connection: close$'; then
			ok "$N $desc: $want, closed, nothing forwarded"
		else
			fail "$N $desc: want $want closed unforwarded, got" \
			    "'$got' forwarded $n"
			head -c 300 "$T/out"
		fi
	else
		if [ "$got" = "$want" ] && [ "$n" -eq 1 ]; then
			ok "$N $desc: $want, forwarded"
		else
			fail "$N $desc: want $want forwarded, got '$got'" \
			    "forwarded $n"
			head -c 300 "$T/out"
		fi
	fi
}

long() { head -c "$1" /dev/zero | tr '\0' "$2"; }

# accepted, normalised
row 200 yes "a plain GET" "GET %s HTTP/1.1\r\n$H$CL\r\n"
row 200 yes "Content-Length with a leading zero is decimal" \
    "POST %s HTTP/1.1\r\n${H}Content-Length: 010\r\n$CL\r\n0123456789"
row 200 yes "optional whitespace around a value" \
    "GET %s HTTP/1.1\r\n${H}X-A: \t v \t\r\n$CL\r\n"
row 200 yes "lower-case field names" \
    "GET %s HTTP/1.1\r\nhost: app.test\r\nconnection: close\r\n\r\n"
row 200 yes "absolute-form agreeing with Host" \
    "GET http://app.test%s HTTP/1.1\r\n$H$CL\r\n"
row 200 yes "a valid chunked body with an extension and a trailer" \
    "POST %s HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n$CL\r\n5;x=y\r\nhello\r\n0\r\nT: v\r\n\r\n"
row 200 yes "HTTP/1.0 with Host" "GET %s HTTP/1.0\r\n$H\r\n"
row 200 yes "leading empty line before the request" \
    "\r\nGET %s HTTP/1.1\r\n$H$CL\r\n"

# Content-Length and Transfer-Encoding
row 400 no "Content-Length with Transfer-Encoding" \
    "POST %s HTTP/1.1\r\n${H}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
row 400 no "Transfer-Encoding before Content-Length" \
    "POST %s HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n"
row 400 no "last coding not chunked" \
    "POST %s HTTP/1.1\r\n${H}Transfer-Encoding: chunked, gzip\r\n\r\n"
row 501 no "a coding but chunked (gzip)" \
    "POST %s HTTP/1.1\r\n${H}Transfer-Encoding: gzip\r\n\r\n"
row 400 no "chunked twice in one field" \
    "POST %s HTTP/1.1\r\n${H}Transfer-Encoding: chunked, chunked\r\n\r\n"
row 400 no "chunked in two fields" \
    "POST %s HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n"
row 400 no "an unknown coding before chunked" \
    "POST %s HTTP/1.1\r\n${H}Transfer-Encoding: cow, chunked\r\n\r\n"
row 400 no "Transfer-Encoding with a vertical tab" \
    "POST %s HTTP/1.1\r\n${H}Transfer-Encoding:\013chunked\r\n\r\n"
row 400 no "Transfer-Encoding in HTTP/1.0" \
    "POST %s HTTP/1.0\r\n${H}Transfer-Encoding: chunked\r\n\r\n"
row 400 no "differing Content-Lengths" \
    "POST %s HTTP/1.1\r\n${H}Content-Length: 1\r\nContent-Length: 0\r\n\r\nx"
row 400 no "repeated identical Content-Length" \
    "POST %s HTTP/1.1\r\n${H}Content-Length: 5\r\nContent-Length: 5\r\n\r\nhello"
row 400 no "a Content-Length list" \
    "POST %s HTTP/1.1\r\n${H}Content-Length: 5, 6\r\n\r\nhello"
row 400 no "Content-Length with a sign" \
    "POST %s HTTP/1.1\r\n${H}Content-Length: +5\r\n\r\nhello"
row 400 no "a negative Content-Length" \
    "POST %s HTTP/1.1\r\n${H}Content-Length: -1\r\n\r\n"
row 400 no "a hexadecimal Content-Length" \
    "POST %s HTTP/1.1\r\n${H}Content-Length: 0x5\r\n\r\nhello"
row 400 no "a space inside Content-Length" \
    "POST %s HTTP/1.1\r\n${H}Content-Length: 1 0\r\n\r\n0123456789"
row 400 no "an overflowing Content-Length" \
    "POST %s HTTP/1.1\r\n${H}Content-Length: 99999999999999999999999\r\n\r\n"
row 400 no "an empty Content-Length" \
    "POST %s HTTP/1.1\r\n${H}Content-Length:\r\n\r\n"
row 400 no "Transfer_Encoding spelt with an underscore" \
    "POST %s HTTP/1.1\r\n${H}Transfer_Encoding: chunked\r\n\r\n"
row 400 no "Connection naming Content-Length" \
    "POST %s HTTP/1.1\r\n${H}Connection: Content-Length\r\nContent-Length: 5\r\n\r\nhello"

# field syntax
row 400 no "whitespace between a field name and its colon" \
    "GET %s HTTP/1.1\r\nHost : app.test\r\n\r\n"
row 400 no "a tab before the colon" \
    "POST %s HTTP/1.1\r\n${H}Content-Length\t: 5\r\n\r\nhello"
row 400 no "obs-fold" "GET %s HTTP/1.1\r\n${H}X-A: a\r\n b\r\n\r\n"
row 400 no "a first field line starting with a space" \
    "GET %s HTTP/1.1\r\n Host: app.test\r\n\r\n"
row 400 no "a bare CR in a value" "GET %s HTTP/1.1\r\n${H}X-A: a\rb\r\n\r\n"
row 400 no "a bare LF ending a line" "GET %s HTTP/1.1\n${H}\r\n"
row 400 no "NUL in a value" "GET %s HTTP/1.1\r\n${H}X-A: a\000b\r\n\r\n"
row 400 no "a control byte in a value" "GET %s HTTP/1.1\r\n${H}X-A: a\001b\r\n\r\n"
row 400 no "DEL in a value" "GET %s HTTP/1.1\r\n${H}X-A: a\177b\r\n\r\n"
row 400 no "an invalid field-name character" "GET %s HTTP/1.1\r\n${H}Fo@: x\r\n\r\n"
row 400 no "an empty field name" "GET %s HTTP/1.1\r\n$H: x\r\n\r\n"
row 400 no "a field line without a colon" "GET %s HTTP/1.1\r\n${H}Content-Length 10\r\n\r\n"
row 400 no "a non-ASCII byte in a field name" "GET %s HTTP/1.1\r\n${H}X\303\251: v\r\n\r\n"

# Host and the target
row 400 no "no Host in HTTP/1.1" "GET %s HTTP/1.1\r\n\r\n"
row 400 no "two Host fields" "GET %s HTTP/1.1\r\n${H}Host: other.test\r\n\r\n"
row 400 no "a Host with a space" "GET %s HTTP/1.1\r\nHost: app test\r\n\r\n"
row 400 no "a Host list" "GET %s HTTP/1.1\r\nHost: app.test, other.test\r\n\r\n"
row 400 no "absolute-form disagreeing with Host" \
    "GET http://other.test%s HTTP/1.1\r\n$H\r\n"
row 400 no "a space inside the target" "GET %s/a b HTTP/1.1\r\n$H\r\n"
row 400 no "two spaces after the method" "GET  %s HTTP/1.1\r\n$H\r\n"
row 400 no "an HTTP/0.9 request line" "GET %s\r\n\r\n"
row 404 no "HTTP/1.0 without Host: no route, closed" "GET %s HTTP/1.0\r\n\r\n"

# versions
row 200 yes "HTTP/1.2 is served as HTTP/1.1" "GET %s HTTP/1.2\r\n$H$CL\r\n"
row 505 no "HTTP/2.0 in a request line" "GET %s HTTP/2.0\r\n$H\r\n"
row 505 no "the HTTP/2 preface" "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n%s"
row 400 no "a malformed version" "GET %s HTTP/1.10\r\n$H\r\n"

# limits
row 414 no "a request line over 8 KiB" "GET %s?$(long 8200 a) HTTP/1.1\r\n$H\r\n"
row 431 no "a field over 8 KiB" "GET %s HTTP/1.1\r\n${H}X-A: $(long 8200 b)\r\n\r\n"
row 431 no "a header section over 32 KiB" \
    "GET %s HTTP/1.1\r\n$H$(for i in 1 2 3 4 5; do printf 'X-%s: %s\\r\\n' $i "$(long 7000 c)"; done)\r\n"
row 431 no "more than 100 fields" \
    "GET %s HTTP/1.1\r\n$H$(i=0; while [ $i -lt 101 ]; do printf 'X-%d: v\\r\\n' $i; i=$((i + 1)); done)\r\n"

# chunked bodies
row 400 no "a chunk size with 0x" \
    "POST %s HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n"
row 400 no "a chunk size with a sign" \
    "POST %s HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n+5\r\nhello\r\n0\r\n\r\n"
row 400 no "a chunk size overflow" \
    "POST %s HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\nfffffffffffffffff\r\nx\r\n0\r\n\r\n"
row 400 no "a bare semicolon extension" \
    "POST %s HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n5;\r\nhello\r\n0\r\n\r\n"
row 400 no "a control byte in an extension" \
    "POST %s HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n5;a=\001\r\nhello\r\n0\r\n\r\n"
row 400 no "more chunk data than declared" \
    "POST %s HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n4\r\nSEE-THIS\r\n0\r\n\r\n"
row 400 no "a bare LF after a chunk size" \
    "POST %s HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n5\nhello\r\n0\r\n\r\n"
row 400 no "a malformed trailer" \
    "POST %s HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n0\r\nX : y\r\n\r\n"

# Expect
row 417 no "an unknown expectation" \
    "POST %s HTTP/1.1\r\n${H}Expect: 101-continue\r\nContent-Length: 1\r\n\r\nx"

check "at least 40 framing cases ran ($N)" [ "$N" -ge 40 ]
check "nothing but the $NFWD accepted rows reached the workload" \
    [ "$(grep -c ' /f[0-9]*$' "$T/req.log")" -eq "$NFWD" ]

# what the workload saw of a normalised request
printf 'GET /headers HTTP/1.1\r\nhost: app.test\r\nX-A: \t v \t\r\nConnection: close\r\n\r\n' |
    "$T/bin/testhttp" raw "$PORT" 3 | tr -d '\r' |
    sed '1,/^$/d' >"$T/norm.out"
check "optional whitespace is trimmed" grep -q '^X-A: v$' "$T/norm.out"
check "the workload is not told the client's Connection" \
    sh -c "! grep -qi '^connection:' '$T/norm.out'"

# an absolute-form target: the workload is told the authority alone
printf 'GET http://app.test:80/headers?x=1 HTTP/1.1\r\nHost: app.test:80\r\nConnection: close\r\n\r\n' |
    "$T/bin/testhttp" raw "$PORT" 3 | tr -d '\r' |
    sed '1,/^$/d' >"$T/abs.out"
check "absolute form: X-Forwarded-Host is the authority, without the path" \
    grep -qix 'X-Forwarded-Host: app.test:80' "$T/abs.out"

check "orchctl still answers" "$ORCHCTL" -s "$SOCK" show summary
stop_orchd; st=$STATUS
check "orchd stops cleanly (status $st)" [ "$st" -eq 0 ]
ORCHD_PID=
e2e_done
