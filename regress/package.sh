#!/bin/sh
# The Debian package end to end, on a Debian 12 that may be changed (a
# fresh container: it installs packages and a system user), as root:
#
#	../shared/tools/fresh-debian12 bash -c 'cd /src && sh regress/package.sh'
#
# It installs what make deb needs (tools/deps.sh deb), runs make deb
# (dpkg-buildpackage, then lintian, which must find nothing), installs
# the package with apt, and checks what the package made: the _orchd
# user, /var/lib/orchd its own and 0700, the unit enabled and
# conditioned on /etc/orchd.conf, the man pages, the logrotate file, the
# completions and the example.  Then it starts orchd with the example
# configuration as the unit would (its ExecStartPre= and ExecStart=
# lines: a container runs no systemd), with the listeners moved to
# loopback ports of their own, its instance named, and one process
# workload added that serves a page (busybox httpd); a request through
# the gateway is served, the bash completion offers the workload's name,
# and the unit's ExecReload= line (orchctl reload) reloads.  Last, apt
# remove keeps the data and apt purge removes it.
#
# EXTRA_CA_DIR: a directory of *.crt a proxy's egress needs, trusted
# before anything is fetched.
. "$(dirname "$0")/e2e/lib.sh"
e2e_init /usr/sbin
top=$(cd "$(dirname "$0")/.." && pwd)
export DEBIAN_FRONTEND=noninteractive
UNIT=/lib/systemd/system/orchd.service

if [ "$(id -u)" -ne 0 ] || [ ! -f /etc/debian_version ]; then
	skip "needs root on Debian (a fresh container)"
	exit 0
fi
if [ -n "${EXTRA_CA_DIR:-}" ]; then
	apt-get update -qq && apt-get install -y -qq ca-certificates >/dev/null
	cp "$EXTRA_CA_DIR"/*.crt /usr/local/share/ca-certificates/
	update-ca-certificates >/dev/null
fi
apt-get update -qq
apt-get install -y -qq --no-install-recommends make iproute2 curl busybox \
    bash >/dev/null
check "tools/deps.sh deb installs what make deb needs" sh "$top/tools/deps.sh" deb

make -C "$top" deb >"$T/deb.log" 2>&1
st=$?
check "make deb (dpkg-buildpackage, lintian clean) (status $st)" [ "$st" -eq 0 ]
# what follows stands on the package
[ "$st" -eq 0 ] || { tail -n 30 "$T/deb.log"; e2e_done; exit 1; }
grep -E '^[EWIN]: ' "$T/deb.log" | sed 's/^/#	/'
V=$(cd "$top" && dpkg-parsechangelog -S Version)
DEB=$top/build/deb/orchd_${V}_amd64.deb
check "build/deb/orchd_${V}_amd64.deb is there" [ -f "$DEB" ]

apt-get install -y -qq "$DEB" >"$T/apt.log" 2>&1
st=$?
check "apt install ./orchd_${V}_amd64.deb (status $st)" [ "$st" -eq 0 ]
[ "$st" -eq 0 ] || { tail -n 20 "$T/apt.log"; e2e_done; exit 1; }

check "the user _orchd exists" getent passwd _orchd
check "/var/lib/orchd is _orchd's, 0700" \
    [ "$(stat -c '%U %a' /var/lib/orchd 2>/dev/null)" = "_orchd 700" ]
check "/var/log/orchd and /var/empty exist" \
    sh -c '[ -d /var/log/orchd ] && [ -d /var/empty ]'
check "the unit runs /usr/sbin/orchd" grep -q '^ExecStart=/usr/sbin/orchd -d$' "$UNIT"
check "the unit starts only once /etc/orchd.conf exists" \
    grep -q '^ConditionPathExists=/etc/orchd.conf$' "$UNIT"
check "the unit is enabled (multi-user.target.wants)" \
    [ -L /etc/systemd/system/multi-user.target.wants/orchd.service ]
check "no /etc/orchd.conf installed: nothing starts by itself" \
    [ ! -e /etc/orchd.conf ]
for f in /usr/share/man/man8/orchd.8.gz /usr/share/man/man8/orchctl.8.gz \
    /usr/share/man/man5/orchd.conf.5.gz \
    /usr/share/man/man7/orchd-security.7.gz /etc/logrotate.d/orchd \
    /usr/share/bash-completion/completions/orchctl \
    /usr/share/zsh/vendor-completions/_orchctl \
    /usr/share/doc/orchd/examples/orchd.conf /usr/libexec/orchd/gatewayd; do
	check "installed: $f" [ -f "$f" ]
done
check "the logrotate file reopens with /usr/sbin/orchctl" \
    grep -q '/usr/sbin/orchctl log reopen' /etc/logrotate.d/orchd

# the example, on loopback ports of this run's own, one workload added
ports GW API WEB
mkdir -p "$T/www"
echo "served-by-package-$$" >"$T/www/index.html"
chmod -R a+rX "$T/www"
sed -e 's/^ext_addr = .*/ext_addr = "127.0.0.1"/' \
    -e "s/^listen on \$ext_addr port 80\$/listen on \$ext_addr port $GW/" \
    -e "s/^api listen on 127.0.0.1 port 8080\$/api listen on 127.0.0.1 port $API/" \
    /usr/share/doc/orchd/examples/orchd.conf >/etc/orchd.conf
