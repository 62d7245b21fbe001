#!/bin/sh
# Attacks on orchctl import compose (issue 34), replayed against a live
# orchd.  Each hostile Compose file must end in a clear error that names
# its line (or, for what only the API's policy can judge, the API's
# refusal), and nothing of the project may be left created:
#
#  1. a file of 10 MB;			 2. YAML nested 10,000 deep;
#  3. a billion laughs (anchors and aliases);
#  4. a tab in the indentation;		 5. a key given twice;
#  6. an unknown key;			 7. a build-only service;
#  8. a depends_on cycle;
#  9. an env_file outside the file's folder (../, /etc/shadow, a link);
# 10. privileged, cap_add, devices: refused by orchctl, at their line;
# 11. a bind mount of / , of the Docker socket, and one outside "api
#     allow volume", and network_mode host without "api allow network
#     host", and user: refused by orchd's API policy (as a hand-written request
#     would be), after a valid service of the same file was created:
#     that one is deleted again, the import is all or nothing;
# 12. a second import of a project refused midway: the member it had
#     updated gets its former definition back (one with env, whose
#     values orchd never shows, is kept as updated, and that is said).
#
#	sh regress/e2e/attack_compose.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
need_root
ensure_user

P=h34a$$
port_base 19
ports GW API
KEY=e2e-attack-compose-$$-0123456789abcdef
D=$T/proj
mkdir -p "$D/sub" "$T/log"
# the allowed root, outside $T (orchd.conf's folder is no volume's)
V=$(mktemp -d /tmp/h34imp-avol.XXXXXX)
chmod 0755 "$V"
trap 'rm -rf "$V"; e2e_cleanup' EXIT
printf '%s\n' "$KEY" >"$T/api.key"
chmod 0600 "$T/api.key"
echo "SECRET=outside" >"$T/outside.env"
ln -s "$T/outside.env" "$D/link.env"
{
	conf_head
	cat <<CONF
listen on 127.0.0.1 port $GW
api listen on 127.0.0.1 port $API
api key file "$T/api.key"
api allow image "orchd-test/*"
api allow volume "$V"
CONF
} >"$T/orchd.conf"
start_orchd_or_exit

# imp FILE: orchctl's output and status in $out and $rc
imp() {
	out=$("$ORCHCTL" -s "$SOCK" import compose "$D/$1" --project "$P" \
	    2>&1)
	rc=$?
}
none_made() {
	! "$ORCHCTL" -s "$SOCK" show workloads 2>/dev/null | grep -q "^$P-"
}
# refused WHAT PATTERN: exit 1, the pattern said, nothing made
refused() {
	check "$1: refused, saying so ($(printf '%s' "$out" | head -c 300))" \
	    sh -c "[ $rc -ne 0 ] && printf '%s' \"\$1\" | grep -Eq -- \"\$2\"" \
	    _ "$out" "$2"
	check "$1: nothing created" none_made
}
svc() {	# svc NAME [LINE...]: a valid service, then more of its lines
	case $1 in a) _p=8080 ;; *) _p=8081 ;; esac
	printf '  %s:\n    image: orchd-test/busybox:latest\n' "$1"
	printf '    command: httpd -f -p %s\n    expose: ["%s"]\n' $_p $_p
	shift
	for l in "$@"; do
		printf '    %s\n' "$l"
	done
}

# 1. 10 MB
{
	echo "services:"
	svc a
	echo "x-pad: |"
	head -c 10485760 /dev/zero | tr '\0' 'a' | fold -w 100 | sed 's/^/  /'
} >"$D/big.yml"
imp big.yml
refused "1. a 10 MB file" "bytes: a Compose file is at most"

# 2. nested 10,000 deep
{
	echo "services:"
	svc a
	printf 'x-deep: '
	i=0
	while [ $i -lt 10000 ]; do printf '['; i=$((i + 1)); done
	i=0
	while [ $i -lt 10000 ]; do printf ']'; i=$((i + 1)); done
	echo
} >"$D/deep.yml"
imp deep.yml
refused "2. YAML nested 10,000 deep" "line 6: nested more than 32 deep"

# 3. a billion laughs
cat >"$D/laughs.yml" <<'EOF'
x-a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
x-b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
x-c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
x-d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
x-e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
x-f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
x-g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
x-h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
x-i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
services:
  a:
    image: orchd-test/busybox:latest
    command: *i
    expose: ["8080"]
EOF
imp laughs.yml
refused "3. a billion laughs" "line 2: alias \*a: anchors and aliases are not taken"

# 4. a tab
printf 'services:\n  a:\n\timage: orchd-test/busybox:latest\n' >"$D/tab.yml"
imp tab.yml
refused "4. a tab in the indentation" "tab.yml: line 3: "

