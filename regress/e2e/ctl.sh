#!/bin/sh
# orchctl against the real daemons: show workloads, show workload with
# its definition and history, -j as JSON with RFC 3339 times, tables
# aligned around a 44-character name, the idle timeout the reaper goes by,
# a failed workload's reason, wake, suspend, keepwarm on
# and off with the reaper running, show stats, and logs: the last lines,
# -n, -f with an append, a truncation and a rotation, a large file, a
# symbolic link in the log directory, a workload with no log yet.
# Unknown names fail with exit status 1.
# All on loopback, every wait bounded.
#
#	sh regress/e2e/ctl.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

# a port nothing listens on, at or above $1
# no_proc PATTERN: no process matches (pgrep run here, not by sh -c,
# whose own command line would match)
no_proc() {
	! pgrep -f "$1" >/dev/null
}
running() {
	pgrep -f "$1" >/dev/null
}
ports GW P_WEB P_WARM P_QUIET P_LONG P_BROKEN
# a preview's name, as CI makes them: 44 characters
LONG=pr-4711-checkout-redesign-preview-abcdef0123
PYTHON=$(command -v python3 2>/dev/null)
# python3 may be a shim that cannot run: then the JSON is checked by grep
if [ -n "$PYTHON" ] && ! echo '{}' | "$PYTHON" -m json.tool >/dev/null 2>&1
then
	PYTHON=
fi

# the workloads run as uids of their own: their programs readable,
# counters writable by any; the database directory is left for orchd
# to make
mkdir -p "$T/log"
cp "$BUILD/regress/testhttp" "$T/testhttp"
chmod 0755 "$T/testhttp"
cat >"$T/web.sh" <<EOF
#!/bin/sh
echo "first line: marker-$$"
echo "second line"
exec "$T/testhttp" serve $P_WEB "$T/web.starts"
EOF
chmod 0755 "$T/web.sh"
for f in web warm; do
	: >"$T/$f.starts"
	chmod 0666 "$T/$f.starts"
done

conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
idle timeout 2s
reaper interval 1s
wake timeout 10s

listen on 127.0.0.1 port $GW

workload "web" {
	host "web.test"
	host "www.web.test"
	command "/bin/sh '$T/web.sh'"
	port $P_WEB
	idle timeout 5m
	memory 256M
	env "GREETING=s3cret-$$"
	env "LANG=C"
}
workload "$LONG" {
	host "$LONG.preview.test"
	command "'$T/testhttp' serve $P_LONG"
	port $P_LONG
	keep warm
}
workload "broken" {
	host "broken.test"
	command "/bin/sh -c 'exit 3'"
	port $P_BROKEN
	wake timeout 5s
}
workload "warm" {
	host "warm.test"
	command "'$T/testhttp' serve $P_WARM '$T/warm.starts'"
	port $P_WARM
}
workload "quiet" {
	host "quiet.test"
	command "'$T/testhttp' serve $P_QUIET"
	port $P_QUIET
}
CONF

