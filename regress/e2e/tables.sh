#!/bin/sh
# The dispatch tables' name flags, from the source: every row whose
# payload is a struct that begins with char name[] (sizeof(struct x) or
# records of it) must carry PROC_NAME(struct x), or its handler would get
# a name that need not end.  The compiler cannot see this (C cannot ask
# whether a struct has a member), so this script reads the headers for
# such structs and each process's table for its rows.  A PROC_ANYLEN row
# names no struct: its PROC_NAME is the writer's to remember.  A table
# with a row left unflagged on purpose is checked too, to show the check
# fails.  No daemon is started.
#
#	sh regress/e2e/tables.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1

# the structs whose first member is char name[...], one a line
named_structs() {
	awk '
	/^struct [a-z_0-9]+ \{/ { s = $2; first = 1; next }
	first && /^[ \t]*(\/\*.*\*\/)?[ \t]*$/ { next }
	first {
		if ($0 ~ /^[ \t]*char[ \t]+name\[/)
			print s
		first = 0
	}' common/*.h */*.h | sort -u
}

# check NAMED-FILE SOURCE...: "row FILE TYPE: missing PROC_NAME(struct x)"
# for every row of a proc_handler table that needs the flag
check_rows() {
	awk -v named="$1" '
	BEGIN {
		while ((getline l < named) > 0)
			need[l] = 1
	}
	FNR == 1 { intab = 0 }
	/^static const struct proc_handler .*\[\] = \{/ { intab = 1; next }
	intab && /^};/ { intab = 0; next }
	!intab { next }
	/^[ \t]*\{ IMSG_/ { row = $0; inrow = 1 }
	inrow && row != $0 { row = row " " $0 }
	inrow && /\},[ \t]*$/ {
		inrow = 0
		split(row, w, /[{, \t]+/)
		type = w[2]
		st = ""
		if (match(row, /IMSG_[A-Z_0-9]+, sizeof\(struct [a-z_0-9]+\)/)) {
			st = substr(row, RSTART, RLENGTH)
			sub(/.*sizeof\(struct /, "", st)
			sub(/\)$/, "", st)
		}
		if (st != "" && (st in need) &&
		    index(row, "PROC_NAME(struct " st ")") == 0)
			printf("row %s %s: missing PROC_NAME(struct %s)\n",
			    FILENAME, type, st)
		if (match(row, /PROC_NAME\(struct [a-z_0-9]+\)/)) {
			n = substr(row, RSTART + 17, RLENGTH - 18)
			if (st != "" && n != st)
				printf("row %s %s: PROC_NAME(struct %s) for " \
				    "struct %s\n", FILENAME, type, n, st)
		}
	}' "$@"
}

named_structs >"$T/named"
if grep -qx wl_ref "$T/named" && grep -qx ctl_name "$T/named"; then
	ok "the structs that begin with a name are found ($(wc -l \
	    <"$T/named") of them)"
else
	fail "the structs that begin with a name are found"
	sed 's/^/#	/' "$T/named"
fi

tables=$(grep -l '^static const struct proc_handler .*\[\] = {' \
    orchd/*.c confd/*.c spawnerd/*.c stored/*.c gatewayd/*.c reaperd/*.c \
    runtimed/*.c \
    acmed/*.c notifyd/*.c \
    2>/dev/null)
ntables=$(echo "$tables" | wc -w)
if [ "$ntables" -ge 6 ]; then
	ok "every process has its table ($ntables: $(echo $tables))"
else
	fail "every process has its table (only $ntables: $(echo $tables))"
fi

for f in $tables; do
	rows=$(grep -c '^[[:space:]]*{ IMSG_' "$f")
	check_rows "$T/named" "$f" >"$T/out"
	if [ -s "$T/out" ]; then
		fail "$f: every row of a named payload has PROC_NAME"
		sed 's/^/#	/' "$T/out"
	else
		ok "$f: every row of a named payload has PROC_NAME ($rows rows)"
	fi
done

# the check itself: a row left without its flag, and one with another's
cat >"$T/bad.c" <<'EOF'
static const struct proc_handler bad_handlers[] = {
	{ IMSG_RT_STATE, sizeof(struct rt_state), PROC_FROM(PROC_RUNTIME),
	    wake_recv_state },
	{ IMSG_RT_DRAIN, sizeof(struct wl_ref), PROC_FROM(PROC_RUNTIME),
	    wake_recv_drain, PROC_NAME(struct wl_ref) },
	{ IMSG_RT_HOLD, sizeof(struct wl_ref), PROC_FROM(PROC_RUNTIME),
	    instance_recv_hold, PROC_NAME(struct ctl_name) },
	{ IMSG_CFG_DONE, sizeof(uint32_t), PROC_FROM(PROC_PARENT),
	    cfg_recv_done },
};
EOF
check_rows "$T/named" "$T/bad.c" >"$T/out"
if grep -q 'IMSG_RT_STATE: missing PROC_NAME(struct rt_state)' "$T/out" &&
    grep -q 'IMSG_RT_HOLD: PROC_NAME(struct ctl_name) for struct wl_ref' \
    "$T/out" && [ "$(wc -l <"$T/out")" -eq 3 ]; then
	ok "a row without its PROC_NAME, or with another struct's, is caught"
else
	fail "a row without its PROC_NAME, or with another struct's, is caught"
	sed 's/^/#	/' "$T/out"
fi

e2e_done
