#!/bin/sh
#
# The status page's assets as C, for gatewayd (gatewayd/ui.c serves
# them): every file under the folder given (ui/) becomes an array of its
# bytes with its name, its content type and the first 16 hex digits of
# its SHA-256.  Every file but index.html is served under a hashed name,
# app.js as app.HASH.js, cached for a year; index.html is served as /ui/
# and never cached, and its references to the others ("app.js",
# "./app.js" or "/ui/app.js", quoted) are rewritten to the hashed names
# here, so that a new build is never mixed with an old cached asset.
#
# Only sh, find, sort, sed, od and sha256sum: all in Debian's base.
# A file whose type is not in the list below is refused: nothing is
# served with a guessed type.  LICENSE, COPYING, README and *.md files
# (a vendored library's) are left out.
#
# usage: sh tools/uiassets.sh DIR >ui_assets.c

set -eu

dir=${1:?usage: uiassets.sh DIR}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/uiassets.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

ctype() {
	case $1 in
	*.html)	echo 'text/html; charset=utf-8' ;;
	*.js)	echo 'text/javascript; charset=utf-8' ;;
	*.css)	echo 'text/css; charset=utf-8' ;;
	*.svg)	echo 'image/svg+xml' ;;
	*.png)	echo 'image/png' ;;
	*.ico)	echo 'image/x-icon' ;;
	*.json)	echo 'application/json' ;;
	*.txt)	echo 'text/plain; charset=utf-8' ;;
	*)	return 1 ;;
	esac
}

# name: [A-Za-z0-9._-/] only, no "..", an extension: what a URL names as is
checkname() {
	case $1 in
	*[!A-Za-z0-9._/-]*|*..*|.*|*/.*|*/|"")
		echo "uiassets.sh: $1: a name the page cannot use" >&2
		exit 1 ;;
	esac
	ctype "$1" >/dev/null || {
		echo "uiassets.sh: $1: no content type for this extension" >&2
		exit 1
	}
}

hashof() {
	sha256sum <"$1" | cut -c1-16
}

# the bytes as a C initializer, 16 a line
carray() {
	od -An -v -tx1 "$1" | sed 's/  */ /g; s/^ //; /^$/d' |
	    sed 's/\([0-9a-f][0-9a-f]\)/0x\1,/g; s/^/\t/; s/, *$/,/'
}

# a vendored library's licence and notes stay in the tree, not served
(cd "$dir" && find . -type f | sed 's|^\./||' | LC_ALL=C sort) |
    grep -Ev '(^|/)(LICEN[CS]E|COPYING|README)[^/]*$|\.md$' >"$tmp/list" || :
[ -s "$tmp/list" ] || { echo "uiassets.sh: $dir: no files" >&2; exit 1; }
grep -qx index.html "$tmp/list" || {
	echo "uiassets.sh: $dir: no index.html" >&2
	exit 1
}

# the hashed names, and the sed script that puts them in index.html
: >"$tmp/sed"
while read -r f; do
	checkname "$f"
	[ "$f" = index.html ] && continue
	h=$(hashof "$dir/$f")
	base=${f%.*}
	ext=${f##*.}
	# the gateway's route keeps 63 bytes of a name (ORCHD_NAME_MAX)
	if [ ${#base} -gt $((63 - 18 - ${#ext})) ]; then
		echo "uiassets.sh: $f: the name is too long to serve" >&2
		exit 1
	fi
	echo "$f $base.$h.$ext $h" >>"$tmp/names"
	q=$(printf '%s' "$f" | sed 's/[.[\*^$/]/\\&/g')
	r="$base.$h.$ext"
	r=$(printf '%s' "$r" | sed 's/[&/\]/\\&/g')
	printf 's/"\\(\\.\\/\\|\\/ui\\/\\)\\{0,1\\}%s"/"%s"/g\n' "$q" "$r" \
	    >>"$tmp/sed"
done <"$tmp/list"
sed -f "$tmp/sed" "$dir/index.html" >"$tmp/index.html"
h=$(hashof "$tmp/index.html")
echo "index.html index.html $h" >>"$tmp/names"

cat <<'HEAD'
/* made by tools/uiassets.sh from ui/: do not edit */

#include <stddef.h>

#include "ui.h"

HEAD
i=0
while read -r f served h; do
	src="$dir/$f"
	[ "$f" = index.html ] && src="$tmp/index.html"
	echo "/* $f */"
	echo "static const unsigned char ui_a$i[] = {"
	carray "$src"
	echo "	0x00"
	echo "};"
	i=$((i + 1))
done <"$tmp/names"
echo
echo "const struct ui_asset ui_assets[] = {"
i=0
while read -r f served h; do
	src="$dir/$f"
	[ "$f" = index.html ] && src="$tmp/index.html"
	n=$(wc -c <"$src" | tr -d ' ')
	printf '\t{ "%s", "%s", "%s", "%s", ui_a%d, %s },\n' "$f" "$served" \
	    "$(ctype "$f")" "$h" "$i" "$n"
	i=$((i + 1))
done <"$tmp/names"
echo "};"
echo "const size_t ui_nassets = $i;"
