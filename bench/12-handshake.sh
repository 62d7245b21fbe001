#!/bin/bash
# 12. New TLS handshakes.  Full handshakes (TLS 1.3, no session cache,
# no tickets, a server name each time), one 1-byte answer each
# (Connection: close), by bench/hsload.c: -c workers (4), each a loop of
# connect, handshake, GET /1, read to the end, close; pinned on the client
# CPU.  Four targets, all with the same ECDSA P-256 certificate for
# bench.localhost in front of the backend nginx of part 1, which serves
# the one byte:
#
#	base	orchd built from the baseline (BENCH_BASE_BUILD=DIR, or
#		BENCH_BASE=REF built here, default main): "listen on ... tls
#		certificate F key F", the path with no ClientHello peek
#	plain	this tree, the same listener (the peek on every connection)
#	acme	this tree, "listen on ... tls acme" with an acme block, the
#		host's certificate stored where the parent loads the ACME
#		certificates at start (STATE-certs/HOST.crt and .key): the
#		per-host context chosen by the peeked server name
#	nginx	nginx, 1 worker, "listen ... ssl", tickets and cache off
#
# $ROUNDS rounds (BENCH_ROUNDS, 5; quick 2) of $SECS seconds per target,
# the targets taking turns (A B C D, then B C D A, ...): handshakes per
# second, and the server's CPU per handshake (utime + stime of all its
# processes over the run, divided by the handshakes).  Ratios against
# base: the medians', and each round's, for the spread.
#
# With BENCH_HS_PERF=1, then a perf record (cpu-clock, call graphs) of
# the plain target's gatewayd under the same load: the share of its time
# in the peek's functions (hello_read, clienthello_parse, acme_cert_ctx;
# without frame pointers, self time) and in the system calls; and a
# perf stat of the system calls per handshake, base against plain and acme.
#
#	bash bench/12-handshake.sh [--quick]
[ "${1:-}" = --quick ] && export BENCH_QUICK=1
. "$(dirname "$0")/lib.sh"
if [ -n "$QUICK" ]; then ROUNDS=${BENCH_ROUNDS:-2}; else ROUNDS=${BENCH_ROUNDS:-5}; fi
HS_WORKERS=${BENCH_HS_WORKERS:-4}

bench_init
bench_build
HEAD_BUILD=$BUILD
HS_BASE=$((PORT0 + 41))
HS_PLAIN=$((PORT0 + 42))
HS_ACME=$((PORT0 + 43))
HS_NGX=$((PORT0 + 44))
check_ports "$BACKEND_PORT" "$HS_BASE" "$HS_PLAIN" "$HS_ACME" "$HS_NGX"
cc -O2 -Wall -o "$B/hsload" "$BENCH_DIR/hsload.c" -lssl -lcrypto ||
    die "cannot build hsload (libssl-dev)"

# the baseline's binaries
if [ -n "${BENCH_BASE_BUILD:-}" ]; then
	BASE_BUILD=$BENCH_BASE_BUILD
else
	ref=${BENCH_BASE:-main}
	mkdir -p "$B/base"
	(cd "$TOP" && git archive "$ref") | tar -x -C "$B/base" ||
	    die "cannot export $ref"
	(cd "$B/base" && make -s all >"$B/base.log" 2>&1) ||
	    die "the baseline $ref did not build"
	BASE_BUILD=$B/base/build
fi
[ -x "$BASE_BUILD/orchd" ] || die "no $BASE_BUILD/orchd"
# the figures mean less on a busy machine: say how busy it was
out "# part 12: load average at start $(cut -d' ' -f1-3 /proc/loadavg), nice $(nice)"
out "# part 12: base $BASE_BUILD ($(git -C "$BASE_BUILD/.." rev-parse \
    --short HEAD 2>/dev/null || echo "${BENCH_BASE:-main}")), head $HEAD_BUILD"

D=$B/hs
mkdir -p "$D/nginx"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$D/key.pem" -out "$D/cert.pem" -days 90 \
    -subj "/CN=$HOSTNAME_BENCH" -addext "subjectAltName=DNS:$HOSTNAME_BENCH" \
    2>/dev/null || die "openssl"
