#!/bin/sh
# make install into a scratch DESTDIR, from the build under test (no
# rebuild): exactly the programs, helpers, man pages and examples, with
# their modes; the installed orchd works; the unit points at the
# installed programs, is Type=notify, reloads with orchctl, has systemd
# make its directories and passes systemd-analyze verify; the logrotate
# file reopens with the installed orchctl and passes logrotate -d; no
# rc.d script;
# make install-systemd puts the unit in place; make install-user makes
# the directories with their owners and modes.  Then a build of its own: make,
# and make install PREFIX=elsewhere rebuilds the parent for its helpers'
# new directory, where the installed orchd finds them.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
R=$T/root
top=$(pwd)

# -o all: the build under test is what gets installed, as it is
make -s -C "$top" -o all install DESTDIR="$R" PREFIX=/usr/local \
    BUILD="$BUILD" >"$T/install.out" 2>&1
st=$?
check "make install DESTDIR=... (status $st)" [ "$st" -eq 0 ]
[ "$st" -eq 0 ] || cat "$T/install.out"

cat >"$T/want" <<'EOF'
0444 usr/local/share/examples/orchd/LICENSE
0444 usr/local/share/examples/orchd/logrotate.d/orchd
0444 usr/local/share/examples/orchd/orchd.conf
0444 usr/local/share/examples/orchd/orchd.service
0444 usr/local/share/man/man5/orchd.conf.5
0444 usr/local/share/man/man7/orchd-api.7
0444 usr/local/share/man/man7/orchd-security.7
0444 usr/local/share/man/man7/orchd-workload.7
0444 usr/local/share/man/man8/orchctl.8
0444 usr/local/share/man/man8/orchd.8
0555 usr/local/libexec/orchd/acmed
0555 usr/local/libexec/orchd/confd
0555 usr/local/libexec/orchd/gatewayd
0555 usr/local/libexec/orchd/notifyd
0555 usr/local/libexec/orchd/reaperd
0555 usr/local/libexec/orchd/runtimed
0555 usr/local/libexec/orchd/spawnerd
0555 usr/local/libexec/orchd/stored
0555 usr/local/sbin/orchctl
0555 usr/local/sbin/orchd
EOF
(cd "$R" && find . ! -type d -printf '%#m %P\n' | sort) >"$T/got"
check "exactly the expected files, with their modes" cmp -s "$T/want" "$T/got"
diff "$T/want" "$T/got"
(cd "$R" && find . -type d -printf '%P\n' | sort) >"$T/dirs"
check "no directory outside usr/local" \
    sh -c "! grep -Ev '^(|usr|usr/local(/.*)?)\$' '$T/dirs'"
grep -Ev '^(|usr|usr/local(/.*)?)$' "$T/dirs"

for p in orchd orchctl; do
	check "sbin/$p is the build's" cmp -s "$BUILD/$p" "$R/usr/local/sbin/$p"
done
for p in confd spawnerd stored gatewayd reaperd runtimed acmed notifyd; do
	check "libexec/orchd/$p is the build's" \
	    cmp -s "$BUILD/$p" "$R/usr/local/libexec/orchd/$p"
done

# the installed orchd: its helpers are looked for in the LIBEXECDIR it was
# built with, which a DESTDIR install cannot move
cat >"$T/orchd.conf" <<CONF
database "$T/db/orchd.db"
socket "$T/orchd.sock"
$(conf_instance)
listen on 127.0.0.1 port 8080

workload "app" {
	host "app.test"
	command "/bin/true"
	port 8081
}
CONF
check "the installed orchd -n checks a configuration" \
    "$R/usr/local/sbin/orchd" -n -f "$T/orchd.conf"
check "the installed orchd looks for its helpers in /usr/local/libexec/orchd" \
    grep -q -a /usr/local/libexec/orchd "$R/usr/local/sbin/orchd"
# the example as shipped passes -n on any host where make install-user ran
# (its user is _orchd): no file it names may be missing.  Its TLS lines
# stay, as comments.
ex=$R/usr/local/share/examples/orchd/orchd.conf
if [ "$(id -u)" -eq 0 ]; then
	ensure_user
	"$ORCHD" -n -f "$ex" >"$T/n.out" 2>&1
	st=$?
	check "the example orchd.conf passes orchd -n (status $st)" \
	    [ "$st" -eq 0 ]
	[ "$st" -eq 0 ] || cat "$T/n.out"
else
	echo "skipped orchd -n of the example: needs root"
fi
check "the example shows a TLS listener, commented out" \
    grep -q '^#listen on .* tls certificate' "$ex"