# ctl ARGS...: orchctl's status in $rc, stdout in $T/out, stderr in $T/err
ctl() {
	"$ORCHCTL" -s "$SOCK" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	return $rc
}
lines() { wc -l <"$1" | tr -d ' '; }
show() {	# show FILE: its lines, indented, for a failure's context
	sed 's/^/#	/' "$1"
}
# the line of show workloads for workload $1 says state $2
listed_as() {
	ctl show workloads && grep -Eq "^$1 +$2 " "$T/out"
}
# the JSON on $T/out parses
json_ok() {
	if [ -n "$PYTHON" ]; then
		"$PYTHON" -m json.tool <"$T/out" >/dev/null
	else
		head -c 1 "$T/out" | grep -q '[[{]' &&
		    tail -c 2 "$T/out" | grep -q '[]}]'
	fi
}
RFC3339='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z'
# aligned ALIGN FILE: FILE is a table whose columns, left (l) or right
# (r) aligned as ALIGN says, start (l) or end (r) on every line where
# they do on the header, its first line; columns are two blanks apart.
# An empty last cell may end a line early.
aligned() {
	awk -v al="$1" '
	function blank(c) { return c == " " || c == "" }
	NR == 1 {
		n = 0
		L = length($0)
		for (i = 1; i <= L; i++) {
			c = substr($0, i, 1)
			if (c == " ")
				continue
			if (i == 1 || substr($0, i - 2, 2) == "  ")
				start[++n] = i
			if (i == L || substr($0, i + 1, 2) == "  ")
				end[n] = i
		}
		if (n != length(al)) {
			print "# " n " columns on the header, not " length(al)
			bad = 1
		}
		next
	}
	{
		for (k = 1; k <= n; k++) {
			a = substr(al, k, 1)
			if (k == n && length($0) < start[k])
				continue
			if (a == "l" && (blank(substr($0, start[k], 1)) ||
			    (k > 1 && !blank(substr($0, start[k] - 1, 1))))) {
				print "# line " NR ", column " k ": " $0
				bad = 1
			}
			if (a == "r" && (blank(substr($0, end[k], 1)) ||
			    !blank(substr($0, end[k] + 1, 1)))) {
				print "# line " NR ", column " k ": " $0
				bad = 1
			}
		}
	}
	END { exit bad }' "$2"
}
# -j show workload $1 has a last_seen that is a time
seen_json() {
	ctl -j show workload "$1" &&
	    grep -Eq "\"last_seen\": \"$RFC3339\"" "$T/out"
}

start_orchd_or_exit

# 1. the list, before anything ran
check "show workloads" ctl show workloads
H='^NAME +STATE +DRIVER +MEM +WARM +IDLE +LAST SEEN +BACKOFF +HOSTS +TCP +REASON$'
check "has a header" grep -Eq "$H" "$T/out"
check "lists web asleep, process, not warm, 5m, never seen, both hosts" \
    grep -Eq '^web +asleep +process +[^ ]+ +no +5m +never +- +web.test,www.web.test +- +-$' \
    "$T/out"
check "lists warm and quiet with the global idle timeout, 2s" \
    sh -c "grep -Eq '^warm +asleep +process +[^ ]+ +no +2s +never ' '$T/out' &&
    grep -Eq '^quiet +asleep +process +[^ ]+ +no +2s ' '$T/out'"
check "the 44-character name, kept warm: idle never" \
    wait_for 10 sh -c "\"$ORCHCTL\" -s \"$SOCK\" show workloads |
    grep -Eq '^$LONG +running +process +[^ ]+ +yes +never '"
ctl show workloads
check "its columns line up with the header, whatever the name's length" \
    aligned lllrlllllll "$T/out"
grep -q "^$LONG " "$T/out" || show "$T/out"
check "no line ends in a blank" sh -c "! grep -q ' \$' '$T/out'"
[ "$(lines "$T/out")" -eq 6 ] || show "$T/out"
check "one line per workload" [ "$(lines "$T/out")" -eq 6 ]
check "show summary lines up" sh -c "\"$ORCHCTL\" -s \"$SOCK\" show summary \
    >'$T/summary' && grep -Eq '^store +[0-9]+ ' '$T/summary'"
# the table ends at the first blank line; the database line follows it
sed '/^$/,$d' "$T/summary" >"$T/summary.table"
check "its columns too" aligned lrrrr "$T/summary.table"
check "and the database line follows the table" \
    grep -Eq '^database: [0-9]+ writes held' "$T/summary"
check "-j: idle_timeout is the one the reaper goes by, 0 for never" \
    sh -c "\"$ORCHCTL\" -s \"$SOCK\" -j show workloads | tr -d ' \n' |
    grep -q '\"name\":\"quiet\",[^}]*\"idle_timeout\":2,' &&
    \"$ORCHCTL\" -s \"$SOCK\" -j show workloads | tr -d ' \n' |
    grep -q '\"name\":\"$LONG\",[^}]*\"idle_timeout\":0,'"