chmod 0600 "$D/key.pem"

start_backend
printf k >"$B/www/1"
chmod 0644 "$B/www/1"

cat >"$D/nginx/nginx.conf" <<EOF
worker_processes 1;
pid $D/nginx/nginx.pid;
error_log $D/nginx/error.log warn;
events { worker_connections 16384; }
http {
	access_log off;
	client_body_temp_path $D/nginx/body;
	proxy_temp_path $D/nginx/proxy;
	fastcgi_temp_path $D/nginx/fastcgi;
	upstream backend {
		server 127.0.0.1:$BACKEND_PORT;
		keepalive 64;
	}
	server {
		listen 127.0.0.1:$HS_NGX ssl backlog=4096;
		ssl_certificate $D/cert.pem;
		ssl_certificate_key $D/key.pem;
		ssl_session_tickets off;
		ssl_session_cache off;
		location / {
			proxy_pass http://backend;
			proxy_http_version 1.1;
			proxy_set_header Connection "";
			proxy_set_header Host \$host;
			proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
		}
	}
}
EOF
taskset -c "$SCPU" nginx -p "$D/nginx" -c "$D/nginx/nginx.conf" \
    -g 'daemon off;' 2>>"$D/nginx/error.log" &
NGX_PID=$!
track "$NGX_PID"

# hs_conf NAME PORT LISTENER...: an orchd.conf in $D/NAME with that TLS
# listener alone (the plain one of orchd_globals dropped)
hs_conf() {
	d=$D/$1
	port=$2
	shift 2
	mkdir -p "$d"
	{
		orchd_globals "$d" | sed "/^listen on 127.0.0.1 port $GW_PORT\$/d"
		echo "listen on 127.0.0.1 port $port $*"
		orchd_backend_workload
	} >"$d/orchd.conf"
}

hs_conf base "$HS_BASE" "tls certificate \"$D/cert.pem\" key \"$D/key.pem\""
hs_conf plain "$HS_PLAIN" "tls certificate \"$D/cert.pem\" key \"$D/key.pem\""
hs_conf acme "$HS_ACME" "tls acme"
# an ACME server that is never reached: the stored certificate is good
# for 90 days, renewed at two thirds of that
printf 'acme {\n\tdirectory "https://127.0.0.1:1/dir"\n}\n' >>"$D/acme/orchd.conf"
# where the parent loads stored certificates: STATE-certs, STATE being the
# directory of the database's directory
install -d -m 0700 "$D/acme/orchd-certs"
install -m 0600 "$D/cert.pem" "$D/acme/orchd-certs/$HOSTNAME_BENCH.crt"
install -m 0600 "$D/key.pem" "$D/acme/orchd-certs/$HOSTNAME_BENCH.key"

ORCHD=$BASE_BUILD/orchd ORCHCTL=$BASE_BUILD/orchctl start_orchd "$D/base"
BASE_PIDS=$(orchd_procs)
BASE_GW=$(orchd_child gateway)
ORCHD=$HEAD_BUILD/orchd ORCHCTL=$HEAD_BUILD/orchctl start_orchd "$D/plain"
PLAIN_PIDS=$(orchd_procs)
PLAIN_GW=$(orchd_child gateway)
ORCHD=$HEAD_BUILD/orchd ORCHCTL=$HEAD_BUILD/orchctl start_orchd "$D/acme"
ACME_PIDS=$(orchd_procs)
ACME_GW=$(orchd_child gateway)
NGX_PIDS=$(descendants "$NGX_PID")

for p in $HS_BASE $HS_PLAIN $HS_ACME $HS_NGX; do
	wait_for 10 curl -sfk -o /dev/null --http1.1 \
	    --resolve "$HOSTNAME_BENCH:$p:127.0.0.1" \
	    "https://$HOSTNAME_BENCH:$p/1" || die "port $p does not answer"