check "the installed orchctl runs" \
    sh -c "'$R/usr/local/sbin/orchctl' 2>&1 | grep -q usage"
check "the installed man pages are clean (mandoc -Tlint)" \
    mandoc -Tlint -Wwarning "$R"/usr/local/share/man/man*/*

# the service file
unit=$R/usr/local/share/examples/orchd/orchd.service
check "the unit starts /usr/local/sbin/orchd -d" \
    grep -q '^ExecStart=/usr/local/sbin/orchd -d$' "$unit"
check "the unit is Type=notify" grep -q '^Type=notify$' "$unit"
check "the unit reloads with orchctl reload, which fails on a bad file" \
    grep -q '^ExecReload=/usr/local/sbin/orchctl reload$' "$unit"
check "the unit restarts on failure" grep -q '^Restart=on-failure$' "$unit"
check "systemd makes /var/lib/orchd, orchd-workloads, orchd-acme, orchd-certs, orchd-notify" \
    grep -q '^StateDirectory=orchd orchd-workloads orchd-acme orchd-certs orchd-notify$' \
    "$unit"
check "and /run/orchd" grep -q '^RuntimeDirectory=orchd$' "$unit"
check "and /var/log/orchd" grep -q '^LogsDirectory=orchd$' "$unit"
check "the unit names no /var/db" sh -c "! grep -q /var/db '$unit'"
for k in NoNewPrivileges ProtectSystem ProtectHome PrivateTmp \
    ReadWritePaths CapabilityBoundingSet SystemCallArchitectures; do
	check "the unit sets $k" grep -q "^$k=" "$unit"
done
if command -v systemd-analyze >/dev/null; then
	# verify wants the programs where the unit says
	sed "s|/usr/local/sbin|$R/usr/local/sbin|g" "$unit" >"$T/orchd.service"
	check "systemd-analyze verify passes" \
	    systemd-analyze verify --man=no "$T/orchd.service"
	systemd-analyze verify --man=no "$T/orchd.service"
else
	echo "skipped systemd-analyze verify: not installed"
fi
check "no rc.d script: orchd runs on Linux alone" \
    sh -c "[ ! -e '$top/etc/rc.d' ] && ! grep -qF etc/rc.d '$top/Makefile'"

# PREFIX reaches the unit too
make -s -C "$top" -o all install DESTDIR="$T/opt" PREFIX=/opt/orchd \
    BUILD="$BUILD" >"$T/install.out" 2>&1
check "PREFIX=/opt/orchd: the unit runs /opt/orchd/sbin/orchd" grep -q \
    '^ExecStart=/opt/orchd/sbin/orchd -d$' \
    "$T/opt/opt/orchd/share/examples/orchd/orchd.service"
check "PREFIX=/opt/orchd: and reloads with /opt/orchd/sbin/orchctl" grep -q \
    '^ExecReload=/opt/orchd/sbin/orchctl reload$' \
    "$T/opt/opt/orchd/share/examples/orchd/orchd.service"
check "PREFIX=/opt/orchd: logrotate's file reopens with /opt/orchd/sbin/orchctl" \
    grep -q '^		/opt/orchd/sbin/orchctl log reopen' \
    "$T/opt/opt/orchd/share/examples/orchd/logrotate.d/orchd"
check "logrotate's file, as installed, passes logrotate -d" sh -c \
    "! command -v logrotate >/dev/null || logrotate -d -s '$T/lr.state' \
    '$R/usr/local/share/examples/orchd/logrotate.d/orchd' >'$T/lr.out' 2>&1"

# install-systemd: under a DESTDIR the unit goes in place, nothing is
# enabled, and it says what to run
make -s -C "$top" install-systemd DESTDIR="$T/sd" PREFIX=/opt/orchd \
    >"$T/sd.out" 2>&1
st=$?
check "make install-systemd DESTDIR=... (status $st)" [ "$st" -eq 0 ]
check "the unit in /etc/systemd/system, 0644" [ "$(stat -c '%a' \
    "$T/sd/etc/systemd/system/orchd.service" 2>/dev/null)" = 644 ]
check "told where the programs are" grep -q \
    '^ExecStart=/opt/orchd/sbin/orchd -d$' \
    "$T/sd/etc/systemd/system/orchd.service"
check "says how to enable it" grep -q 'systemctl enable --now orchd' \
    "$T/sd.out"
make -s -C "$top" install-systemd DESTDIR="$T/sd" \
    SYSTEMDUNITDIR=/usr/lib/systemd/system >/dev/null 2>&1
check "SYSTEMDUNITDIR=/usr/lib/systemd/system" \
    [ -f "$T/sd/usr/lib/systemd/system/orchd.service" ]

# install-user: the user exists already when lib.sh made it; the
# directories go under DESTDIR
if [ "$(id -u)" -eq 0 ]; then
	ensure_user
	make -s -C "$top" install-user DESTDIR="$R" >"$T/user.out" 2>&1
	st=$?
	check "make install-user DESTDIR=... (status $st)" [ "$st" -eq 0 ]
	[ "$st" -eq 0 ] || cat "$T/user.out"
	check "/var/empty: root's, 0755" \
	    [ "$(stat -c '%U %G %a' "$R/var/empty")" = "root root 755" ]
	check "/var/lib/orchd: _orchd's, 0700" \
	    [ "$(stat -c '%U %a' "$R/var/lib/orchd")" = "_orchd 700" ]
	check "/var/log/orchd: root's, 0755" \
	    [ "$(stat -c '%U %G %a' "$R/var/log/orchd")" = "root root 755" ]
	dirs=$(cd "$R" && find var | sort | tr '\n' ' ')
	check "nothing else under var ($dirs)" [ "$dirs" = \
	    "var var/empty var/lib var/lib/orchd var/log var/log/orchd " ]
else
	echo "skipped make install-user: needs root"
fi

# A plain make, then make install PREFIX=P: P/sbin/orchd must look for its
# helpers in P/libexec/orchd, not in the LIBEXECDIR of the first make.
# A build of its own, unoptimised to be quick, in the scratch directory.
B=$T/b
P=$T/p
make -s -C "$top" -j2 BUILD="$B" OPTFLAGS=-O0 all >"$T/make.out" 2>&1
st=$?
check "make BUILD=scratch (status $st)" [ "$st" -eq 0 ]
[ "$st" -eq 0 ] || tail -n 20 "$T/make.out"
make -C "$top" -j2 BUILD="$B" OPTFLAGS=-O0 PREFIX="$P" install \
    >"$T/make.out" 2>&1
st=$?
check "then make install PREFIX=scratch (status $st)" [ "$st" -eq 0 ]
check "rebuilds the parent" grep -q -- '-o [^ ]*/b/orchd ' "$T/make.out"
check "and nothing else" \
    sh -c "! grep -E -- '-o [^ ]*/b/(stored|gatewayd|reaperd|runtimed) ' \
    '$T/make.out'"
