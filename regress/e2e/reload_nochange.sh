#!/bin/sh
# A reload with nothing changed (issue 38): confd reads every input of
# the running configuration again (orchd.conf, an included file, an
# include pattern's matches, a password file, an error page), finds them
# unchanged and answers "no change": no child is sent anything and the
# generation stays.  Each input changed with orchd.conf untouched is
# picked up by the next reload; a refused reload keeps the running
# inputs; a setting kept until a restart keeps being reported.
#
#	sh regress/e2e/reload_nochange.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports GW
P=$((GW + 1))
mkdir -p "$T/log" "$T/d" "$T/pages" "$T/pki"
TLSP=$((GW + 40))

# mkcert: a certificate and key, new each time, at the same paths
mkcert() {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	    -keyout "$T/pki/k.key" -out "$T/pki/c.crt" -days 2 \
	    -subj "/CN=main.test" 2>/dev/null
	chmod 0600 "$T/pki/k.key"
}
mkcert

wl() {	# wl NAME [SETTING...]: a process workload never woken
	name=$1
	shift
	P=$((P + 1))
	printf 'workload "%s" {\n\thost "%s.test"\n' "$name" "$name"
	printf '\tcommand "/bin/sleep 600"\n\tport %d\n' "$P"
	conf_end "$@"
}
{
	conf_head
	echo "listen on 127.0.0.1 port $GW"
	echo "listen on 127.0.0.1 port $TLSP tls certificate \"$T/pki/c.crt\"" \
	    "key \"$T/pki/k.key\""
	echo "error page 503 \"$T/pages/503.html\""
	echo "include \"$T/inc.conf\""
	echo "include \"$T/d/*.conf\""
	wl main "auth basic \"$T/htpasswd\""
} >"$T/orchd.conf"
wl inc >"$T/inc.conf"
wl globbed >"$T/d/a.conf"
echo "<p>busy</p>" >"$T/pages/503.html"
# alice:secret, bcrypt
echo 'alice:$2y$05$4dGdl3S6jsnFi5kN1rRJp.p4m3H6aIrlr8QUS2JQk8mrS1F9D6Oau' \
    >"$T/htpasswd"
chmod 0644 "$T/htpasswd" "$T/pages/503.html"
start_orchd_or_exit

ctl() {
	"$ORCHCTL" -s "$SOCK" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	return $rc
}
gens() { grep -c "configuration [0-9]* active" "$T/orchd.log"; }
listed() { "$ORCHCTL" -s "$SOCK" show workloads | grep -Eq "^$1 "; }
# reload_same DESC: a reload answered "no change", generation kept
reload_same() {
	g=$(gens)
	ctl reload
	check "$1: reload succeeds (status $rc)" [ "$rc" -eq 0 ]
	check "$1: it says no change" grep -q "^no change: " "$T/out"
	sleep 0.3
	check "$1: no configuration sent" [ "$(gens)" -eq "$g" ]
}
# reload_full DESC: a reload that reads and sends the configuration
reload_full() {
	g=$(gens)
	ctl reload
	check "$1: reload succeeds (status $rc)" [ "$rc" -eq 0 ]
	check "$1: it is not a no change" \
	    sh -c "! grep -q '^no change' '$T/out'"
	check "$1: a new configuration" wait_for 10 \
	    sh -c "[ \$(grep -c 'configuration [0-9]* active' \
	    '$T/orchd.log') -gt $g ]"
}

# -- 1. the first reload reads the file whole (a start only warns of
# what this host lacks, a reload refuses it); the next is no change
reload_full "first reload"
reload_same "nothing changed"
check "the log says so" grep -q "inputs unchanged, configuration" \
    "$T/orchd.log"
check "every workload still listed" sh -c \
    "\"$ORCHCTL\" -s \"$SOCK\" show workloads | grep -c -E '^(main|inc|globbed) ' |
    grep -qx 3"
ctl -j reload
check "as JSON: unchanged is true" \
    sh -c "tr -d ' \n' <'$T/out' | grep -q '\"unchanged\":true'"
