#!/bin/sh
# orchd -nv prints the configuration as it reads it, on stdout, before
# "configuration OK": the golden file of the defaults; a configuration
# with TLS, an API key file, -D and ORCHD_IDLE_TIMEOUT printed, and the
# print read back by orchd -nv prints the same, as the shipped example's
# does; the key itself never printed; -n alone prints no configuration,
# a bad file none either.
# The other configurations' golden files are test_printconf's.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user
command -v openssl >/dev/null || skip "no openssl"

CONFDIR=$(cd "$(dirname "$0")/../config" && pwd)
KEY=$(openssl rand -hex 16)
mkdir -p "$T/etc" "$T/log"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$T/etc/gw.key" -out "$T/etc/gw.crt" -days 2 \
    -subj "/CN=printconf.test" 2>/dev/null
chmod 0600 "$T/etc/gw.key"
printf '%s\n' "$KEY" >"$T/etc/api.key"
chmod 0600 "$T/etc/api.key"

# -- the defaults: the golden file, as test_printconf compares it
"$ORCHD" -nv -f "$CONFDIR/conf.1" >"$T/out" 2>"$T/err"
st=$?
check "orchd -nv of the defaults exits 0 (status $st)" [ "$st" -eq 0 ]
check "... and prints conf.1.ok" cmp -s "$CONFDIR/conf.1.ok" "$T/out"
check "... then says configuration OK on stderr" \
    grep -qx "configuration OK" "$T/err"

# -- -n alone: no configuration printed
"$ORCHD" -n -f "$CONFDIR/conf.1" >"$T/out" 2>"$T/err"
st=$?
check "orchd -n exits 0 (status $st)" [ "$st" -eq 0 ]
check "... and prints nothing on stdout" [ ! -s "$T/out" ]

# -- a configuration such as a host has, with its TLS files and key
conf_head >"$T/etc/orchd.conf"
cat >>"$T/etc/orchd.conf" <<CONF
wlport = 20302
listen on 127.0.0.1 port 20300 tls certificate "$T/etc/gw.crt" \\
	key "$T/etc/gw.key"
api listen on 127.0.0.1 port 20301
api key file "$T/etc/api.key"
api host "api.printconf.test"
workload "app" {
	host "app.printconf.test"
	command "/bin/sh -c 'exec /bin/true \$HOME'"
	env "GREETING=say \"hi\" \\\\ \$USER"
	port \$wlport
	tls keypair "$T/etc/gw.crt" "$T/etc/gw.key"
}
CONF
"$ORCHD" -nv -D wlport=20303 -f "$T/etc/orchd.conf" >"$T/out1" 2>"$T/err"
st=$?
check "orchd -nv of a configuration with TLS and a key exits 0 (status $st)" \
    [ "$st" -eq 0 ]
[ "$st" -eq 0 ] || cat "$T/err"
check "... prints the listener with its TLS files" grep -qxF \
    "listen on \"127.0.0.1\" port 20300 tls certificate \"$T/etc/gw.crt\" key \"$T/etc/gw.key\"" \
    "$T/out1"
check "... prints the key's file" \
    grep -qxF "api key file \"$T/etc/api.key\"" "$T/out1"
check "... never the key" sh -c "! grep -q '$KEY' '$T/out1'"
check "... the workload's keypair" grep -qxF \
    "	tls keypair \"$T/etc/gw.crt\" \"$T/etc/gw.key\"" "$T/out1"
check "... the port -D gave, not the file's" \
    grep -qx "	port 20303" "$T/out1"
check "... the quotes, backslash and \$ of a string escaped, not expanded" \
    grep -qxF "	env \"GREETING=say \\\"hi\\\" \\\\ \$USER\"" "$T/out1"
check "... the defaults: the global idle timeout" \
    grep -qx "idle timeout 5m" "$T/out1"

# the print is a configuration: the same one
cp "$T/out1" "$T/etc/printed.conf"
"$ORCHD" -nv -f "$T/etc/printed.conf" >"$T/out2" 2>"$T/err"
st=$?
check "the print, read back by orchd -nv, is accepted (status $st)" \
    [ "$st" -eq 0 ]
[ "$st" -eq 0 ] || cat "$T/err"
check "... and prints the same" cmp -s "$T/out1" "$T/out2"
[ "$st" -eq 0 ] && ! cmp -s "$T/out1" "$T/out2" &&
    diff "$T/out1" "$T/out2" | head -20

# -- the shipped example, printed and read back
EXAMPLE=$(cd "$(dirname "$0")/../../etc" && pwd)/orchd.conf
"$ORCHD" -nv -f "$EXAMPLE" >"$T/ex1" 2>"$T/err"
st=$?
check "orchd -nv of the example exits 0 (status $st)" [ "$st" -eq 0 ]
cp "$T/ex1" "$T/etc/example.conf"
"$ORCHD" -nv -f "$T/etc/example.conf" >"$T/ex2" 2>"$T/err"
check "... and its print prints the same" cmp -s "$T/ex1" "$T/ex2"

# -- the environment's overrides are what orchd runs with
ORCHD_IDLE_TIMEOUT=0 "$ORCHD" -nv -f "$T/etc/orchd.conf" >"$T/out" 2>"$T/err"
st=$?
check "ORCHD_IDLE_TIMEOUT=0 orchd -nv exits 0 (status $st)" [ "$st" -eq 0 ]
check "... prints idle timeout 0s" grep -qx "idle timeout 0s" "$T/out"
check "... and says the reaper is off" \
    grep -qx "# the reaper is off: ORCHD_IDLE_TIMEOUT=0" "$T/out"

# -- a bad file: the errors, no configuration
printf 'idle timeout forever\n' >"$T/etc/bad.conf"
"$ORCHD" -nv -f "$T/etc/bad.conf" >"$T/out" 2>"$T/err"
st=$?
check "orchd -nv of a bad file exits 1 (status $st)" [ "$st" -eq 1 ]
check "... prints no configuration" [ ! -s "$T/out" ]
check "... says where the error is" grep -q "bad.conf:1:" "$T/err"

e2e_done