check "show workload quiet: the global idle timeout, said so" \
    sh -c "\"$ORCHCTL\" -s \"$SOCK\" show workload quiet |
    grep -Eq '^idle timeout: +2s \(global\)$'"

# a workload that cannot start: failed, and why
ctl wake broken
check "wake of a workload that exits at once fails ($rc)" [ "$rc" -eq 1 ]
check "show workloads: failed, with its reason in REASON" \
    wait_for 10 sh -c "\"$ORCHCTL\" -s \"$SOCK\" show workloads |
    grep -Eq '^broken +failed +process +[^ ]+ +no +2s +never +- +broken.test +- +(exited|start failed|wake timeout)'"
ctl show workloads
check "which keeps the columns in line" aligned lllrlllllll "$T/out"
grep -q '^broken ' "$T/out" || show "$T/out"
check "show workload broken: the reason" sh -c "\"$ORCHCTL\" -s \"$SOCK\" \
    show workload broken >'$T/broken' &&
    grep -Eq '^state: +failed$' '$T/broken' &&
    grep -Eq '^reason: +(exited|start failed|wake timeout)$' '$T/broken'"
check "and the history says it too" \
    grep -Eq "^$RFC3339 +waking +failed +(exited|start failed|wake timeout)" \
    "$T/broken"
grep -q '^reason:' "$T/broken" || show "$T/broken"
check "-j: state failed, its reason" sh -c "\"$ORCHCTL\" -s \"$SOCK\" -j \
    show workload broken | tr -d ' \n' |
    grep -Eq '\"state\":\"failed\",\"reason\":\"(exited|start_failed|wake_timeout)\"'"
check "show workload of one never woken" ctl show workload quiet
check "says so instead of a history" \
    grep -q '^no transitions recorded$' "$T/out"
check "show workload -j of one never woken: an empty history" \
    sh -c "\"$ORCHCTL\" -s \"$SOCK\" -j show workload quiet |
    grep -q '\"history\": \[\]'"

# 2. wake
check "orchctl wake web" ctl wake web
check "says it runs ($(cat "$T/out"))" grep -qx 'web is running' "$T/out"
check "one start ($(lines "$T/web.starts"))" \
    [ "$(lines "$T/web.starts")" -eq 1 ]
check "its process runs" running "testhttp serve $P_WEB"
check "show workloads says running" wait_for 5 listed_as web running
check "wake of a running workload: no second start" ctl wake web
check "still one start" [ "$(lines "$T/web.starts")" -eq 1 ]

# a request through the gateway: last seen, once the reaper has told
# the store
out=$(curl -s -m 10 -H 'Host: web.test' "http://127.0.0.1:$GW/")
check "a request through the gateway is served" \
    [ "$out" = "hello from testhttp" ]
check "-j show workload: last_seen as RFC 3339" wait_for 10 seen_json web
check "show workload web" ctl show workload web
check "has its fields" sh -c "grep -Eq '^state: +running$' '$T/out' &&
    grep -Eq '^driver: +process$' '$T/out' &&
    grep -Eq '^hosts: +web.test,www.web.test$' '$T/out' &&
    grep -Eq '^keep warm: +no$' '$T/out' &&
    grep -Eq '^idle timeout: +5m$' '$T/out' &&
    grep -Eq '^last seen: +$RFC3339 \(.* ago\)$' '$T/out' &&
    grep -Eq '^started at: +$RFC3339 \(.* ago\)$' '$T/out' &&
    grep -Eq '^wakes: +1, [0-9]+ today \(UTC\)$' '$T/out'"
check "and its history: asleep -> waking (operator)" \
    grep -Eq "^$RFC3339 +asleep +waking +operator" "$T/out"
