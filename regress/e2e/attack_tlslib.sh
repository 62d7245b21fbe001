#!/bin/sh
# runtimed's libtls, opened with dlopen only under -T (runtimed/tlslib.c,
# orchd-security.7): the parent gives -T only when orchd.conf names a
# swarm manager at start, and the library is the soname found at build
# time, looked up as the libraries every daemon links are, in orchd's own
# environment, which only root sets.  Nothing else may make runtimed map
# it or any library of someone else's choosing: here a process workload
# of orchd.conf and one of the API set LD_LIBRARY_PATH to a
# directory holding a planted libtls of that soname (it writes a file
# when loaded), a request wakes each, a reload runs, and the API asks for
# a swarm workload; runtimed maps no libtls, libssl or libcrypto, nothing
# from that directory, and the planted library never ran.  Loopback
# only, every wait bounded.
#
#	sh regress/e2e/attack_tlslib.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
command -v cc >/dev/null 2>&1 || skip "no cc to build the planted library"
SONAME=$(objdump -p "$(cc -print-file-name=libtls.so)" 2>/dev/null |
    awk '$1 == "SONAME" { print $2 }')
[ -n "$SONAME" ] || skip "no libtls soname"

port_base 64
ports GW API P1 P2
KEY=e2e-key-$$-tlslib-0123456789abcd
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
testhttp_bin
EVIL=$T/evil
mkdir -p "$EVIL"
: >"$T/ran"
chmod 0666 "$T/ran"
cat >"$EVIL/evil.c" <<EOF
#include <fcntl.h>
#include <unistd.h>
__attribute__((constructor)) static void
evil(void)
{
	int	fd;

	if ((fd = open("$T/ran", O_WRONLY | O_APPEND)) != -1) {
		(void)write(fd, "ran\n", 4);
		(void)close(fd);
	}
}
EOF
cc -shared -fPIC -Wl,-soname,"$SONAME" -o "$EVIL/$SONAME" "$EVIL/evil.c" ||
    skip "cannot build the planted library"
chmod 0755 "$T" "$EVIL"
chmod 0644 "$EVIL/$SONAME"
{
	conf_head
	cat <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
api allow process
workload "tl" {
	host "tl.test"
	command "$T/bin/testhttp serve $P1"
	port $P1
	env "LD_LIBRARY_PATH=$EVIL"
}
CONF
} >"$T/orchd.conf"
start_orchd_or_exit

api() {	# api METHOD PATH [BODY]: the status, the body in $T/a.body
	curl -sS -m 30 -X "$1" -H "Authorization: Bearer $KEY" \
	    ${3:+-H 'Content-Type: application/json' --data-binary "$3"} \
	    -o "$T/a.body" -w '%{http_code}' "http://127.0.0.1:$API$2" \
	    2>/dev/null
}
get() {
	curl -sS -m 20 -H "Host: $1" -o /dev/null -w '%{http_code}' \
	    "http://127.0.0.1:$GW/" 2>/dev/null
}
RT=$(child runtime)
clean() {	# runtimed maps none of libtls, libssl, libcrypto, $EVIL
	! grep -q "libtls\.so\|libssl\.so\|libcrypto\.so\|$EVIL" \
	    "/proc/$RT/maps"
}
check "runtimed (pid $RT) maps no libtls, libssl nor libcrypto" clean

c=$(get tl.test)
check "a request wakes tl, its env naming the planted directory ($c)" \
    [ "$c" = 200 ]
c=$(api POST /v1/workloads "{\"name\": \"tl2\", \"port\": $P2,
    \"hosts\": [\"tl2.test\"], \"command\": \"$T/bin/testhttp serve $P2\",
    \"env\": [\"LD_LIBRARY_PATH=$EVIL\"]}")
check "API: tl2 with LD_LIBRARY_PATH in its env ($c)" [ "$c" = 201 ]
c=$(get tl2.test)
check "a request wakes tl2 ($c)" [ "$c" = 200 ]
c=$(api POST /v1/workloads "{\"name\": \"tl3\", \"driver\": \"swarm\",
    \"image\": \"busybox\", \"port\": 8080, \"hosts\": [\"tl3.test\"]}")
check "API: a swarm workload is refused ($c): $(head -c 160 "$T/a.body")" \
    sh -c "[ $c = 403 ] || [ $c = 400 ]"
check "a reload" quiet "$ORCHCTL" -s "$SOCK" reload
sleep 1
check "runtimed is the same process ($(child runtime))" \
    [ "$(child runtime)" = "$RT" ]
check "... and still maps none of them, nor the planted directory" clean
check "... no process of orchd's loaded the planted libtls" sh -c \
    "for p in $ORCHD_PID \$(pgrep -P $ORCHD_PID); do
	! grep -q '$EVIL' /proc/\$p/maps 2>/dev/null || exit 1
    done"
check "... the planted library never ran" [ ! -s "$T/ran" ]
check "orchd runs on" kill -0 "$ORCHD_PID"

e2e_done
