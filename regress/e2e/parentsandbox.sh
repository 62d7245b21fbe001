#!/bin/sh
# The root parent's room (orchd-security(7), SECURITY CONSIDERATIONS): the
# spawner, "orchd: spawner", forks and execs the process workloads and
# the TLS keypair check, so that the parent itself forks nothing after
# start and runs under a seccomp filter of its own.  The parent is
# filtered, the spawner is not; a workload is the spawner's child, runs
# without a filter and serves (a busybox httpd); a reload checks its TLS
# keypairs through the spawner, refusing a bad one; SIGUSR1 reopens the
# logs; a start with 40 KB of environment goes through; suspend stops
# the workload through the spawner; a spawner killed ends orchd,
# non-zero, with nothing left behind; and run as _orchd, not root, the
# parent is filtered the same and a workload still wakes and stops.
# Loopback only, every wait bounded.
#
#	sh regress/e2e/parentsandbox.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
command -v openssl >/dev/null || skip "no openssl"
command -v busybox >/dev/null || skip "no busybox"

port_base 23
ports GW TLSP WEB ENVP
mkdir -p "$T/log" "$T/pki" "$T/www"
P=$T/pki
echo "hello from busybox" >"$T/www/index.html"
chmod 0755 "$T/www" "$T/pki"
chmod 0644 "$T/www/index.html"

# a self-signed keypair for NAME: key NAME
key() {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	    -keyout "$P/$1.key" -out "$P/$1.crt" -days 2 -subj "/CN=$1" \
	    2>/dev/null
	chmod 0600 "$P/$1.key"
}
key one.test
key two.test

# 40 variables of 1000 bytes: a start request above imsg's default 16 KB
bigenv() {
	i=10
	v=$(head -c 1000 /dev/zero | tr '\0' x)
	while [ $i -lt 50 ]; do
		printf 'env "BIG%d=%s"\n' $i "$v"
		i=$((i + 1))
	done
}

