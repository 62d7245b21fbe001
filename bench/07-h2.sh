#!/bin/bash
# 7. HTTP/2 over TLS.  h2load (-c 10 -m 10, 1 thread, pinned on the
# client CPU) against gatewayd, nginx (1 worker, "listen ... ssl http2")
# and haproxy (1 thread, "alpn h2,http/1.1"), each a TLS listener with the
# same certificate (P-256) in front of the same backend nginx over
# HTTP/1.1 keep-alive.  $ROUNDS rounds (BENCH_ROUNDS), each a run of
# $SECS seconds per target after a second of warm-up, the targets in turn:
# requests per second, p99 from h2load's per-request log, CPU per request
# (utime + stime of the proxy's processes over the run, divided by the
# requests answered); the table has each target's median over the rounds.
#
#	bench/07-h2.sh [--quick]
[ "${1:-}" = --quick ] && export BENCH_QUICK=1
. "$(dirname "$0")/lib.sh"

bench_init
bench_build
command -v h2load >/dev/null || die "no h2load (package nghttp2-client)"
H2_GW=$((PORT0 + 31))
H2_NGX=$((PORT0 + 32))
H2_HAP=$((PORT0 + 33))
check_ports "$BACKEND_PORT" "$GW_PORT" "$H2_GW" "$H2_NGX" "$H2_HAP"

D=$B/h2
mkdir -p "$D/nginx"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$D/key.pem" -out "$D/cert.pem" -days 2 \
    -subj "/CN=$HOSTNAME_BENCH" -addext "subjectAltName=DNS:$HOSTNAME_BENCH" \
    2>/dev/null || die "openssl"
cat "$D/cert.pem" "$D/key.pem" >"$D/both.pem"
chmod 0600 "$D/key.pem" "$D/both.pem"

start_backend
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
	keepalive_requests 100000000;
	http2_max_requests 100000000;
	upstream backend {
		server 127.0.0.1:$BACKEND_PORT;
		keepalive 64;
	}
	server {
		listen 127.0.0.1:$H2_NGX ssl http2 backlog=4096;
		ssl_certificate $D/cert.pem;
		ssl_certificate_key $D/key.pem;
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
cat >"$D/haproxy.cfg" <<EOF
global
	nbthread 1
	maxconn 8000
defaults
	mode http
	option http-keep-alive
	option forwardfor
	timeout connect 10s
	timeout client 60s
	timeout server 60s
frontend bench
	bind 127.0.0.1:$H2_HAP ssl crt $D/both.pem alpn h2,http/1.1
	default_backend backend
backend backend
	http-reuse safe
	server s1 127.0.0.1:$BACKEND_PORT
EOF
taskset -c "$SCPU" haproxy -db -f "$D/haproxy.cfg" >>"$D/haproxy.log" 2>&1 &
HAP_PID=$!
track "$HAP_PID"
GW=$D/gw
mkdir -p "$GW"
{
	orchd_globals "$GW"
	echo "listen on 127.0.0.1 port $H2_GW tls certificate \"$D/cert.pem\" key \"$D/key.pem\""
	orchd_backend_workload
} >"$GW/orchd.conf"
start_orchd "$GW"
for p in $H2_NGX $H2_HAP $H2_GW; do
	wait_for 10 curl -sfk --http2 -o /dev/null \
	    --resolve "$HOSTNAME_BENCH:$p:127.0.0.1" \
	    "https://$HOSTNAME_BENCH:$p/" || die "port $p does not answer over h2"
done
NGX_PIDS=$(descendants "$NGX_PID")
ORCHD_PIDS=$(orchd_procs)

target_port() {
	case $1 in
	gatewayd) echo "$H2_GW" ;;
	nginx) echo "$H2_NGX" ;;
	haproxy) echo "$H2_HAP" ;;
	esac
}
target_pids() {
	case $1 in
	gatewayd) echo $ORCHD_PIDS ;;
	nginx) echo $NGX_PIDS ;;
	haproxy) echo $HAP_PID ;;
	esac
}

RAW=$D/h2.raw
: >"$RAW"
for r in $(seq 1 "$ROUNDS"); do
for t in gatewayd nginx haproxy; do
	port=$(target_port "$t")
	pids=$(target_pids "$t")
	c0=$(cpu_ticks $pids)
	taskset -c "$CCPU" h2load -t 1 -c 10 -m 10 -D "$SECS" \
	    --warm-up-time=1 --connect-to=127.0.0.1:$port \
	    --log-file="$D/$t.log" "https://$HOSTNAME_BENCH:$port/" \
	    >"$D/$t.out" 2>&1
	c1=$(cpu_ticks $pids)
	n=$(awk '/^requests:/ {print $8}' "$D/$t.out")
	rps=$(awk '/^finished in/ {print $4}' "$D/$t.out")
	p99=$(awk '{print $3}' "$D/$t.log" | pctl 99)
	cpu=$(awk -v d=$((c1 - c0)) -v n="${n:-0}" -v hz="$HZ" \
	    'BEGIN {printf "%.2f", n ? d / hz * 1e6 / n : 0}')
	echo "$t ${rps:-0} ${p99:-0} $cpu ${n:-0} $r" >>"$RAW"
	note "  round $r, $t: $rps rps, p99 $p99 us, $cpu us/req"
done
done

val() { awk -v t="$1" -v k="$2" '$1 == t {print $k}' "$RAW" | median; }
out ""
out "== 7. HTTP/2 over TLS: h2load -c 10 -m 10 -t 1 for ${SECS}s, $ROUNDS rounds (medians), 1 worker each, client on CPU $CCPU, servers on CPU $SCPU"
out "   raw: target rps p99_us proxy_cpu_us/req requests round"
sed 's/^/   raw: /' "$RAW" >>"$RESULTS"
out "$(printf '%-9s %9s %8s %9s   %s' target rps p99_us cpu_us/rq \
    'gatewayd vs nginx | vs haproxy (rps, p99, cpu)')"
for t in gatewayd nginx haproxy; do
	extra=
	if [ "$t" = gatewayd ]; then
		extra="rps $(ratio "$(val gatewayd 2)" "$(val nginx 2)")x"
		extra="$extra $(ratio "$(val gatewayd 2)" "$(val haproxy 2)")x"
		extra="$extra | p99 $(ratio "$(val gatewayd 3)" "$(val nginx 3)")x"
		extra="$extra $(ratio "$(val gatewayd 3)" "$(val haproxy 3)")x"
		extra="$extra | cpu $(ratio "$(val gatewayd 4)" "$(val nginx 4)")x"
		extra="$extra $(ratio "$(val gatewayd 4)" "$(val haproxy 4)")x"
	fi
	out "$(printf '%-9s %9.0f %8s %9s   %s' "$t" "$(val "$t" 2)" \
	    "$(val "$t" 3)" "$(val "$t" 4)" "$extra")"
done
