#!/bin/sh
# Attacks on the pages of show workloads (issue 38), replayed against a
# live orchd: GET /v1/workloads with a limit that is negative, zero,
# 10^12, not a number or empty, and an after= cursor of 10 KB (414:
# the request line is too long), of 2 KB and of 64 bytes (one more than
# a name), with control bytes (raw and
# percent-encoded), a path, a slash or a quote: each a 400 with an
# error that names the parameter, never a page; and on the control
# socket, IMSG_CTL_SHOW_PAGE with a limit of 0 and of 10^9, and with a
# cursor that is no workload's name: each a FAIL, no item (an
# unterminated cursor is cut to a name by the dispatch table).  orchd runs
# on after each, and still answers a page.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports GW API WP0
KEY=e2e-key-$$-attackpaging-0123
mkdir -p "$T/log"
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
{
	conf_head
	cat <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
CONF
	for i in 1 2 3; do
		printf 'workload "ap%d" {\n\thost "ap%d.test"\n' "$i" "$i"
		printf '\tcommand "/bin/sleep 1000"\n\taddress "127.0.78.1"\n'
		printf '\tport %d\n}\n' $((WP0 + i))
	done
} >"$T/orchd.conf"
start_orchd_or_exit
URL=http://127.0.0.1:$API

# refused QUERY WORD: a 400 whose error names WORD, and orchd runs on
refused() {
	curl -s -m 10 -o "$T/body" -w '%{http_code}' \
	    -H "Authorization: Bearer $KEY" "$URL/v1/workloads?$1" \
	    >"$T/code" 2>/dev/null
	[ "$(cat "$T/code")" = 400 ] && grep -q "\"$2: " "$T/body" &&
	    alive "$ORCHD_PID"
}
for q in "limit=-1" "limit=0" "limit=1000000000000" "limit=abc" \
    "limit=" "limit=10001" "limit=1&limit=-5"; do
	check "GET /v1/workloads?$q: 400, limit named" refused "$q" limit
done
# a 10 KB target is longer than any request line the gateway reads
BIG=$(head -c 10240 /dev/zero | tr '\0' a)
curl -s -m 10 -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $KEY" \
    "$URL/v1/workloads?after=$BIG" >"$T/code" 2>/dev/null
check "after= a 10 KB cursor: 414, no page" [ "$(cat "$T/code")" = 414 ]
check "after= a 2 KB cursor: 400, after named" refused \
    "after=$(head -c 2048 /dev/zero | tr '\0' a)" after
check "after= 64 bytes, one more than a name: 400" refused \
    "after=$(head -c 64 /dev/zero | tr '\0' b)" after
check "after=%00: 400" refused "after=ap1%00" after
check "after=%01%1b: 400" refused "after=%01%1b" after
check "after=../../etc: 400" refused "after=../../etc" after
check "after=a%2fb (an encoded slash): 400" refused "after=a%2fb" after
check "after=a%22b (a quote): 400" refused "after=a%22b" after

# raw control bytes in the cursor, as no client library sends them
python3 - "$API" "$KEY" >"$T/raw" 2>&1 <<'EOF'
import socket, sys
out = []
for cur in (b"a\x01b", b"a\x7fb", b"a\tb"):
	s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), 10)
	s.settimeout(10)
	s.sendall(b"GET /v1/workloads?after=" + cur + b" HTTP/1.1\r\n"
	    b"Host: x\r\nAuthorization: Bearer " + sys.argv[2].encode() +
	    b"\r\nConnection: close\r\n\r\n")
	r = b""
	try:
		while len(r) < 65536:
			b = s.recv(4096)
			if not b:
				break
			r += b
	except OSError:
		pass
	s.close()
	out.append(r.split(b"\r\n", 1)[0].decode("latin-1"))
print("\n".join(out))
EOF
check "after= with raw control bytes: 400 each" \
    [ "$(grep -c ' 400 ' "$T/raw")" = 3 ]
check "... orchd runs on" alive "$ORCHD_PID"

# the control socket: IMSG_CTL_SHOW_PAGE (its number from msg.h, as the
# build knows it), a bad limit or a cursor that is no name
SRC=$(cd "$(dirname "$0")/../.." && pwd)
PAGE_TYPE=$(awk '/IMSG_CTL_OK = 100/ {n = 100; on = 1; next}
    on && /IMSG_PROC_PEER/ {exit}
    on && /^\tIMSG_/ {n++; if ($1 == "IMSG_CTL_SHOW_PAGE,") print n}' \
    "$SRC/common/msg.h")
CTLV=$(awk '/define ORCHD_CTL_VERSION/ {print $3}' "$SRC/common/msg.h")
python3 - "$SOCK" "${PAGE_TYPE:-0}" "$CTLV" >"$T/ctl" 2>&1 <<'EOF'
import socket, struct, sys
path, ptype, ver = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def ask(name, limit):
	s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
	s.settimeout(10)
	s.connect(path)
	body = name.ljust(64, b"\0")[:64] + struct.pack("=II", limit, 0)
	s.sendall(struct.pack("=IIHHII", ptype, 20 + len(body), 0, 0, ver,
	    1) + body)
	types = []
	buf = b""
	try:
		while True:
			b = s.recv(65536)
			if not b:
				break
			buf += b
			while len(buf) >= 20:
				t, l = struct.unpack("=II", buf[:8])
				if len(buf) < l:
					break
				types.append(t)
				buf = buf[l:]
			if types and types[-1] in (100, 101, 102):
				break
	except OSError:
		pass
	s.close()
	return types
for name, limit in ((b"", 0), (b"", 1000000000), (b"../x", 5),
    (b"a" * 64, 5), (b"a\x01", 5), (b"", 2)):
	print(name[:8], limit, ask(name, limit))
EOF
# 101 is IMSG_CTL_FAIL, 102 IMSG_CTL_END, 108 IMSG_CTL_WORKLOAD
check "control: a page of 0: FAIL, no item" grep -q "^b'' 0 \[101\]$" "$T/ctl"
check "control: a page of 10^9: FAIL, no item" \
    grep -q "^b'' 1000000000 \[101\]$" "$T/ctl"
check "control: after ../x: FAIL" grep -q "^b'../x' 5 \[101\]$" "$T/ctl"
# the table ends a name at its last byte: 63 a's, a name, after which
# come all three
check "control: after 64 bytes unterminated: cut to a name, 3 and END" \
    grep -q "^b'aaaaaaaa' 5 \[108, 108, 108, 102\]$" "$T/ctl"
check "control: after a control byte: FAIL" \
    grep -q "^b'a.x01' 5 \[101\]$" "$T/ctl"
check "control: a good page of 2: two items and END" \
    grep -q "^b'' 2 \[108, 108, 102\]$" "$T/ctl"
check "orchd still runs" alive "$ORCHD_PID"
curl -sS -m 10 -H "Authorization: Bearer $KEY" "$URL/v1/workloads?limit=2" \
    >"$T/page"
check "... and answers a page" python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))
assert [w["name"] for w in o["workloads"]] == ["ap1", "ap2"], o
assert o["next"] == "ap2", o' "$T/page"
stop_orchd
check "orchd stops cleanly" [ "$STATUS" = 0 ]
e2e_done