check "the installed orchd looks in P/libexec/orchd" \
    grep -q -a "$P/libexec/orchd" "$P/sbin/orchd"
check "and not in /usr/local/libexec/orchd" \
    sh -c "! grep -q -a /usr/local/libexec/orchd '$P/sbin/orchd'"
make -C "$top" -j2 BUILD="$B" OPTFLAGS=-O0 PREFIX="$P" install \
    >"$T/make.out" 2>&1
check "the same install again rebuilds nothing" \
    sh -c "! grep -q -- '-o ' '$T/make.out'"

if [ "$(id -u)" -eq 0 ]; then
	# -n with a TLS listener runs P/libexec/orchd/gatewayd -n
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
	    -nodes -keyout "$T/k.pem" -out "$T/c.pem" -days 2 \
	    -subj "/CN=app.test" 2>/dev/null
	chmod 0600 "$T/k.pem"
	GW=$(free_port $((20000 + $$ % 12000)))
	conf_head >"$T/p.conf"
	cat >>"$T/p.conf" <<CONF
listen on 127.0.0.1 port $GW tls certificate "$T/c.pem" key "$T/k.pem"

workload "app" {
	host "app.test"
	command "/bin/true"
	port $(free_port $((GW + 1)))
}
CONF
	"$P/sbin/orchd" -n -f "$T/p.conf" >"$T/n.out" 2>&1
	st=$?
	check "its orchd -n checks TLS keypairs with its gatewayd (status $st)" \
	    [ "$st" -eq 0 ]
	[ "$st" -eq 0 ] || cat "$T/n.out"
	# and it starts its five helpers from there (the spawner one of them)
	ORCHD=$P/sbin/orchd
	cp "$T/p.conf" "$T/orchd.conf"
	check "it starts" start_orchd
	n=0
	for c in $(pgrep -P "$ORCHD_PID"); do
		case "$(readlink "/proc/$c/exe")" in
		"$P"/libexec/orchd/*) n=$((n + 1)) ;;
		esac
	done
	check "with its five helpers from P/libexec/orchd ($n)" [ "$n" -eq 5 ]
	stop_orchd
	check "and stops (status $STATUS)" [ "$STATUS" -eq 0 ]
	ORCHD_PID=
else
	echo "skipped the installed orchd's start: needs root"
fi

e2e_done
