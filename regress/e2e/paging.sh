#!/bin/sh
# show workloads a page at a time (issue 38): 1,200 sleeping process
# workloads; GET /v1/workloads without a limit answers the first 1,000
# (the default) and the cursor of the next page; followed with limit=7,
# 299, 1,200 and 10,000, every workload is listed exactly once, in name
# order, and the last page's next is null; after= a name that is not a
# workload's starts after it; orchctl show workloads, which asks 500 at
# a time, lists every one exactly once, and show workload NAME still
# answers one.  Every wait bounded.
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports GW API WP0
NW=1200
KEY=e2e-key-$$-paging-0123456789
mkdir -p "$T/log"
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
{
	conf_head
	cat <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
CONF
	# never woken: an address nothing listens on, a port each
	awk -v n="$NW" -v p0="$WP0" 'BEGIN {
		for (i = 1; i <= n; i++)
			printf "workload \"pg%04d\" {\n\thost \"pg%d.test\"\n" \
			    "\tcommand \"/bin/sleep 1000\"\n" \
			    "\taddress \"127.0.77.1\"\n\tport %d\n}\n",
			    i, i, p0 + i
	}'
} >"$T/orchd.conf"
awk -v n="$NW" 'BEGIN { for (i = 1; i <= n; i++) printf "pg%04d\n", i }' \
    >"$T/want"

start_orchd_or_exit
URL=http://127.0.0.1:$API

# pages LIMIT: follows next from the first page, the names one a line
# in $T/got; at most NW + 2 pages
pages() {
	: >"$T/got"
	after=
	n=0
	while [ $n -le $((NW + 2)) ]; do
		q="limit=$1"
		[ -n "$after" ] && q="$q&after=$after"
		curl -sS -m 30 -H "Authorization: Bearer $KEY" \
		    "$URL/v1/workloads?$q" >"$T/page" || return 1
		after=$(python3 -c 'import json, sys
o = json.load(open(sys.argv[1]))
with open(sys.argv[2], "a") as f:
	for w in o["workloads"]:
		f.write(w["name"] + "\n")
print(o["next"] or "")' "$T/page" "$T/got") || return 1
		n=$((n + 1))
		[ -z "$after" ] && { echo "$n" >"$T/npages"; return 0; }
	done
	return 1
}
# every one, once, in order
complete() { cmp -s "$T/got" "$T/want"; }

curl -sS -m 30 -H "Authorization: Bearer $KEY" "$URL/v1/workloads" \
    >"$T/first"
check "GET /v1/workloads answers the default page of 1,000" python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))
w = [x["name"] for x in o["workloads"]]
assert len(w) == 1000, len(w)
assert w == ["pg%04d" % i for i in range(1, 1001)], w[:3]
assert o["next"] == "pg1000", o["next"]' "$T/first"

for lim in 7 299 1200 10000; do
	if pages "$lim" && complete; then
		ok "limit=$lim: all $NW listed once, in order ($(cat "$T/npages") pages)"
	else
		fail "limit=$lim: all $NW listed once, in order"
		diff "$T/want" "$T/got" | head -n 5
	fi
done
check "... limit=10000: one page, its next null" [ "$(cat "$T/npages")" = 1 ]
pages 299
check "... limit=299: 5 pages, the last one's next null" \
    [ "$(cat "$T/npages")" = 5 ]

curl -sS -m 30 -H "Authorization: Bearer $KEY" \
    "$URL/v1/workloads?limit=3&after=pg0100x" >"$T/mid"
check "after= a name that is no workload's: the page starts after it" \
    python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))
assert [x["name"] for x in o["workloads"]] == ["pg0101", "pg0102",
    "pg0103"], o
assert o["next"] == "pg0103"' "$T/mid"
curl -sS -m 30 -H "Authorization: Bearer $KEY" \
    "$URL/v1/workloads?after=pg1200" >"$T/end"
check "after= the last one: an empty page, next null" python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))
assert o == {"workloads": [], "next": None}, o' "$T/end"

"$ORCHCTL" -s "$SOCK" show workloads >"$T/ctl" 2>"$T/ctl.err"
awk 'NR > 1 {print $1}' "$T/ctl" >"$T/ctlnames"
check "orchctl show workloads: all $NW, once each, in order (pages of 500)" \
    cmp -s "$T/ctlnames" "$T/want"
check "... with a state each" [ "$(awk 'NR > 1 && $2 == "asleep"' \
    "$T/ctl" | wc -l)" = "$NW" ]
check "orchctl show workload NAME still answers one" sh -c \
    "'$ORCHCTL' -s '$SOCK' show workload pg0777 | grep -q pg0777"
check "orchd still runs" alive "$ORCHD_PID"
stop_orchd
check "orchd stops cleanly" [ "$STATUS" = 0 ]
e2e_done