check "then waking -> running (ready)" \
    grep -Eq "^$RFC3339 +waking +running +ready" "$T/out"
grep -Eq 'waking +running' "$T/out" || show "$T/out"
check "its history lines up" sh -c "sed -n '/^TIME /,\$p' '$T/out' \
    >'$T/history' && [ \$(wc -l <'$T/history') -ge 3 ]"
check "its columns too" aligned lllll "$T/history"
check "and its definition: command, address, port, memory, health" \
    sh -c "grep -Fqx \"command:      /bin/sh '$T/web.sh'\" '$T/out' &&
    grep -Eq '^address: +127.0.0.1$' '$T/out' &&
    grep -Eq '^port: +$P_WEB$' '$T/out' &&
    grep -Eq '^memory: +256M$' '$T/out' &&
    grep -Eq '^health: +tcp$' '$T/out' &&
    grep -Eq '^wake timeout: +global$' '$T/out'"
check "the names of its environment, not their values" \
    sh -c "grep -Eq '^env: +GREETING, LANG$' '$T/out' &&
    ! grep -q 's3cret' '$T/out'"
grep -q '^command:' "$T/out" || show "$T/out"

# 3. JSON
check "-j show workloads" ctl -j show workloads
check "is valid JSON" json_ok
check "an array of five" sh -c "[ \$(grep -c '\"name\":' '$T/out') -eq 5 ]"
check "web is running there" grep -q '"state": "running"' "$T/out"
check "with last_seen as RFC 3339 and null when never" \
    sh -c "grep -Eq '\"last_seen\": \"$RFC3339\"' '$T/out' &&
    grep -q '\"last_seen\": null' '$T/out'"
check "hosts as an array, idle_timeout in seconds" \
    sh -c "tr -d ' \n' <'$T/out' |
    grep -q '\"hosts\":\[\"web.test\",\"www.web.test\"\]' &&
    grep -q '\"idle_timeout\": 300' '$T/out'"
check "-j show workload web" ctl -j show workload web
check "is valid JSON" json_ok
check "with its history" sh -c "tr -d ' \n' <'$T/out' |
    grep -q '\"from\":\"asleep\",\"to\":\"waking\",\"reason\":\"operator\"'"
check "started_at as RFC 3339" \
    grep -Eq "\"started_at\": \"$RFC3339\"" "$T/out"
check "with its definition, the environment's names only" \
    sh -c "tr -d ' \n' <'$T/out' |
    grep -q '\"definition\":{.*\"port\":$P_WEB,.*\"memory\":268435456' &&
    tr -d ' \n' <'$T/out' | grep -q '\"env\":\[\"GREETING\",\"LANG\"\]' &&
    ! grep -q 's3cret' '$T/out'"

# 4. logs
check "orchctl logs web" ctl logs web
check "prints what it wrote" grep -qx "first line: marker-$$" "$T/out"
check "every line of it" [ "$(lines "$T/out")" -eq 2 ]
check "logs web -n 1" ctl logs web -n 1
check "the last line only ($(cat "$T/out"))" \
    sh -c "[ \"\$(cat '$T/out')\" = 'second line' ]"
check "logs web -n 0" ctl logs web -n 0
check "prints nothing" [ ! -s "$T/out" ]
check "-j logs web -n all: the same bytes" \
    sh -c "\"$ORCHCTL\" -s \"$SOCK\" -j logs web -n all |
    cmp -s - '$T/log/web.log'"

"$ORCHCTL" -s "$SOCK" logs web -f >"$T/follow.out" 2>"$T/follow.err" &
fpid=$!
check "logs web -f prints the last lines" \
    wait_for 5 grep -q 'second line' "$T/follow.out"
echo "appended later" >>"$T/log/web.log"
check "and a line appended later" \
    wait_for 5 grep -qx 'appended later' "$T/follow.out"
