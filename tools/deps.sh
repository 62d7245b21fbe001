#!/bin/sh
# Installs what building and testing orchd need on Debian 12, as root.
# Installs nothing when everything is there already.
#
#	sh tools/deps.sh [all]	to build and to test: both lists below
#	sh tools/deps.sh build	to build (make, make STATIC=1, make install,
#				make install-user) and nothing more
#	sh tools/deps.sh test	what the tests add to that
#	sh tools/deps.sh deb	to build the Debian package: make deb
#	sh tools/deps.sh demo	to build and run make demo: the build's
#				list, busybox-static (the demo's workload,
#				busybox httpd) and curl; nothing of the test
#				stack (no PostgreSQL, Redis or Docker: the
#				demo's container is shown only where a Docker
#				daemon answers already)
#
# libssl-dev and zlib1g-dev: the static libraries behind libtls.a and
# libsqlite3.a (libssl.a, libcrypto.a, libz.a) for make STATIC=1, which
# make check builds too.  passwd: useradd, for make install-user.
#
# postgresql, postgresql-client, redis-server and redis-tools: the real
# software behind workloads' TCP listeners in regress/e2e/tcpwake.sh (a
# database initdb'd by the test, run as the postgres user the package
# creates), and redis-benchmark for bench/08-tcp.sh; the images of
# regress/e2e/realstack.sh's stack, PostgreSQL 15 and Redis in
# containers, are made of their files (regress/docker-image-pg.sh).
# Their packages may start a server of their own on the default ports;
# the tests use others.
#
# docker.io is Debian's Docker: the daemon the docker, swarm and network
# tests need.  It is installed whenever no dockerd is, whatever docker
# client is on the PATH: a client alone runs none of those tests, and one
# from elsewhere (a docker binary that no package owns) stays and talks
# to Debian's daemon by API version negotiation.  Docker CE's client
# package, docker-ce-cli, conflicts with docker.io and apt replaces it.
# Where a dockerd is installed already (Docker CE, with its own
# docker-init), nothing of Docker is: that daemon is used.  tini is
# Docker's init (docker-init), which orchd puts in every container
# unless told "init no"; docker.io depends on it, it is listed to be
# checked.
#
# docker-registry (the registry:2 program) and apache2-utils (htpasswd,
# its bcrypt logins): regress/e2e/pull.sh runs a registry of its own.
# wrk: regress/e2e/idleconns.sh loads the gateway beside 10,000 idle
# clients.  faketime (libfaketime): regress/faults/clockjump.sh moves
# the wall clock of a running orchd an hour forward and back.  pebble
# (with pebble-challtestsrv): the ACME server the certificate tests
# issue from, on loopback.  libcrypt-dev: the gateway checks "auth
# basic" passwords with crypt(3).
#
# zsh: regress/e2e/orchctl_help.sh runs orchctl's zsh completion.
#
# libyaml-dev: orchctl import reads Compose files with libyaml (no
# daemon parses YAML).  docker-compose: regress/e2e/compose.sh and
# realstack.sh check their Compose files with "docker-compose config"
# before importing them.
#
# chromium, nodejs and npm (unless one is there: a nodejs package from
# elsewhere carries its own, and Debian's npm would conflict with it):
# regress/e2e/browser.sh drives Debian's
# chromium with puppeteer-core (no browser download: it is pointed at
# /usr/bin/chromium), checks the page with axe-core and lints it with
# eslint; those three come from npm at the versions pinned in
# regress/browser/package-lock.json, installed by "npm ci" into
# regress/browser/node_modules (ignored by git), for test and all.
#
# prometheus: its promtool, which regress/e2e/contrib.sh runs on a live
# /metrics and on contrib/orchd-alerts.yml (the package's own server,
# which it may start, listens on port 9090; no test uses it).  goaccess:
# make fuzz and regress/e2e/fuzzbuild.sh link with clang's libFuzzer,
# which is in libclang-rt-dev (clang only recommends it).
# regress/e2e/goaccess.sh reads orchd's access log, both formats, with
# the command lines orchd.conf(5) gives.
set -eu

BUILD_PKGS="gcc make libc6-dev pkg-config byacc
libevent-dev libtls-dev libsqlite3-dev libjansson-dev libbsd-dev
libseccomp-dev libssl-dev zlib1g-dev passwd libnghttp2-dev libcrypt-dev
libyaml-dev"
TEST_PKGS="libcmocka-dev mandoc sqlite3 curl procps iproute2 busybox-static
clang libclang-rt-dev openssl python3 docker-registry apache2-utils wrk
nghttp2-client
python3-grpcio python3-h2 postgresql postgresql-client redis-server
redis-tools faketime pebble gunicorn chromium nodejs zsh prometheus goaccess docker-compose"
DOCKER_PKGS="docker.io tini"
# make deb: the build's list (debian/control's Build-Depends), the
# package tools (dpkg-buildpackage wants build-essential) and lintian
DEB_PKGS="build-essential dpkg-dev debhelper lintian libmd-dev"

DEMO_PKGS="busybox-static curl"

usage() {
	echo "usage: sh tools/deps.sh [all | build | test | deb | demo]" >&2
	exit 2
}

[ $# -le 1 ] || usage
case "${1:-all}" in
all)	pkgs="$BUILD_PKGS $TEST_PKGS" ;;
build)	pkgs=$BUILD_PKGS ;;
deb)	pkgs="$BUILD_PKGS $DEB_PKGS" ;;
test)	pkgs=$TEST_PKGS ;;
demo)	pkgs="$BUILD_PKGS $DEMO_PKGS" ;;
*)	usage ;;
esac
case "${1:-all}" in
build|deb|demo)
	;;
*)
	# dockerd is in /usr/sbin, which a root shell's PATH may lack
	# (DEPS_SBIN: other directories, for regress/e2e/deps.sh)
	PATH=$PATH:${DEPS_SBIN-/usr/sbin:/sbin} command -v dockerd \
	    >/dev/null 2>&1 || pkgs="$pkgs $DOCKER_PKGS"
	# Debian's npm, unless a nodejs from elsewhere has one of its own
	command -v npm >/dev/null 2>&1 || pkgs="$pkgs npm"
	;;
esac

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
	    missing="$missing $p"
done
# the browser tests' npm modules, pinned, where npm is
browser_modules() {
	_br=${0%/*}/../regress/browser
	[ "${1:-all}" != build ] && [ "${1:-all}" != deb ] &&
	    [ "${1:-all}" != demo ] && command -v npm >/dev/null 2>&1 &&
	    [ -f "$_br/package-lock.json" ] &&
	    [ ! -d "$_br/node_modules/puppeteer-core" ] || return 0
	echo "tools/deps.sh: npm ci in $_br" >&2
	# node trusts its own CA list, not the system's: a host whose
	# egress goes through a proxy of its own CA has that CA in the
	# system's store alone
	_ca=/etc/ssl/certs/ca-certificates.crt
	[ ! -f "$_ca" ] || NODE_EXTRA_CA_CERTS=${NODE_EXTRA_CA_CERTS:-$_ca}
	export NODE_EXTRA_CA_CERTS
	(cd "$_br" && npm ci --no-audit --no-fund >/dev/null)
}

if [ -z "$missing" ]; then
	browser_modules "${1:-all}"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "tools/deps.sh: missing packages:$missing; run as root to install them" >&2
	exit 1
fi
echo "tools/deps.sh: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
browser_modules "${1:-all}"