# SIGHUP: the same, in the log
n=$(grep -c "inputs unchanged" "$T/orchd.log")
kill -HUP "$ORCHD_PID"
check "SIGHUP with nothing changed is no change too" wait_for 10 \
    sh -c "[ \$(grep -c 'inputs unchanged' '$T/orchd.log') -gt $n ]"

# -- 2. an included file changed, orchd.conf untouched
{ wl inc; wl inc2; } >"$T/inc.conf"
reload_full "an included file changed"
check "its new workload runs" wait_for 10 listed inc2
reload_same "after it"

# -- 3. a file added to an include pattern's directory
wl globbed2 >"$T/d/b.conf"
reload_full "a file added to a glob"
check "the added file's workload runs" wait_for 10 listed globbed2
rm -f "$T/d/b.conf"
reload_full "a file removed from a glob"
check "its workload is gone" wait_for 10 sh -c "! \"$ORCHCTL\" -s \"$SOCK\" \
    show workloads | grep -q '^globbed2 '"

# -- 4. the password file, the error page
echo 'bob:$2y$05$4dGdl3S6jsnFi5kN1rRJp.p4m3H6aIrlr8QUS2JQk8mrS1F9D6Oau' \
    >>"$T/htpasswd"
reload_full "a user added to the password file"
echo "<p>very busy</p>" >"$T/pages/503.html"
reload_full "the error page changed"
reload_same "after them"

# -- 4b. a TLS certificate renewed at the same paths: the parent reads
# those files itself, and a change to them reloads as before
serial() {
	echo | timeout 5 openssl s_client -connect "127.0.0.1:$TLSP" \
	    -servername main.test 2>/dev/null | openssl x509 -noout -serial
}
s0=$(serial)
check "the TLS listener serves the certificate" \
    [ "$s0" = "$(openssl x509 -noout -serial -in "$T/pki/c.crt")" ]
mkcert
reload_full "a certificate renewed"
check "the renewed certificate is served" wait_for 10 \
    sh -c "[ \"\$(echo | timeout 5 openssl s_client -connect 127.0.0.1:$TLSP \
    -servername main.test 2>/dev/null | openssl x509 -noout -serial)\" = \
    \"$(openssl x509 -noout -serial -in "$T/pki/c.crt")\" ]"
check "the log names the file" grep -q "reload: $T/pki/c.crt changed" \
    "$T/orchd.log"
reload_same "after the renewal"

# -- 5. an included file replaced by a symlink: to the same bytes, no
# change; to other bytes, a change
cp "$T/inc.conf" "$T/inc.same"
rm -f "$T/inc.conf"
ln -s "$T/inc.same" "$T/inc.conf"
reload_same "a symlink to the same bytes"
wl inc >"$T/inc.other"
ln -sf "$T/inc.other" "$T/inc.conf"
reload_full "a symlink to other bytes"
check "inc2 is gone" wait_for 10 sh -c "! \"$ORCHCTL\" -s \"$SOCK\" \
    show workloads | grep -q '^inc2 '"

# -- 6. a refused reload keeps the running inputs: the file put back is
# no change
cp "$T/orchd.conf" "$T/orchd.good"
echo "bogus keyword" >>"$T/orchd.conf"
ctl reload
check "a broken file is refused (status $rc)" [ "$rc" -ne 0 ]
cp "$T/orchd.good" "$T/orchd.conf"
reload_same "the file put back"

# -- 7. a setting kept until a restart is reported at every reload
echo "prefork 2" >>"$T/orchd.conf"
reload_full "prefork changed"
check "it says prefork needs a restart" \
    grep -q "prefork changed: restart orchd" "$T/out"
ctl reload
check "the next reload says it again (status $rc)" \
    grep -q "prefork changed: restart orchd" "$T/out"
check "and is no no change" sh -c "! grep -q '^no change' '$T/out'"

# -- 8. orchd -n still reads the file whole
check "orchd -n reads it" sh -c "\"$ORCHD\" -n -f \"$T/orchd.conf\" \
    2>&1 | grep -q 'configuration OK'"

stop_orchd
check "orchd stops cleanly (status $STATUS)" [ "$STATUS" -eq 0 ]
e2e_done