: >"$T/log/web.log"
sleep 0.5
echo "after a truncation" >>"$T/log/web.log"
check "and a line written after a truncation" \
    wait_for 5 grep -qx 'after a truncation' "$T/follow.out"
mv "$T/log/web.log" "$T/log/web.log.1"
echo "the last of the old file" >>"$T/log/web.log.1"
echo "in a new file" >"$T/log/web.log"
check "and the rest of a rotated file" \
    wait_for 5 grep -qx 'the last of the old file' "$T/follow.out"
check "then the new one" wait_for 5 grep -qx 'in a new file' "$T/follow.out"
check "logs -f is still running" alive "$fpid"
kill -TERM "$fpid" 2>/dev/null
check "and stops when killed" wait_gone "$fpid" 5
wait "$fpid" 2>/dev/null
check "orchd still answers" ctl show summary
[ -s "$T/follow.err" ] && show "$T/follow.err"

# a large log: the tail is found without reading it all, and all of it
# arrives when asked for, in order
i=0
: >"$T/big"
while [ $i -lt 20 ]; do
	seq 1 10000 | sed "s/^/block $i line /" >>"$T/big"
	i=$((i + 1))
done
cp "$T/big" "$T/log/quiet.log"
check "logs of a large file, -n 3" ctl logs quiet -n 3
check "the last three lines" sh -c "tail -n 3 '$T/big' | cmp -s - '$T/out'"
check "logs -n all of $(wc -c <"$T/big" | tr -d ' ') bytes" \
    sh -c "\"$ORCHCTL\" -s \"$SOCK\" logs quiet -n all | cmp -s - '$T/big'"
check "logs -n 100000: exactly that many lines" \
    sh -c "[ \$(\"$ORCHCTL\" -s \"$SOCK\" logs quiet -n 100000 |
    wc -l) -eq 100000 ]"
printf 'no newline at the end' >>"$T/log/quiet.log"
check "a last line without a newline counts as a line" \
    sh -c "[ \"\$(\"$ORCHCTL\" -s \"$SOCK\" logs quiet -n 2)\" = \
    \"\$(printf 'block 19 line 10000\nno newline at the end')\" ]"
rm -f "$T/log/quiet.log"
# root reads the log directory: a link planted there is not followed
ln -s /etc/passwd "$T/log/quiet.log"
ctl logs quiet
check "a log file that is a symbolic link is refused ($rc)" [ "$rc" -eq 1 ]
check "and says so ($(cat "$T/err"))" grep -q 'symbolic link' "$T/err"
check "and nothing of its target is printed" [ ! -s "$T/out" ]
rm -f "$T/log/quiet.log"
check "logs of a workload that has logged nothing" ctl logs quiet
check "prints nothing" [ ! -s "$T/out" ]

# 5. unknown names
for cmd in "logs nosuch" "show workload nosuch" "wake nosuch" \
    "suspend nosuch" "keepwarm nosuch on"; do
	# shellcheck disable=SC2086
	ctl $cmd
	check "$cmd fails with exit status 1 ($rc)" [ "$rc" -eq 1 ]
	check "and says no such workload ($(cat "$T/err"))" \
	    grep -q 'no such workload: nosuch' "$T/err"
done

# 6. suspend
check "orchctl suspend web" ctl suspend web
check "says it sleeps ($(cat "$T/out"))" grep -qx 'web is asleep' "$T/out"
check "its process is gone" wait_for 5 no_proc "testhttp serve $P_WEB"
check "show workloads says asleep" wait_for 5 listed_as web asleep
check "show workload lists the suspend" \
    sh -c "\"$ORCHCTL\" -s \"$SOCK\" show workload web |
    grep -Eq 'suspending +asleep +operator'"