done
# the acme target serves the stored certificate, not one it issued
curl -sk -o /dev/null -w '%{certs}' --http1.1 \
    --resolve "$HOSTNAME_BENCH:$HS_ACME:127.0.0.1" \
    "https://$HOSTNAME_BENCH:$HS_ACME/1" 2>/dev/null >"$D/acme.served" || true
b=$(curl -sk --http1.1 --resolve "$HOSTNAME_BENCH:$HS_ACME:127.0.0.1" \
    "https://$HOSTNAME_BENCH:$HS_ACME/1")
[ "$b" = k ] || die "the acme target answers '$b', not the 1-byte body"

target_port() {
	case $1 in
	base) echo "$HS_BASE" ;;
	plain) echo "$HS_PLAIN" ;;
	acme) echo "$HS_ACME" ;;
	nginx) echo "$HS_NGX" ;;
	esac
}
target_pids() {
	case $1 in
	base) echo $BASE_PIDS ;;
	plain) echo $PLAIN_PIDS ;;
	acme) echo $ACME_PIDS ;;
	nginx) echo $NGX_PIDS ;;
	esac
}
hs_run() {	# hs_run TARGET SECONDS OUT
	taskset -c "$CCPU" "$B/hsload" -c "$HS_WORKERS" -t "$2" \
	    -H "$HOSTNAME_BENCH" -p /1 "$(target_port "$1")" >"$3" 2>&1
}

TARGETS="base plain acme nginx"
for t in $TARGETS; do
	hs_run "$t" 1 "$B/warm"
done

RAW=$D/hs.raw
: >"$RAW"
note "part 12: $ROUNDS round(s) x ${SECS}s x 4 targets, $HS_WORKERS client workers"
order=$TARGETS
for r in $(seq 1 "$ROUNDS"); do
	for t in $order; do
		pids=$(target_pids "$t")
		c0=$(cpu_ticks $pids)
		hs_run "$t" "$SECS" "$B/hs.out"
		c1=$(cpu_ticks $pids)
		n=$(sed -n 's/.*n=\([0-9]*\) .*/\1/p' "$B/hs.out")
		ok=$(sed -n 's/.* ok=\([0-9]*\) .*/\1/p' "$B/hs.out")
		hps=$(sed -n 's/.* hps=\([0-9.]*\).*/\1/p' "$B/hs.out")
		cpu=$(awk -v d=$((c1 - c0)) -v n="${n:-0}" -v hz="$HZ" \
		    'BEGIN {printf "%.1f", n ? d / hz * 1e6 / n : 0}')
		echo "$t $r ${hps:-0} $cpu ${n:-0} ${ok:-0}" >>"$RAW"
		[ "${n:-0}" = "${ok:-0}" ] || note "  $t: $((n - ok)) not 2xx"
		note "  round $r $t: ${hps:-0} handshakes/s, $cpu us/handshake"
	done
	# the next round starts with the next target
	order="$(echo $order | cut -d' ' -f2-) $(echo $order | cut -d' ' -f1)"
done

# what acmed and the gateway said of ACME: the stored certificate loaded
# and installed, and nothing asked of the (unreachable) ACME server
grep '^\(gateway: \)\{0,1\}acme:' "$D/acme/orchd.log" >"$D/acme.said" 2>/dev/null
# and acmed's view: the host's certificate, no failure, no order
"$HEAD_BUILD/orchctl" -s "$D/acme/orchd.sock" show certificates \
    >>"$D/acme.said" 2>&1