# 5. a key twice
{ echo "services:"; svc a "image: evil/other:latest"; } >"$D/dup.yml"
imp dup.yml
refused "5. a key given twice" \
    'line 6: key "image" given twice \(first at line 3\)'

# 6. an unknown key
{ echo "services:"; svc a "hostname: x"; } >"$D/unknown.yml"
imp unknown.yml
refused "6. an unknown key" \
    "unknown.yml:6: services.a.hostname: not mapped"

# 7. build-only
printf 'services:\n  a:\n    build: .\n    expose: ["80"]\n' >"$D/build.yml"
imp build.yml
refused "7. a build-only service" \
    "build.yml:3: services.a.build: not mapped: orchd runs images"

# 8. a cycle
{
	echo "services:"
	svc a "depends_on: [b]"
	svc b "depends_on: [a]"
} >"$D/cycle.yml"
imp cycle.yml
refused "8. a depends_on cycle" "depends_on: a cycle"

# 9. env_file outside the folder
for ef in ../outside.env /etc/shadow link.env sub/../../outside.env; do
	{ echo "services:"; svc a "env_file: $ef"; } >"$D/env.yml"
	imp env.yml
	refused "9. env_file $ef" \
	    "env.yml:6: services.a.env_file: .*outside the Compose file's folder"
done

# 10. what orchctl never maps
for k in "privileged: true" "cap_add: [SYS_ADMIN]" \
    "devices: [/dev/sda:/dev/sda]"; do
	{ echo "services:"; svc a "$k"; } >"$D/priv.yml"
	imp priv.yml
	refused "10. $k" "priv.yml:6: services.a.${k%%:*}: not mapped"
done

# 11. what the API's policy refuses: a valid service first, then one
# that depends on it asking for more
printf 'volumes:\n  data:\n' >"$D/vol.head"
for k in "volumes: [\"/:/host\"]" \
    "volumes: [\"/var/run/docker.sock:/var/run/docker.sock\"]" \
    "volumes: [\"$V/../:/x\"]" "volumes: [\"./sub:/x\"]" \
    "network_mode: host" "user: root"; do
	{
		echo "services:"
		svc a "volumes: [\"data:/data\"]"
		svc b "depends_on: [a]" "$k"
		cat "$D/vol.head"
	} >"$D/api.yml"
	imp api.yml
	refused "11. $k: the API's policy" \
	    "$P-b: api(:| allow (volume|network host))"
	check "11. $k: the valid service created first was deleted again" \
	    sh -c "printf '%s' \"\$1\" | grep -q '^$P-a deleted again' &&
	    printf '%s' \"\$1\" | grep -q 'nothing changed'" _ "$out"
done

# 12. a second import refused midway: what it had updated is restored
{ echo "services:"; svc a; svc b "depends_on: [a]"; } >"$D/ok.yml"
imp ok.yml
check "12. a valid project is imported ($out)" [ $rc -eq 0 ]
{
	echo "services:"
	svc a | sed 's/httpd -f -p 8080/httpd -f -v -p 8080/'
	svc b "depends_on: [a]" "network_mode: host"
} >"$D/ok2.yml"
imp ok2.yml
check "12. its second import, refused by the API, says so ($out)" \
    sh -c "[ $rc -ne 0 ] && printf '%s' \"\$1\" |
    grep -q 'api allow network host'" _ "$out"
check "12. the member it had updated has its former definition back" \
    sh -c "'$ORCHCTL' -s '$SOCK' show workload $P-a |
    grep 'command:' | grep -q 'httpd -f -p 8080'"
check "12. both members still there" \
    sh -c "[ \$('$ORCHCTL' -s '$SOCK' show workloads | grep -c '^$P-') = 2 ]"
# ... and one with env, whose values orchd never shows: kept, said so
{ echo "services:"; svc a "environment: [A=1]"; svc b "depends_on: [a]"; } \
    >"$D/env1.yml"
imp env1.yml
{
	echo "services:"
	svc a "environment: [A=2]"
	svc b "depends_on: [a]" "network_mode: host"
} >"$D/env2.yml"
imp env2.yml
check "12. a member with env updated before the refusal: kept, and said that its former definition cannot be restored ($out)" \
    sh -c "[ $rc -ne 0 ] && printf '%s' \"\$1\" |
    grep -q '$P-a: its former definition cannot be restored' &&
    printf '%s' \"\$1\" | grep -q 'undone but for what is said above' &&
    [ \$('$ORCHCTL' -s '$SOCK' show workloads | grep -c '^$P-') = 2 ]" \
    _ "$out"

e2e_done
