#!/bin/sh
# The API key and its guessers.  A key under 128 bits is refused by
# orchd -n and at start, from a key file (the message names the file) as
# from ORCHD_KEY (it names the variable); 32 hex digits and 22 base64
# characters are enough.  Wrong keys from one address are capped across
# every gateway ("prefork 2"): of 200 at once, at most the cap get 401,
# the rest 429 with Retry-After; then the right key from that address
# is 429 too (attack_gateway.sh), while another address's works.  Every
# wait bounded.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports GW API
KEY=$(openssl rand -hex 16)
CAP=10		# AUTHLIM_CAP, reaperd/reaper.h
mkdir -p "$T/log"

write_conf() {	# write_conf
	conf_head >"$T/orchd.conf"
	cat >>"$T/orchd.conf" <<CONF
prefork 2
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
CONF
}
set_key() {	# set_key TEXT: the key file holds TEXT and a newline
	printf '%s\n' "$1" >"$T/api.key"
	chmod 0600 "$T/api.key"
}
refused() {	# refused DESCRIPTION PATTERN: orchd -n fails, saying PATTERN
	"$ORCHD" -n -f "$T/orchd.conf" >"$T/n.out" 2>&1
	st=$?
	check "$1 is refused by orchd -n (status $st)" [ "$st" -ne 0 ]
	check "... saying: $2" grep -q -- "$2" "$T/n.out"
}
accepted() {	# accepted DESCRIPTION
	"$ORCHD" -n -f "$T/orchd.conf" >"$T/n.out" 2>&1
	st=$?
	check "$1 is accepted by orchd -n (status $st)" [ "$st" -eq 0 ]
	[ "$st" -eq 0 ] || cat "$T/n.out"
}
write_conf

# -- the key's strength
set_key 0123456789abcdef0123456789abcde
refused "a key file of 31 hex digits" \
    "api key file $T/api.key: a hex key must be at least 32 digits"
set_key hunter2
refused "a key file of 7 characters" "api key file $T/api.key: "
set_key 'a long passphrase, but with spaces'
refused "a key file of other characters" \
    "api key file $T/api.key: .*must be 1 to 1024 printable"
set_key 'correct.horse.battery.staple'
refused "a key file neither hex nor base64" \
    "api key file $T/api.key: the key must be hex or base64"
set_key q5Xn0dO1Qe2Wc8Zr7YbT4
refused "a key file of 21 base64 characters" \
    "api key file $T/api.key: a base64 key must be at least 22"
set_key "$(openssl rand -hex 16)"
accepted "a key file of 32 hex digits"
set_key "$(openssl rand -base64 16)"
accepted "a key file of base64 (openssl rand -base64 16)"
set_key q5Xn0dO1Qe2Wc8Zr7YbT4g
accepted "a key file of 22 base64 characters"
ORCHD_KEY=short-key "$ORCHD" -n -f "$T/orchd.conf" >"$T/n.out" 2>&1
st=$?
check "ORCHD_KEY=short-key is refused (status $st)" [ "$st" -ne 0 ]
check "... saying so" grep -q \
    "ORCHD_KEY: a base64 key must be at least 22 characters" "$T/n.out"
ORCHD_KEY=$(openssl rand -hex 15) "$ORCHD" -n -f "$T/orchd.conf" \
    >"$T/n.out" 2>&1
st=$?
check "ORCHD_KEY of 30 hex digits is refused (status $st)" [ "$st" -ne 0 ]
check "... saying so" grep -q \
    "ORCHD_KEY: a hex key must be at least 32 digits" "$T/n.out"
ORCHD_KEY=$(openssl rand -hex 16) "$ORCHD" -n -f "$T/orchd.conf" \
    >"$T/n.out" 2>&1
st=$?
check "ORCHD_KEY of 32 hex digits is accepted (status $st)" [ "$st" -eq 0 ]
set_key 0123456789abcdef
"$ORCHD" -d -f "$T/orchd.conf" >"$T/start.out" 2>&1 &
sp=$!
check "orchd does not start with a short key" wait_gone "$sp" 10
check "... saying so" grep -q "api key file $T/api.key: a hex key" \
    "$T/start.out"