med() { awk -v t="$1" -v k="$2" '$1 == t {print $k}' "$RAW" | median; }
# by_round TARGET COLUMN: each round's TARGET / base
by_round() {
	awk -v t="$1" -v k="$2" '{ v[$1, $2] = $k }
	    END { for (i = 1; (("base", i) in v); i++)
		printf "%.3f ", v[t, i] / v["base", i] }' "$RAW"
}
spread() {	# min..max of by_round
	by_round "$1" "$2" | tr ' ' '\n' | sed '/^$/d' | sort -g |
	    awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%s..%s", lo, hi}'
}
out ""
out "== 12. New TLS handshakes (TLS 1.3, P-256, full, 1-byte answer), $HS_WORKERS client workers, ${SECS}s x $ROUNDS rounds (medians), client on CPU $CCPU, servers on CPU $SCPU"
out "   raw: target round handshakes/s cpu_us/handshake handshakes 2xx"
sed 's/^/   raw: /' "$RAW" >>"$RESULTS"
out "$(printf '%-6s %9s %10s   %s' target hs/s cpu_us/hs 'vs base: hs/s (by round) | cpu (by round)')"
for t in $TARGETS; do
	extra=
	if [ "$t" != base ]; then
		extra="$(ratio "$(med "$t" 3)" "$(med base 3)")x ($(spread "$t" 3))"
		extra="$extra | $(ratio "$(med "$t" 4)" "$(med base 4)")x ($(spread "$t" 4))"
	fi
	out "$(printf '%-6s %9.0f %10s   %s' "$t" "$(med "$t" 3)" "$(med "$t" 4)" "$extra")"
done
out "   the acme target's log of ACME over the run, then orchctl show certificates:"
sed 's/^/     /' "$D/acme.said" | while IFS= read -r l; do out "$l"; done

[ -n "${BENCH_HS_PERF:-}" ] || exit 0
command -v perf >/dev/null 2>&1 || die "no perf"
note "part 12: perf record of the plain target's gatewayd, ${SECS}s"
hs_run plain "$SECS" "$B/hs.perf.out" &
hs=$!
perf record -q -e cpu-clock -F 5000 -g -p "$PLAIN_GW" -o "$B/perf.data" \
    -- sleep "$((SECS - 1))" >/dev/null 2>&1
wait "$hs"
out ""
out "== 12. perf record -e cpu-clock -g of the plain target's gatewayd, $(sed -n 's/.*n=\([0-9]*\) .*/\1/p' "$B/hs.perf.out") handshakes"
out "   inclusive (children), the peek's functions and the handshake's:"
perf report -i "$B/perf.data" --children --sort sym --stdio -g none 2>/dev/null |
    grep -E 'hello_|clienthello|tls_conn_start|tls_accept|SSL_do_handshake|conn_hello_watch|acme_cert_ctx|epoll_ctl|__x64_sys_recvfrom|tcp_recvmsg' |
    head -n 20 | sed 's/^/     /' | while IFS= read -r l; do out "$l"; done
out "   self, the first 25:"
perf report -i "$B/perf.data" --no-children --sort dso,sym --stdio -g none \
    2>/dev/null | grep -v '^#' | sed '/^$/d' | head -n 25 | sed 's/^/     /' |
    while IFS= read -r l; do out "$l"; done

# system calls per handshake: the peek's recv and its epoll_ctl calls
EVS=raw_syscalls:sys_enter,syscalls:sys_enter_epoll_ctl,syscalls:sys_enter_recvfrom,syscalls:sys_enter_read,syscalls:sys_enter_write,syscalls:sys_enter_epoll_wait
out "   system calls per handshake (perf stat, ${SECS}s each): all, epoll_ctl, recvfrom, read, write, epoll_wait"
for t in base plain acme; do
	case $t in
	base) gwp=$BASE_GW ;;
	plain) gwp=$PLAIN_GW ;;
	acme) gwp=$ACME_GW ;;
	esac
	# counted for as long as the client runs: every handshake it made
	perf stat -x, -e "$EVS" -p "$gwp" -o "$B/stat.$t" -- \
	    taskset -c "$CCPU" "$B/hsload" -c "$HS_WORKERS" -t "$SECS" \
	    -H "$HOSTNAME_BENCH" -p /1 "$(target_port "$t")" >"$B/hs.stat.out" 2>&1
	n=$(sed -n 's/.*n=\([0-9]*\) .*/\1/p' "$B/hs.stat.out")
	out "$(awk -F, -v t="$t" -v n="$n" '
	    $1 ~ /^[0-9]+$/ { v = v sprintf(" %6.2f", $1 / n) }
	    END { printf "     %-6s%s   (%d handshakes)\n", t, v, n }' "$B/stat.$t")"
done