# conf LISTENER-KEY: the configuration, with that key for the TLS listener
conf() {
	conf_head
	cat <<CONF
listen on 127.0.0.1 port $GW
listen on 127.0.0.1 port $TLSP tls certificate "$P/one.test.crt" key "$1"

workload "psweb" {
	host "web.test"
	command "busybox httpd -f -p 127.0.0.1:$WEB -h $T/www"
	port $WEB
CONF
	conf_end
	cat <<CONF
workload "psenv" {
	host "env.test"
	command "busybox httpd -f -p 127.0.0.1:$ENVP -h $T/www"
	port $ENVP
$(bigenv)
CONF
	conf_end
}
conf "$P/one.test.key" >"$T/orchd.conf"
start_orchd_or_exit

ctl() { "$ORCHCTL" -s "$SOCK" "$@"; }
status_of() {	# status_of PID FIELD: a line of /proc/PID/status, its value
	sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status" 2>/dev/null
}
ppid_of() { status_of "$1" PPid; }

check "the parent runs under a seccomp filter (Seccomp: 2)" \
    [ "$(status_of "$ORCHD_PID" Seccomp)" = 2 ]
check "... of at least one program" \
    [ "$(status_of "$ORCHD_PID" Seccomp_filters)" -ge 1 ]
sp=$(child spawner)
check "the spawner runs, titled orchd: spawner ($sp)" [ -n "$sp" ]
check "the spawner is root" [ "$(status_of "$sp" Uid | cut -f1)" = 0 ]
check "the spawner has no seccomp filter" \
    [ "$(status_of "$sp" Seccomp)" = 0 ]

code=$(curl -sS -m 20 -H 'Host: web.test' -o "$T/body.out" \
    -w '%{http_code}' "http://127.0.0.1:$GW/")
check "a request wakes the process workload and gets 200 ($code)" \
    [ "$code" = 200 ]
check "busybox httpd answers it" grep -q "hello from busybox" "$T/body.out"
wl=$(sed -n 's/.*workload psweb: started .* pid \([0-9]*\).*/\1/p' \
    "$T/orchd.log" | tail -n 1)
check "the workload's process is the spawner's child ($wl)" \
    [ -n "$wl" -a "$(ppid_of "$wl")" = "$sp" ]
check "the workload runs without a seccomp filter" \
    [ "$(status_of "$wl" Seccomp)" = 0 ]
check "the workload is not root" \
    sh -c "[ \"\$(sed -n 's/^Uid:[[:space:]]*//p' /proc/$wl/status | cut -f1)\" != 0 ]"
ctl show summary >"$T/summary" 2>&1
check "show summary lists the spawner, its pid and the workload it runs" \
    grep -Eq "^spawner +$sp +[^ ]+ +1 " "$T/summary"
kill -USR1 "$ORCHD_PID"
check "SIGUSR1 reopens the log files under the filter" \
    wait_for 10 grep -q "log files reopened" "$T/orchd.log"
ctl wake psenv >/dev/null 2>&1
ew=$(sed -n 's/.*workload psenv: started .* pid \([0-9]*\).*/\1/p' \
    "$T/orchd.log" | tail -n 1)
check "a workload with 40 KB of environment starts ($ew)" \
    sh -c "[ -n '$ew' ] && tr '\\0' '\\n' </proc/$ew/environ |
    grep -q '^BIG49=x'"
ctl suspend psenv >/dev/null 2>&1
ctl suspend psweb >/dev/null 2>&1
check "orchctl suspend stops it through the spawner" wait_for 10 dead "$wl"
check "and the log says it was killed or exited" \
    wait_for 5 grep -Eq "workload psweb: pid $wl (killed|exited)" \
    "$T/orchd.log"

# TLS keypairs at reload: the spawner starts gatewayd -n for the parent
actives() { grep -c 'configuration [0-9]* active' "$T/orchd.log"; }
n=$(actives)
conf "$P/one.test.key" >"$T/orchd.conf"
ctl reload >"$T/reload.out" 2>&1
check "a reload with a good TLS keypair is taken" \
    wait_for 10 sh -c "[ \$(grep -c 'configuration [0-9]* active' \
    '$T/orchd.log') -gt $n ]"
conf "$P/two.test.key" >"$T/orchd.conf"
ctl reload >"$T/reload.out" 2>&1
check "a reload with a mismatched key is refused" \
    grep -q "listen on 127.0.0.1.*$P/one.test.crt, $P/two.test.key" \
    "$T/orchd.log"
answers() { ctl show summary >/dev/null 2>&1; }
check "... and the daemon runs on" answers
check "no keypair check is left over" \
    sh -c "! pgrep -P $sp >/dev/null"
conf "$P/one.test.key" >"$T/orchd.conf"

# the spawner lost: orchd ends, non-zero, and takes everything with it
code=$(curl -sS -m 20 -H 'Host: web.test' -o /dev/null \
    -w '%{http_code}' "http://127.0.0.1:$GW/")
check "the workload wakes again ($code)" [ "$code" = 200 ]
wl=$(sed -n 's/.*workload psweb: started .* pid \([0-9]*\).*/\1/p' \
    "$T/orchd.log" | tail -n 1)
kids=$(pgrep -P "$ORCHD_PID" | tr '\n' ' ')
kill -KILL "$sp"
orchd_status
check "a spawner killed ends orchd non-zero (status $STATUS)" \
    [ "$STATUS" -ne 0 ]
check "the parent names the lost spawner" \
    grep -Eq "lost child: spawner \\(pid $sp\\)" "$T/orchd.log"
left=
for p in $kids $wl; do
	wait_gone "$p" 8 || left="$left $p"
done
check "no child or workload is left ($left)" [ -z "$left" ]
ORCHD_PID=

# not root, as in development: the same processes, the same filter
if command -v setpriv >/dev/null; then
	ports NGW NWEB
	NR=$T/nr
	mkdir -p "$NR/log" "$NR/db"
	chown -R _orchd "$NR"
	cat >"$NR/orchd.conf" <<CONF
user "_orchd"
chroot "/var/empty"
database "$NR/db/orchd.db"
socket "$NR/orchd.sock"
$(conf_instance)
log directory "$NR/log"
listen on 127.0.0.1 port $NGW
workload "psnr" {
	host "nr.test"
	command "busybox httpd -f -p 127.0.0.1:$NWEB -h $T/www"
	port $NWEB
}
CONF
	setpriv --reuid=_orchd --regid="$(id -g _orchd)" --clear-groups \
	    "$ORCHD" -d -f "$NR/orchd.conf" >"$NR/orchd.log" 2>&1 &
	ORCHD_PID=$!
	check "not root: orchd starts" \
	    wait_for 20 "$ORCHCTL" -s "$NR/orchd.sock" show summary
	check "not root: the parent is filtered too" \
	    [ "$(status_of "$ORCHD_PID" Seccomp)" = 2 ]
	code=$(curl -sS -m 20 -H 'Host: nr.test' -o /dev/null \
	    -w '%{http_code}' "http://127.0.0.1:$NGW/")
	check "not root: a process workload wakes ($code)" [ "$code" = 200 ]
	nw=$(sed -n 's/.*workload psnr: started .* pid \([0-9]*\).*/\1/p' \
	    "$NR/orchd.log" | tail -n 1)
	stop_orchd
	check "not root: SIGTERM, orchd exits 0 (status $STATUS)" \
	    [ "$STATUS" -eq 0 ]
	check "not root: the workload is gone ($nw)" \
	    sh -c "[ -n '$nw' ] && ! kill -0 '$nw' 2>/dev/null"
	check "not root: no forbidden system call" \
	    sh -c "! grep -q 'forbidden system call' '$NR/orchd.log'"
	[ "$STATUS" -eq 0 ] || tail -n 20 "$NR/orchd.log"
	ORCHD_PID=
else
	echo "skipped not root: no setpriv"
fi

check "no sanitizer report" \
    sh -c "! grep -Eq 'AddressSanitizer|runtime error' '$T/orchd.log'"
check "no forbidden system call" \
    sh -c "! grep -q 'forbidden system call' '$T/orchd.log'"
e2e_done
