#!/bin/sh
# Builds the test image orchd-test/busybox with `docker import` from a
# rootfs holding only busybox-static: no registry is reachable here.
set -eu
IMAGE=orchd-test/busybox:latest
docker image inspect "$IMAGE" >/dev/null 2>&1 && exit 0
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/tmp" "$root/data" "$root/www"
cp /bin/busybox "$root/bin/busybox"
for app in sh httpd ls cat echo env sleep nc wget mkdir; do
	ln -s busybox "$root/bin/$app"
done
tar -C "$root" -c . | docker import -c 'CMD ["/bin/sh"]' - "$IMAGE" >/dev/null
echo "regress/docker-image.sh: imported $IMAGE" >&2
