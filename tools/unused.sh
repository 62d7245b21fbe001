#!/bin/sh
#
# tools/unused.sh: the functions defined in the programs' sources that
# nothing calls or names, and those that only the tests do.
#
# A function counts as used where its name appears outside its own
# definition and its prototypes: a call, or a pointer to it in a table.
# Comments are stripped first (cc -fpreprocessed, no macro expanded), so
# that "see foo()" keeps nothing alive.  A name used only inside a macro
# or the grammar's actions counts, as it should.
#
# Usage: sh tools/unused.sh		(from anywhere in the tree; needs
#					 universal-ctags and a C compiler)

set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d /tmp/unused.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM

CC=${CC:-cc}
progs=$(git ls-files '*.c' '*.h' '*.y' | grep -v '^regress/')
csrcs=$(git ls-files '*.c' '*.h' | grep -v '^regress/')
tests=$(git ls-files 'regress/*.c' 'regress/*.h')

# words of the sources without their comments: name, count
words() {
	for f in "$@"; do
		"$CC" -fpreprocessed -dD -E -P -x c "$f" 2>/dev/null || cat "$f"
	done | tr -cs 'A-Za-z0-9_' '\n' | sort | uniq -c |
	    awk '{ print $2, $1 }' | sort
}
words $progs >"$tmp/prog"
words $tests >"$tmp/test"

# each function's definitions and prototypes: name, how many (not the
# grammar's, which ctags cannot read; nor macros such as RB_GENERATE())
ctags -x --c-kinds=fp -o - $csrcs | awk '$1 ~ /[a-z]/ { print $1 }' |
    sort | uniq -c | awk '{ print $2, $1 }' | sort >"$tmp/decl"
ctags -x --c-kinds=f -o - $csrcs | awk '{ print $1, $4 }' |
    sort >"$tmp/defs"

join "$tmp/decl" "$tmp/prog" | awk '$3 <= $2 { print $1 }' >"$tmp/dead"
join -a 1 -e 0 -o 0,2.2 "$tmp/dead" "$tmp/test" | while read -r name n; do
	file=$(awk -v n="$name" '$1 == n { print $2 }' "$tmp/defs" |
	    tr '\n' ' ')
	if [ "$n" -gt 0 ]; then
		echo "tests only: $name ($file)"
	else
		echo "unused: $name ($file)"
	fi
done
