#!/bin/sh
# tools/deps.sh, with dpkg-query, apt-get and id stood in for on a PATH of
# their own: what it would install for all (the default), build, test and
# demo (the build's list, busybox-static and curl, nothing of the tests);
# docker.io (and tini) wherever no dockerd is installed, a docker client
# alone or not (a client runs no docker test), never where a dockerd is;
# nothing when everything is; a bad argument refused; deb, what make deb
# needs.  Nothing is
# installed for real.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
top=$(pwd)
S=$T/stub
mkdir -p "$S"
# the tools deps.sh runs besides the stand-ins, and nothing else: no
# docker unless a case adds one
for t in grep cat; do
	ln -s "$(command -v $t)" "$S/$t"
done
# dpkg-query: installed are the packages named in $T/installed
cat >"$S/dpkg-query" <<STUB
#!/bin/sh
for p; do :; done
grep -qx "\$p" "$T/installed" && printf 'install ok installed'
exit 0
STUB
# apt-get: what it was asked, a line each time
cat >"$S/apt-get" <<STUB
#!/bin/sh
echo "\$*" >>"$T/apt"
STUB
printf '#!/bin/sh\necho 0\n' >"$S/id"
printf '#!/bin/sh\nexit 0\n' >"$T/docker"
chmod 0755 "$S/dpkg-query" "$S/apt-get" "$S/id" "$T/docker"

deps() {	# deps [ARG]: run it, apt-get's install line in $T/inst
	: >"$T/apt"
	PATH=$S DEPS_SBIN= /bin/sh "$top/tools/deps.sh" "$@" >"$T/out" 2>&1
	st=$?
	grep '^install ' "$T/apt" | tr ' ' '\n' | grep -v '^-' >"$T/inst"
	return $st
}
has() { grep -qx "$1" "$T/inst"; }
hasnt() { ! grep -qx "$1" "$T/inst"; }

: >"$T/installed"
check "tools/deps.sh on a bare host" deps
check "updates the lists" grep -qx 'update -qq' "$T/apt"
for p in gcc make byacc libtls-dev libcmocka-dev mandoc curl docker.io \
    tini busybox-static; do
	check "installs $p" has "$p"
done
check "tools/deps.sh build" deps build
for p in gcc make pkg-config byacc libevent-dev libtls-dev libsqlite3-dev \
    libjansson-dev libbsd-dev libseccomp-dev libssl-dev zlib1g-dev; do
	check "installs $p" has "$p"
done
for p in docker.io tini curl clang python3 busybox-static libcmocka-dev; do
	check "not $p, for the tests" hasnt "$p"
done
check "tools/deps.sh demo" deps demo
for p in gcc make byacc libtls-dev busybox-static curl; do
	check "installs $p, for make demo" has "$p"
done
for p in postgresql redis-server docker.io tini libcmocka-dev chromium \
    pebble npm; do
	check "not $p, for the tests only" hasnt "$p"
done
check "tools/deps.sh test" deps test
check "installs what the tests need" \
    sh -c "grep -qx curl '$T/inst' && grep -qx docker.io '$T/inst' &&
    grep -qx libcmocka-dev '$T/inst'"
check "and not what building needs" hasnt libtls-dev
check "tools/deps.sh deb (make deb)" deps deb
for p in gcc byacc libtls-dev build-essential dpkg-dev debhelper lintian; do
	check "installs $p, for make deb" has "$p"
done
for p in docker.io curl libcmocka-dev npm; do
	check "not $p, for make deb" hasnt "$p"
done

# a host with a docker client and no daemon (this kind of machine comes
# so): Debian's daemon all the same
ln -s "$T/docker" "$S/docker"
check "with a docker client alone" deps
check "docker.io, for its dockerd" has docker.io
check "and tini" has tini
rm "$S/docker"
# a host with Docker CE's dockerd, with its client or not: none of ours
ln -s "$T/docker" "$S/dockerd"
check "with a dockerd alone" deps
check "not docker.io" hasnt docker.io
check "nor tini" hasnt tini
check "but the rest" sh -c "grep -qx curl '$T/inst' && grep -qx gcc '$T/inst'"
ln -s "$T/docker" "$S/docker"
check "with a dockerd and its client" deps
check "not docker.io either" hasnt docker.io
rm "$S/docker" "$S/dockerd"

# everything there: nothing to do
deps
cp "$T/inst" "$T/installed"
check "once all is installed, exits 0" deps
check "without apt-get" [ ! -s "$T/apt" ]
deps nonsense
st=$?
check "a bad argument is refused (status $st)" [ "$st" -eq 2 ]
check "with the usage" grep -q '^usage: sh tools/deps.sh' "$T/out"
check "as are two" sh -c "! PATH='$S' /bin/sh '$top/tools/deps.sh' build test \
    >/dev/null 2>&1"
check "tools/deps.sh parses (sh -n)" sh -n "$top/tools/deps.sh"
e2e_done
