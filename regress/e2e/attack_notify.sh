#!/bin/sh
# Attacks on the webhooks ("notify", orchd.conf(5)), replayed against a
# live orchd; each check fails if the attack works.  A webhook is a
# request orchd makes, so a server-side request forgery: a URL to
# loopback without "notify allow loopback" (by address or by a name that
# resolves there), to the unspecified address
# (which reaches the host itself) even with it, to an IPv4-mapped or
# IPv6 loopback; a receiver that redirects to another local service (no
# redirect is followed), that answers a huge body (read to a bound), or
# that never answers (each try bounded, the daemon never waits), an
# https one whose certificate no trusted root signs (never sent).  The
# key: a symbolic link, a file others may read, the API's own key, all
# refused as the API key file is.  A URL with a CR, LF or space (a
# header injected into the request), with a user part (a host that is
# not the one it seems): refused at configuration.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
command -v python3 >/dev/null || skip "no python3"

ports GW API P_BAD R_LOOP R_ANY R_HUGE R_HANG R_REDIR R_TARGET R_TLS

KEY=0123456789abcdef0123456789abcdef$$
HKEY=fedcba9876543210fedcba9876543210h$$
mkdir -p "$T/log"
printf '%s\n' "$KEY" >"$T/api.key"
printf '%s\n' "$HKEY" >"$T/hook.key"
chmod 0600 "$T/api.key" "$T/hook.key"
ORCHD_NOTIFY_BACKOFF_MS=200
export ORCHD_NOTIFY_BACKOFF_MS

RECV="$(dirname "$0")/hookrecv.py"
RPIDS=
recv() {	# recv PORT NAME MODE [ARG]
	: >"$T/$2.log"
	python3 "$RECV" "$1" "$T/hook.key" "$T/$2.log" "$3" ${4:-} \
	    2>>"$T/recv.err" &
	RPIDS="$RPIDS $!"
	wait_for 10 sh -c "ss -Htln 'sport = :$1' | grep -q ."
}
trap 'for p in $RPIDS; do kill $p 2>/dev/null; done; e2e_cleanup' EXIT

head_conf() {	# head_conf [LINE...]: all but the notify lines' URLs
	conf_head
	cat <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
notify key file "${KEYFILE:-$T/hook.key}"
CONF
	for x in "$@"; do
		echo "$x"
	done
	echo 'workload "bad" {'
	conf_end 'host "bad.test"' 'command "/bin/false"' "port $P_BAD" \
	    'wake timeout 5s'
}
refused_n() {	# refused_n PATTERN: orchd -n refuses $T/n.conf, saying so
	! "$ORCHD" -n -f "$T/n.conf" >"$T/n.out" 2>&1 &&
	    grep -q -- "$1" "$T/n.out"
}

# -- the key file, as the API key file
ln -sf "$T/hook.key" "$T/link.key"
KEYFILE=$T/link.key head_conf "notify \"http://127.0.0.1:$R_LOOP/\"" \
    >"$T/n.conf"
check "a key file that is a symbolic link is refused" \
    refused_n "notify key file $T/link.key"
cp "$T/hook.key" "$T/world.key"
chmod 0644 "$T/world.key"
KEYFILE=$T/world.key head_conf "notify \"http://127.0.0.1:$R_LOOP/\"" \
    >"$T/n.conf"
check "a key file others may read is refused" \
    refused_n "notify key file $T/world.key is readable by others"
KEYFILE=$T/api.key head_conf "notify \"http://127.0.0.1:$R_LOOP/\"" \
    >"$T/n.conf"
check "the API's own key as the webhooks' is refused" \
    refused_n "the same key as the API's"
# -- the URL
printf '%s\n' "$(head_conf)" \
    "notify \"http://127.0.0.1:$R_LOOP/a$(printf '\r')
X-Injected: 1\"" >"$T/n.conf"
# the lexer refuses a control character in a quoted string, as on main;
# the URL's own check (visible ASCII only) is behind it
check "a URL with CR LF (a header injected) is refused" \
    refused_n "invalid character 0x0d in quoted string"
head_conf "notify \"http://127.0.0.1:$R_LOOP/a X-Injected: 1\"" >"$T/n.conf"
check "a URL with a space is refused" refused_n "notify: not an http"
head_conf "notify \"http://hooks.example@127.0.0.1:$R_LOOP/\"" >"$T/n.conf"
check "a URL with a user part is refused" refused_n "notify: not an http"
head_conf "notify \"file:///etc/shadow\"" >"$T/n.conf"
check "a URL that is not http or https is refused" \
    refused_n "notify: not an http"

