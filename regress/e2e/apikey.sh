#!/bin/sh
# The API key and its guessers.  A key under 128 bits is refused by
# orchd -n and at start, from a key file (the message names the file) as
# from ORCHD_KEY (it names the variable); 32 hex digits and 22 base64
# characters are enough.  Wrong keys from one address are capped across
# every gateway ("prefork 2"): of 200 at once, at most the cap get 401,
# the rest 429 with Retry-After; the right key from that address still
# works at once.  Every wait bounded.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

base=$((20000 + $$ % 12000))
GW=$(free_port "$base")
API=$(free_port $((GW + 1)))
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

e2e_done
