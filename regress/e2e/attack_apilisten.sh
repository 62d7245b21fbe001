#!/bin/sh
# TCP listeners of API workloads ("listen", orchd/api_listen.c), with
# process workloads: a workload created through the API with "listen":
# ["127.0.0.1:PL"] is woken by a connection to PL, which reaches it; its
# listener moves with a PATCH, stays across a reload, and is closed by
# its delete, and it is bound again at the next start.  Attacks, each refused 403 and binding nothing: a listener
# on the API's port, the gateway's, a listener of orchd.conf's, an
# orchd.conf workload's own port, another API workload's listener, the
# workload's own port, a port below 1024, 0.0.0.0, a non-loopback
# address, "*" and "localhost".  On an orchd whose API has no listeners
# the first create is refused: the test fails there.
#
#	sh regress/e2e/attack_apilisten.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

ports GW API PF PFW PL PL2 PDB PDB2 PFREE
KEY=e2e-key-$$-0123456789abcdef
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
mkdir -p "$T/log" "$T/bin"
cp "$BUILD/regress/testhttp" "$T/bin/testhttp"
chmod 0755 "$T/bin" "$T/bin/testhttp"
for f in f db db2; do
	: >"$T/$f.starts"
	chmod 0666 "$T/$f.starts"
done
N=h34l$$

conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
api allow process

workload "f" {
	listen on "127.0.0.1" port $PF
	command "$T/bin/testhttp serve $PFW $T/f.starts"
	port $PFW
}
CONF
start_orchd_or_exit

URL=http://127.0.0.1:$API
# mk NAME PORT LISTEN: POST a process workload listening on LISTEN
mk() {
	curl -s -m 30 -o "$T/body" -w '%{http_code}' -X POST \
	    -H "Authorization: Bearer $KEY" -d "{\"name\": \"$1\",
	    \"port\": $2, \"listen\": [\"$3\"],
	    \"command\": \"$T/bin/testhttp serve $2 $T/db.starts\"}" \
	    "$URL/v1/workloads"
}
# tcpget PORT: the status of GET / through a raw TCP port
tcpget() {
	curl -s -m 30 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$1/"
}
bound() {	# bound PORT: something listens on 127.0.0.1:PORT
	ss -Hltn "sport = :$1" | grep -q .
}
state() {
	"$ORCHCTL" -s "$SOCK" show workloads | awk -v n="$1" '$1 == n {
	    print $2 }'
}

c=$(mk "$N" "$PDB" "127.0.0.1:$PL")
check "API: a workload with listen 127.0.0.1:PL ($c): $(cat "$T/body")" \
    [ "$c" = 201 ]
check "... PL is bound by orchd, the workload asleep ($(state "$N"))" \
    sh -c "ss -Hltnp 'sport = :$PL' | grep -q orchd &&
    [ '$(state "$N")' = asleep ]"
c=$(tcpget "$PL")
check "a connection to PL wakes it and reaches it ($c, $(state "$N"))" \
    sh -c "[ $c = 200 ] && [ \$(wc -l <$T/db.starts) -eq 1 ]"
c=$(curl -s -m 30 -o "$T/json" -w '%{http_code}' \
    -H "Authorization: Bearer $KEY" "$URL/v1/workloads/$N")
check "GET returns its listen ($c)" sh -c \
    "[ $c = 200 ] && grep -q '\"listen\": *\[\"127.0.0.1:$PL\"\]' $T/json"

# attacks: each 403, nothing bound
att() {	# att DESCRIPTION LISTEN PORT
	c=$(mk "${N}x" "$3" "$2")
	check "refused: $1 ($c): $(cat "$T/body")" [ "$c" = 403 ]
}
att "the API's port" "127.0.0.1:$API" "$PDB2"
att "the gateway's port" "127.0.0.1:$GW" "$PDB2"
att "the gateway's port on another loopback address" "127.0.0.9:$GW" \
    "$PDB2"
att "orchd.conf's listener" "127.0.0.1:$PF" "$PDB2"
att "an orchd.conf workload's own port" "127.0.0.1:$PFW" "$PDB2"
att "another API workload's listener" "127.0.0.1:$PL" "$PDB2"
att "another API workload's own port" "127.0.0.1:$PDB" "$PDB2"
att "its own port" "127.0.0.1:$PDB2" "$PDB2"
att "a port below 1024" "127.0.0.1:23" "$PDB2"
att "0.0.0.0" "0.0.0.0:$PFREE" "$PDB2"
att "a non-loopback address" "192.0.2.1:$PFREE" "$PDB2"
att "*" "*:$PFREE" "$PDB2"
att "localhost" "localhost:$PFREE" "$PDB2"
check "none of them was made" sh -c \
    "! '$ORCHCTL' -s '$SOCK' show workloads | grep -q '^${N}x '"