# -- live: loopback without the allow
recv "$R_LOOP" loop ok
recv "$R_ANY" any ok
head_conf "notify \"http://127.0.0.1:$R_LOOP/hook\" failed" \
    "notify \"http://[::ffff:127.0.0.1]:$R_LOOP/mapped\" failed" \
    "notify \"http://[::1]:$R_LOOP/v6\" failed" \
    "notify \"http://localhost:$R_LOOP/name\" failed" \
    >"$T/orchd.conf"
start_orchd_or_exit -v
curl -s -m 30 -o /dev/null -H "Host: bad.test" "http://127.0.0.1:$GW/"
check "without notify allow loopback, the refusal is logged" \
    wait_for 20 grep -q "refused: the address is loopback" "$T/orchd.log"
sleep 1
n=$(grep -c . "$T/loop.log")
check "... and the loopback receiver got nothing ($n requests)" [ "$n" -eq 0 ]
m=$(curl -sS -m 30 -H "Authorization: Bearer $KEY" \
    "http://127.0.0.1:$API/metrics" |
    awk '$1 == "orchd_notify_refused_total" { print $2 }')
check "... counted in /metrics, a name that resolves there too ($m)" \
    [ "${m:-0}" -ge 4 ]

# -- live: with the allow, what a receiver may still not do
recv "$R_HUGE" huge huge
recv "$R_HANG" hang slow 1000
recv "$R_TARGET" target ok
recv "$R_REDIR" redir redirect "http://127.0.0.1:$R_TARGET/"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$T/tls.key" -out "$T/tls.crt" -days 2 -subj "/CN=127.0.0.1" \
    -addext "subjectAltName=IP:127.0.0.1" 2>/dev/null
HOOKRECV_TLS="$T/tls.crt:$T/tls.key" recv "$R_TLS" tls ok
head_conf 'notify allow loopback' \
    "notify \"http://0.0.0.0:$R_ANY/any\" failed" \
    "notify \"http://127.0.0.1:$R_HUGE/huge\" failed" \
    "notify \"http://127.0.0.1:$R_HANG/hang\" failed" \
    "notify \"http://127.0.0.1:$R_REDIR/redir\" failed" \
    "notify \"https://127.0.0.1:$R_TLS/tls\" failed" \
    >"$T/orchd.conf"
"$ORCHCTL" -s "$SOCK" reload >/dev/null 2>&1
check "the configuration with notify allow loopback is loaded" [ $? -eq 0 ]
curl -s -m 30 -o /dev/null -H "Host: bad.test" "http://127.0.0.1:$GW/"
check "the redirecting receiver is tried" wait_for 30 \
    grep -q '^ok failed' "$T/redir.log"
check "... its redirect to another local service is not followed" \
    wait_for 20 grep -q "answered 302 (a redirect: not followed)" \
    "$T/orchd.log"
check "the huge answer is tried" wait_for 30 grep -q '^ok failed' \
    "$T/huge.log"
check "the receiver that never answers is tried" wait_for 30 \
    grep -q '^ok failed' "$T/hang.log"
t0=$(now_ms)
"$ORCHCTL" -s "$SOCK" show summary >/dev/null
t1=$(now_ms)
check "... and meanwhile orchctl answers ($((t1 - t0)) ms)" \
    [ $((t1 - t0)) -lt 2000 ]
check "the unspecified address (the host itself) is refused even so" \
    wait_for 20 grep -q "refused: the address is unspecified" \
    "$T/orchd.log"
check "an https receiver whose certificate no root signs is refused" \
    wait_for 20 grep -q "notify https://127.0.0.1:$R_TLS/tls: failed event: 127.0.0.1: .*certificate" \
    "$T/orchd.log"
np=$(child notify)
rss=$(rss_kb "$np")
check "notifyd read the huge answer only to its bound (${rss:-?} KiB)" \
    [ "${rss:-999999}" -lt 40000 ]
check "each is given up after its tries" wait_for 90 sh -c \
    "[ \$(grep -c 'failed event dropped after 6 tries' '$T/orchd.log') -ge 4 ]"
n=$(grep -c . "$T/target.log")
check "the redirect's target got nothing ($n requests)" [ "$n" -eq 0 ]
n=$(grep -c . "$T/tls.log")
check "... and got no event ($n requests)" [ "$n" -eq 0 ]
n=$(grep -c . "$T/any.log")
check "the receiver behind 0.0.0.0 got nothing ($n requests)" [ "$n" -eq 0 ]
n=$(grep -c '^ok' "$T/hang.log")
check "the one that never answers was tried 6 times, no more ($n)" \
    [ "$n" -eq 6 ]
check "orchd is still running" alive "$ORCHD_PID"
stop_orchd
check "orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]
e2e_done