# 7. keep warm: booted, not reaped with a 2 s idle timeout; then reaped
check "orchctl keepwarm warm on" ctl keepwarm warm on
check "says so ($(cat "$T/out"))" grep -qx 'keep warm on for warm' "$T/out"
check "boots it" wait_for 5 running "testhttp serve $P_WARM"
if ! running "testhttp serve $P_WARM"; then
	grep 'workload warm' "$T/orchd.log" | show /dev/stdin
	show "$T/log/warm.log"
fi
kw_json() {
	ctl -j show workload warm && tr -d ' \n' <"$T/out" |
	    grep -q "\"keep_warm\":$1"
}
check "-j show workload says keep_warm true" wait_for 5 kw_json true
check "show workloads says warm yes, idle never" \
    wait_for 5 sh -c "\"$ORCHCTL\" -s \"$SOCK\" show workloads |
    grep -Eq '^warm +running +process +[^ ]+ +yes +never '"
sleep 4
check "4 s later, past its idle timeout, it still runs" \
    running "testhttp serve $P_WARM"
check "not restarted ($(lines "$T/warm.starts"))" \
    [ "$(lines "$T/warm.starts")" -eq 1 ]
check "orchctl suspend of a kept warm workload fails" \
    sh -c "! \"$ORCHCTL\" -s \"$SOCK\" suspend warm 2>'$T/err'"
check "and says why ($(cat "$T/err"))" grep -q 'kept warm' "$T/err"
check "orchctl keepwarm warm off" ctl keepwarm warm off
check "says so" grep -qx 'keep warm off for warm' "$T/out"
check "then the reaper suspends it" \
    wait_for 10 no_proc "testhttp serve $P_WARM"
check "show workloads says asleep" wait_for 5 listed_as warm asleep
check "-j show workload says keep_warm false" wait_for 5 kw_json false

# 8. stats
check "show stats" ctl show stats
H='^NAME +WAKES +FAILED +MEDIAN +WORST +ASLEEP +MEMORY +SAVED GiB-h$'
check "has a header" grep -Eq "$H" "$T/out"
# its memory: measured at the stop (which wins) or the configured 256M
R='^web +1 +0 +[0-9.]+m?s +[0-9.]+m?s +[0-9dhms]+ +[0-9.]+[KMG]? +[0-9.]+$'
check "a row for web with one wake and its memory" grep -Eq "$R" "$T/out"
check "a row for warm and quiet" \
    sh -c "grep -Eq '^warm +[1-9]' '$T/out' && grep -Eq '^quiet +0 ' '$T/out'"
check "and the 44-character name, its columns in line" \
    sh -c "grep -Eq '^$LONG +1 +0 ' '$T/out'"
# the table ends at the first blank line; the memory budget's follow
sed '/^$/,$d' "$T/out" >"$T/stats.table"
check "every column of show stats lines up" aligned lrrrrrrr "$T/stats.table"
check "then the memory budget, the waits and the suspends by reason" \
    sh -c "grep -Eq '^memory budget: none, [0-9.]+[KMG]? in use' '$T/out' &&
    grep -Eq '^suspends: [0-9]+ idle timeout, 0 budget, 0 pressure, [1-9][0-9]* operator$' '$T/out'"
check "and a total row, with the failed wake" \
    grep -Eq '^\(total\) +[2-9] +1 ' "$T/out"
grep -q total "$T/out" || show "$T/out"
check "-j show stats" ctl -j show stats
check "is valid JSON" json_ok
R='^\{"workloads":\[.*"name":"web".*\],"total":\{.*"wakes":[2-9]'
check "with the workloads and the total" \
    sh -c "tr -d ' \n' <'$T/out' | grep -Eq '$R'"
check "durations in seconds" \
    grep -Eq '"wake_median_seconds": [0-9]+(\.[0-9]+)?' "$T/out"

# 9. an unknown workload after all that: orchd is fine
check "orchd still answers show summary" ctl show summary
stop_orchd
check "SIGTERM: orchd exits 0 (status $STATUS)" [ "$STATUS" -eq 0 ]
ORCHD_PID=
e2e_done