cat >>/etc/orchd.conf <<CONF

instance name "pkgcheck-$$"
workload "hello" {
	host "hello.test"
	command "/bin/busybox httpd -f -p 127.0.0.1:$WEB -h $T/www"
	port $WEB
}
CONF
check "the example moved to ports $GW and $API" \
    grep -q "^listen on \$ext_addr port $GW\$" /etc/orchd.conf

# as the unit would: its directories, its ExecStartPre=, its ExecStart=
for d in $(sed -n 's/^StateDirectory=//p' "$UNIT"); do
	mkdir -p "/var/lib/$d"
done
mkdir -p /run/orchd
pre=$(sed -n 's/^ExecStartPre=//p' "$UNIT")
start=$(sed -n 's/^ExecStart=//p' "$UNIT")
reload=$(sed -n 's/^ExecReload=//p' "$UNIT")
check "ExecStartPre=$pre passes on the example" $pre
$start >>"$T/orchd.log" 2>&1 &
ORCHD_PID=$!
SOCK=/run/orchd/orchd.sock
if ! wait_for 20 /usr/sbin/orchctl show summary; then
	fail "ExecStart=$start: orchd answers orchctl"
	tail -n 30 "$T/orchd.log"
	e2e_done
	exit 1
fi
ok "ExecStart=$start: orchd answers orchctl"
body=$(curl -s -m 30 -H 'Host: hello.test' "http://127.0.0.1:$GW/")
check "a request through the gateway is served (workload woken)" \
    [ "$body" = "served-by-package-$$" ]
[ "$body" = "served-by-package-$$" ] || tail -n 20 "$T/orchd.log"
got=$(bash -c '. /usr/share/bash-completion/completions/orchctl;
    COMP_WORDS=(orchctl wake he); COMP_CWORD=2; _orchctl;
    echo "${COMPREPLY[*]}"')
check "bash completion: orchctl wake he<TAB> is hello, from orchd" \
    [ "$got" = hello ]
$reload >"$T/reload.out" 2>&1
st=$?
check "ExecReload=$reload: reloaded (status $st)" [ "$st" -eq 0 ]
sed 's/^/#	/' "$T/reload.out"
body=$(curl -s -m 30 -H 'Host: hello.test' "http://127.0.0.1:$GW/")
check "served after the reload" [ "$body" = "served-by-package-$$" ]
kill -TERM "$ORCHD_PID"
wait_gone "$ORCHD_PID" 20
check "orchd stops on SIGTERM" dead "$ORCHD_PID"
ORCHD_PID=

apt-get remove -y -qq orchd >/dev/null 2>&1
check "apt remove: the database directory stays" [ -d /var/lib/orchd ]
check "apt remove: the configuration stays" [ -f /etc/orchd.conf ]
apt-get purge -y -qq orchd >/dev/null 2>&1
check "apt purge: /var/lib/orchd* and /var/log/orchd removed" \
    sh -c '! ls -d /var/lib/orchd* /var/log/orchd 2>/dev/null | grep -q .'
check "apt purge: the unit's enablement removed" \
    [ ! -e /etc/systemd/system/multi-user.target.wants/orchd.service ]
check "apt purge: the user stays (its files may be elsewhere)" \
    getent passwd _orchd
rm -f /etc/orchd.conf
e2e_done