# -- wrong keys, capped for both gateways at once
set_key "$KEY"
start_orchd_or_exit
URL=http://127.0.0.1:$API
code() {	# code [curl args...]: the status alone
	curl -s -m 30 -o /dev/null -w '%{http_code}' "$@"
}
faster() {	# faster SECONDS LIMIT
	awk -v t="$1" -v l="$2" 'BEGIN { exit !(t < l) }'
}
c=$(code -H "Authorization: Bearer $KEY" "$URL/v1/workloads")
check "the key works (got $c)" [ "$c" = 200 ]
WRONG=$(openssl rand -hex 16)
# (the x keeps the line ends from the command substitution)
HEAD=$(printf 'GET /v1/workloads HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer %s\r\nConnection: close\r\n\r\nx' "$WRONG")
HEAD=${HEAD%x}
"$BUILD/regress/testhttp" burst "$API" 200 60 "$HEAD" >"$T/burst.out"
n=$(wc -l <"$T/burst.out" | tr -d ' ')
n401=$(grep -c '^401 ' "$T/burst.out")
n429=$(grep -c '^429 ' "$T/burst.out")
n429ra=$(grep -Ec '^429 [1-9][0-9]*$' "$T/burst.out")
check "200 wrong keys at once are all answered ($n401 401, $n429 429)" \
    [ "$n" -eq 200 -a $((n401 + n429)) -eq 200 ]
check "... at most $CAP of them 401, for both gateways together" \
    [ "$n401" -ge 1 -a "$n401" -le "$CAP" ]
check "... every 429 with a Retry-After ($n429ra of $n429)" \
    [ "$n429ra" -eq "$n429" ]
check "... of at most a minute" sh -c \
    "! awk '\$1 == 429 && \$2 > 60' '$T/burst.out' | grep -q ."
[ $((n401 + n429)) -eq 200 ] || sort "$T/burst.out" | uniq -c
t=$(curl -s -m 10 -D "$T/h429" -o /dev/null -w '%{time_total}' \
    -H "Authorization: Bearer $WRONG" "$URL/v1/workloads")
check "one more wrong key: 429 ($(head -n 1 "$T/h429" | tr -d '\r'))" \
    grep -q '^HTTP/1.1 429' "$T/h429"
check "... with Retry-After" grep -qi '^Retry-After: [1-9]' "$T/h429"
check "... at once (${t}s)" faster "$t" 0.5
c=$(code -H "Authorization: Bearer $WRONG" --interface 127.0.0.2 \
    "$URL/v1/workloads")
check "another address is not capped (got $c)" [ "$c" = 401 ]
c=$(code --interface 127.0.0.2 -H "Authorization: Bearer $KEY" \
    "$URL/v1/workloads")
check "the right key from another address: 200 (got $c)" [ "$c" = 200 ]
# past the cap, not even a right key is looked at (attack_gateway.sh
# waits for the cap's minute to end)
for i in 1 2 3; do
	t=$(curl -s -m 10 -o "$T/right.out" -w '%{http_code} %{time_total}' \
	    -H "Authorization: Bearer $KEY" "$URL/v1/workloads")
	check "the right key from the capped address: 429 at once ($t)" \
	    sh -c "[ '${t%% *}' = 429 ]"
done

# -- a reload with a short key is refused, the old key kept
set_key 0123456789abcdef
"$ORCHCTL" -s "$SOCK" reload >"$T/reload.out" 2>&1
st=$?
check "a reload with a short key is refused (status $st)" [ "$st" -ne 0 ]
check "... and the log says why" grep -q \
    "api key file $T/api.key: a hex key must be at least 32" "$T/orchd.log"
c=$(code --interface 127.0.0.2 -H "Authorization: Bearer $KEY" \
    "$URL/v1/workloads")
check "... the key in use still works (got $c)" [ "$c" = 200 ]

stop_orchd; st=$STATUS
check "orchd stops cleanly (status $st)" [ "$st" -eq 0 ]
ORCHD_PID=
e2e_done
