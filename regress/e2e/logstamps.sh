#!/bin/sh
# "log timestamps" (issue 35): a process workload that asks for it has
# each line of its log begin with the time the parent read it, ISO 8601
# in UTC to the millisecond; a line written in two parts is stamped once;
# a workload that does not ask has its lines as written.  orchd -nv
# prints the keyword, and orchctl logs shows the stamped lines.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

port_base 61
ports GW P_S P_P
testhttp_bin
cat >"$T/bin/talk.sh" <<'EOF'
#!/bin/sh
echo "first line"
printf 'half a line, '
sleep 0.5
echo "then the rest"
echo "to stderr" >&2
exec "$1" serve "$2"
EOF
chmod 0755 "$T/bin/talk.sh"

conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
listen on 127.0.0.1 port $GW
workload "h35s" {
	host "s.test"
	command "$T/bin/talk.sh $T/bin/testhttp $P_S"
	port $P_S
	log timestamps
}
workload "h35p" {
	host "p.test"
	command "$T/bin/talk.sh $T/bin/testhttp $P_P"
	port $P_P
}
CONF
"$ORCHD" -nv -f "$T/orchd.conf" >"$T/nv.out" 2>&1
check "orchd -nv prints log timestamps for the one that sets it" \
    sh -c "grep -c '^[[:space:]]*log timestamps\$' '$T/nv.out' | grep -qx 1"
# a docker workload's log is Docker's: refused there
sed 's|^workload "h35p" {|&\n\tdriver docker\n\timage "busybox"\n\tlog timestamps|' \
    "$T/orchd.conf" >"$T/docker.conf"
"$ORCHD" -n -f "$T/docker.conf" >"$T/nd.out" 2>&1
st=$?
check "log timestamps on a docker workload is refused ($st)" \
    [ "$st" -ne 0 ] && grep -q "log timestamps: process workloads only" \
    "$T/nd.out"
start_orchd_or_exit
curl -s -m 20 -o /dev/null -H "Host: s.test" "http://127.0.0.1:$GW/"
curl -s -m 20 -o /dev/null -H "Host: p.test" "http://127.0.0.1:$GW/"
S=$T/log/h35s.log
P=$T/log/h35p.log
ISO='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z '
check "the stamped workload's log has its lines" \
    wait_for 10 grep -q "then the rest" "$S"
check "... each begins with an ISO 8601 time" \
    sh -c "[ \$(grep -Evc '^$ISO' '$S') -eq 0 ] && [ \$(grep -Ec '^$ISO' '$S') -ge 3 ]"
check "... the first line" grep -Eq "^${ISO}first line\$" "$S"
check "... a line in two writes is stamped once" \
    grep -Eq "^${ISO}half a line, then the rest\$" "$S"
check "... standard error too" grep -Eq "^${ISO}to stderr\$" "$S"
now=$(date -u +%Y-%m-%dT%H)
check "... the time is now's, in UTC" grep -q "^$now" "$S"
check "the other workload's lines are as written" \
    sh -c "grep -qx 'first line' '$P' &&
    grep -qx 'half a line, then the rest' '$P'"
check "orchctl logs shows the stamped lines" \
    sh -c "'$ORCHCTL' -s '$SOCK' logs h35s | grep -Eq '^${ISO}first line'"
stop_orchd
e2e_done
