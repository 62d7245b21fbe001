#!/bin/sh
# Attack: another takes the port of a sleeping workload (issue 28, item
# 3; orchd-workload.7, a workload is served only by its own listener).
# A process of another uid (nobody, as any local user or another
# workload could) binds the port of the sleeping process workload hello.
# A connect alone
# would take it for hello: the request would get the squatter's page.
# orchd must instead see that the listener is not hello's, answer the
# held request 502 or 503, name the squatter in its log and mark hello
# failed with the reason in its history; once the squatter is gone, the
# next request wakes hello and gets hello's page.  The same with the
# squatter on 0.0.0.0, which takes 127.0.0.1's connections too.  And a
# running workload whose listener is replaced (its server killed, the
# squatter bound in its place) is caught by its liveness check: failed,
# and nothing more is proxied to the squatter.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
command -v setpriv >/dev/null 2>&1 || skip "no setpriv"
busybox httpd --help >/dev/null 2>&1 || busybox --list | grep -qx httpd ||
    skip "no busybox httpd"

ports GW P_A P_B P_C
mkdir -p "$T/log" "$T/bin" "$T/sq"
testhttp_bin
# the workload: its server in the background, the script staying, so that
# killing the server leaves the workload running without its listener
cat >"$T/bin/hello.sh" <<EOF
#!/bin/sh
"$T/bin/testhttp" serve "\$1" &
while :; do sleep 1; done
EOF
chmod 0755 "$T/bin/hello.sh"
echo "squatter page" >"$T/sq/index.html"
chmod 0755 "$T/sq"
chmod 0644 "$T/sq/index.html"

workload() {	# workload NAME PORT [LINE...]
	n=$1
	p=$2
	shift 2
	printf 'workload "%s" {\n\thost "%s.localhost"\n' "$n" "$n"
	printf '\tcommand "%s/bin/hello.sh %s"\n\tport %s\n' "$T" "$p" "$p"
	printf '\twake timeout 10s\n'
	conf_end "$@"
}
{
	conf_head
	echo "listen on 127.0.0.1 port $GW"
	workload hello "$P_A"
	workload anyaddr "$P_B"
	workload live "$P_C" "health interval 1s" "health timeout 1s"
} >"$T/orchd.conf"

SQ=
squat() {	# squat ADDRESS PORT: nobody's web server there
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
	    busybox httpd -f -p "$1:$2" -h "$T/sq" &
	SQ=$!
	wait_for 5 ss -Htln "sport = :$2"
}
unsquat() {
	[ -n "$SQ" ] && kill "$SQ" 2>/dev/null && wait "$SQ" 2>/dev/null
	SQ=
}
cleanup_squat() { unsquat; e2e_cleanup; }
trap cleanup_squat EXIT

get() {	# get NAME: status, body in $T/body
	curl -s -o "$T/body" -w '%{http_code}' -m 20 -H "Host: $1.localhost" \
	    "http://127.0.0.1:$GW/"
}
state() {
	"$ORCHCTL" -s "$SOCK" show workload "$1" 2>/dev/null |
	    sed -n 's/^ *state: *//p' | awk '{ print $1 }'
}
history_has() {	# history_has NAME TEXT
	"$ORCHCTL" -s "$SOCK" show workload "$1" 2>/dev/null | grep -q "$2"
}
refused() {	# refused CODE: 502 or 503, and not the squatter's page
	case "$1" in 502|503) ;; *) return 1 ;; esac
	! grep -q "squatter page" "$T/body"
}
served() {	# served CODE: hello's page
	[ "$1" = 200 ] && grep -q "hello from testhttp" "$T/body"
}
NOBODY=$(id -u nobody)

start_orchd_or_exit

# 1. the squatter on the sleeping workload's own address
squat 127.0.0.1 "$P_A"
code=$(get hello)
check "squatter on 127.0.0.1: refused ($code), not the squatter's page" \
    refused "$code"
check "... the log names the squatter (uid $NOBODY, its pid, busybox)" \
    grep -q "workload hello.*taken.*uid $NOBODY (pid $SQ, busybox)" \
    "$T/orchd.log"
check "... hello is failed" wait_for 5 sh -c "[ \"\$(\"$ORCHCTL\" -s \
    \"$SOCK\" show workload hello | sed -n 's/^ *state: *//p' | \
    awk '{ print \$1 }')\" = failed ]"
check "... its history says whose the port is" \
    history_has hello "taken.*uid $NOBODY"
unsquat
wait_for 5 sh -c "! ss -Htln 'sport = :$P_A' | grep -q ."
code=$(get hello)
check "the squatter gone, the next request wakes hello: its page ($code)" \
    served "$code"

# 2. the squatter on 0.0.0.0: it takes 127.0.0.1's connections too
squat 0.0.0.0 "$P_B"
code=$(get anyaddr)
check "squatter on 0.0.0.0: refused ($code), not the squatter's page" \
    refused "$code"
check "... the log names the squatter on 0.0.0.0" \
    grep -q "workload anyaddr.*0\.0\.0\.0:$P_B of uid $NOBODY" \
    "$T/orchd.log"
check "... anyaddr is failed" wait_for 5 sh -c "[ \"\$(\"$ORCHCTL\" -s \
    \"$SOCK\" show workload anyaddr | sed -n 's/^ *state: *//p' | \
    awk '{ print \$1 }')\" = failed ]"
unsquat
wait_for 5 sh -c "! ss -Htln 'sport = :$P_B' | grep -q ."
code=$(get anyaddr)
check "the squatter gone, anyaddr wakes and serves its page ($code)" \
    served "$code"

# 3. a running workload's listener replaced: its liveness check sees it
code=$(get live)
check "live runs and serves ($code)" served "$code"
pkill -f "testhttp serve $P_C\$"
squat 127.0.0.1 "$P_C"
check "listener replaced by a squatter: live failed by its health check" \
    wait_for 10 sh -c "[ \"\$(\"$ORCHCTL\" -s \
    \"$SOCK\" show workload live | sed -n 's/^ *state: *//p' | \
    awk '{ print \$1 }')\" = failed ]"
check "... the log names the squatter" \
    grep -q "workload live.*taken.*uid $NOBODY" "$T/orchd.log"
code=$(get live)
check "... and the next request gets no squatter's page ($code)" \
    refused "$code"
unsquat

stop_orchd
check "orchd exits cleanly" [ "$STATUS" -eq 0 ]
[ -z "${SQUAT_LOG:-}" ] || cp "$T/orchd.log" "$SQUAT_LOG"
e2e_done