check "PFREE was never bound" sh -c "! ss -Hltn 'sport = :$PFREE' |
    grep -q ."
check "the gateway and the API still answer" sh -c \
    "curl -s -m 10 -o /dev/null -w '%{http_code}' $URL/healthz |
    grep -qx 200"

# a PATCH moves it: PL closed, PL2 bound and reaching it
c=$(curl -s -m 30 -o "$T/body" -w '%{http_code}' -X PATCH \
    -H "Authorization: Bearer $KEY" -d "{\"listen\": [\"127.0.0.1:$PL2\"]}" \
    "$URL/v1/workloads/$N")
check "PATCH listen to PL2 ($c): $(cat "$T/body")" [ "$c" = 200 ]
check "... PL closed, PL2 bound" sh -c "! ss -Hltn 'sport = :$PL' |
    grep -q . && ss -Hltnp 'sport = :$PL2' | grep -q orchd"
c=$(tcpget "$PL2")
check "... a connection to PL2 reaches it ($c)" [ "$c" = 200 ]

# a reload keeps it
kill -HUP "$ORCHD_PID"
sleep 2
c=$(tcpget "$PL2")
check "after a reload PL2 still reaches it ($c)" [ "$c" = 200 ]
check "... orchd still runs" alive "$ORCHD_PID"

# an update that keeps the address keeps the socket
c=$(curl -s -m 30 -o "$T/body" -w '%{http_code}' -X PATCH \
    -H "Authorization: Bearer $KEY" -d '{"idle_timeout": "10m"}' \
    "$URL/v1/workloads/$N")
check "PATCH of another field, PL2 kept ($c)" sh -c "[ $c = 200 ] &&
    [ \$(curl -s -m 30 -o /dev/null -w '%{http_code}' \
    http://127.0.0.1:$PL2/) = 200 ]"

# one address written two ways, beside the socket the workload has: one
# socket cannot serve both (it ended the daemon: a listener with none)
plisten() {	# plisten JSON-ARRAY: PATCH its listen
	curl -s -m 30 -o "$T/body" -w '%{http_code}' -X PATCH \
	    -H "Authorization: Bearer $KEY" -d "{\"listen\": $1}" \
	    "$URL/v1/workloads/$N"
}
c=$(plisten "[\"[::1]:$PL2\"]")
check "PATCH listen to [::1]:PL2 ($c): $(cat "$T/body")" [ "$c" = 200 ]
c=$(plisten "[\"[::1]:$PL2\", \"[0::1]:$PL2\"]")
check "... then [::1] and [0::1], one address: refused ($c): $(cat "$T/body")" \
    sh -c "[ $c -ge 400 ] && [ $c -lt 500 ] && grep -q twice '$T/body'"
check "... orchd still runs" alive "$ORCHD_PID"
c=$(plisten "[\"127.0.0.1:$PL2\"]")
check "... and takes 127.0.0.1:PL2 back ($c)" sh -c "[ $c = 200 ] &&
    [ \$(curl -s -m 30 -o /dev/null -w '%{http_code}' \
    http://127.0.0.1:$PL2/) = 200 ]"

# the delete closes it
c=$(curl -s -m 30 -o /dev/null -w '%{http_code}' -X DELETE \
    -H "Authorization: Bearer $KEY" "$URL/v1/workloads/$N")
check "DELETE ($c)" [ "$c" = 200 ]
sleep 1
check "... PL2 is closed" sh -c "! ss -Hltn 'sport = :$PL2' | grep -q ."
c=$(mk "$N" "$PDB" "127.0.0.1:$PL2")
check "... and may be taken again by a new workload ($c)" [ "$c" = 201 ]

stop_orchd
check "orchd exits 0 ($STATUS)" [ "$STATUS" = 0 ]
check "... PL2 closed with it" sh -c "! ss -Hltn 'sport = :$PL2' | grep -q ."
# at the next start, from the store, bound again
start_orchd
c=$(tcpget "$PL2")
check "restarted: PL2 bound again from the store, reaching it ($c)" \
    [ "$c" = 200 ]
stop_orchd
check "orchd exits 0 ($STATUS)" [ "$STATUS" = 0 ]
e2e_done
