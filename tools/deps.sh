#!/bin/sh
# Installs what building and testing orchd need on Debian 12, as root.
# Installs nothing when everything is there already.  tini is Docker's
# init (docker-init), which orchd puts in every container unless told
# "init no"; docker.io depends on it, it is listed to be checked.
# libssl-dev and zlib1g-dev: the static libraries behind libtls.a and
# libsqlite3.a (libssl.a, libcrypto.a, libz.a) for make STATIC=1,
# which make check builds too.
set -eu

PKGS="gcc make libc6-dev pkg-config byacc mandoc
libevent-dev libtls-dev libsqlite3-dev sqlite3 libcmocka-dev libjansson-dev
libbsd-dev libseccomp-dev libssl-dev zlib1g-dev
curl procps passwd iproute2 busybox-static docker.io tini clang openssl python3"

missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
	    missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "tools/deps.sh: missing packages:$missing; run as root to install them" >&2
	exit 1
fi
echo "tools/deps.sh: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
