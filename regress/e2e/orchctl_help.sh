#!/bin/sh
# orchctl's commands come from one table (orchctl/parser.c): -h, the
# list after a word not understood, the completion (orchctl complete)
# and orchctl.8 name the same ones, and a list that lacks one fails
# here.  The bash completion (etc/completion/orchctl.bash) completes for
# real: commands, show's words, logs' options, create's flags, and the
# name of a workload of a running orchd, and so does zsh's
# (etc/completion/_orchctl) with compadd stood in for.  update of a
# workload orchd lacks says so before it reads the definition.
#
#	sh regress/e2e/orchctl_help.sh build/check
. "$(dirname "$0")/lib.sh"
e2e_init "$1"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export ASAN_OPTIONS
top=$(cd "$(dirname "$0")/../.." && pwd)
MAN=$top/man/orchctl.8
BASHCOMP=$top/etc/completion/orchctl.bash
NOSOCK=/nonexistent/orchd.sock

# comp WORD...: what orchctl complete offers, space-separated, sorted
comp() {
	"$ORCHCTL" complete -- "$@" 2>/dev/null | LC_ALL=C sort | tr '\n' ' '
}

# the commands of the completion: each first word, or with the words
# that follow it when they are keywords (show, log), not options or
# names
comp_commands() {
	for w in $(comp -s "$NOSOCK" ''); do
		sub=$("$ORCHCTL" complete -- -s "$NOSOCK" "$w" '' 2>/dev/null |
		    grep -v '^-')
		if [ -z "$sub" ]; then
			echo "$w"
		else
			for s in $sub; do echo "$w $s"; done
		fi
	done | LC_ALL=C sort -u
}

# the commands of -h: the longest run of words of each line that the
# completion offers one after the other (so "show workload", not
# "show workload name")
help_commands() {
	"$ORCHCTL" -h | sed -n '/^commands:$/,/^[^ ]/p' | grep '^  [a-z]' |
	    while read -r line; do
		set -- $line
		cmd=
		for w in "$@"; do
			# shellcheck disable=SC2086
			offered=$(comp -s "$NOSOCK" $cmd "$w")
			case " $offered " in
			*" $w "*) cmd="${cmd:+$cmd }$w" ;;
			*) break ;;
			esac
		done
		echo "$cmd"
	done | LC_ALL=C sort -u
}

# the commands of orchctl.8: the Cm words of each item of the list of
# commands (.It Cm ..., or .It Xo then .Cm ...), at the list's own
# level, up to the first argument
man_commands() {
	awk '/^The following commands are available:/ { on = 1; next }
	    !on { next }
	    /^\.Bl/ { depth++; next }
	    /^\.El/ { if (--depth == 0) exit; next }
	    depth != 1 { next }
	    /^\.It Xo/ { xo = 1; next }
	    /^\.It Cm / || (xo && /^\.Cm /) {
		xo = 0; cmd = ""
		for (i = 1; i <= NF; i++) {
			if ($i == ".It" || $i == "Cm" || $i == ".Cm") continue
			if ($i ~ /^[A-Z]/ || $i ~ /^\\/ || $i == "|") break
			cmd = cmd (cmd == "" ? "" : " ") $i
		}
		print cmd
	    }' "$1" | LC_ALL=C sort -u
}

comp_commands >"$T/comp"
help_commands >"$T/help"
man_commands "$MAN" >"$T/man"
for f in comp help man; do
	check "$f: the commands listed (monitor, show version, log reopen, create, update among them)" sh -c "grep -qx monitor '$T/$f' &&
	    grep -qx 'show version' '$T/$f' &&
	    grep -qx 'log reopen' '$T/$f' && grep -qx create '$T/$f' &&
	    grep -qx update '$T/$f' && [ \$(wc -l <'$T/$f') -ge 20 ]"
done
check "-h and the completion list the same commands" cmp -s "$T/help" "$T/comp"
diff "$T/help" "$T/comp" | sed 's/^/#	/'
check "orchctl.8 and the completion list the same commands" \
    cmp -s "$T/man" "$T/comp"
diff "$T/man" "$T/comp" | sed 's/^/#	/'

# the comparison fails when a list lacks a command
grep -v '^\.It Cm monitor$' "$MAN" >"$T/short.8"
man_commands "$T/short.8" >"$T/man.short"
check "a man page without monitor differs from the completion" \
    sh -c "! cmp -s '$T/man.short' '$T/comp'"

# the list after a word not understood: every first word
"$ORCHCTL" -s "$NOSOCK" frobnicate 2>"$T/unknown"
cut -d' ' -f1 "$T/comp" | LC_ALL=C sort -u >"$T/first"
sed -n 's/^  \([a-z][a-z]*\)$/\1/p' "$T/unknown" | LC_ALL=C sort -u \
    >"$T/listed"
check "after an unknown command, every command listed (create, update)" \
    cmp -s "$T/first" "$T/listed"
diff "$T/first" "$T/listed" | sed 's/^/#	/'

# -h's create lines: a container's needs --driver docker
check "-h: create with --image says --driver docker" \
    sh -c "'$ORCHCTL' -h | grep -q -- '--driver docker --image'"
check "-h: every flag of create listed" sh -c "
    for f in \$('$ORCHCTL' complete create x --); do
	'$ORCHCTL' -h | grep -q -- \"^  \$f \" || exit 1; done"

check "completion: show w offers workload and workloads" \
    [ "$(comp show w)" = "workload workloads " ]
check "completion: an abbreviation is followed (sh st)" \
    [ "$(comp sh st)" = "stats " ]
check "completion: logs' options" [ "$(comp -s "$NOSOCK" logs -)" = "-f -n " ]
check "completion: logs -n offers all" [ "$(comp logs -n '')" = "all " ]
check "completion: keepwarm NAME offers on and off" \
    [ "$(comp keepwarm web '')" = "off on " ]
check "completion: orchctl's own options" \
    [ "$(comp -)" = "--help -V -h -j -s " ]
check "completion: create's flags after the name" \
    sh -c "[ \"\$('$ORCHCTL' complete create web --po)\" = --port ]"
check "completion: nothing for a flag's value (the shell's files)" \
    [ -z "$(comp create web --port '')" ]
check "completion: nothing after a complete command" \
    [ -z "$(comp reload '')" ]

# bash: the function given COMP_WORDS as bash would
bashcomp() {	# bashcomp WORD...: the last word is completed
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1));
	    _orchctl; printf "%s\n" "${COMPREPLY[@]}"' bash "$BASHCOMP" \
	    "$ORCHCTL" "$@" | LC_ALL=C sort | tr '\n' ' '
}
# zsh: the file's body run with words and CURRENT set as zsh sets them,
# compadd and _files stood in for (they work only inside a widget)
ZSHCOMP=$top/etc/completion/_orchctl
zshcomp() {	# zshcomp WORD...: the last word is completed
	zsh -fc 'words=("$@"); CURRENT=$#;
	    compadd() { shift; print -l -- "${(@P)1}"; };
	    _files() { print "(files)"; };
	    source "$0"' "$ZSHCOMP" "$ORCHCTL" "$@" | LC_ALL=C sort | tr '\n' ' '
}
if ! command -v zsh >/dev/null 2>&1; then
	skip "no zsh (tools/deps.sh test installs it)"
else
	check "zsh: _orchctl parses" zsh -n "$ZSHCOMP"
	check "zsh: orchctl show w<TAB> is workload, workloads" \
	    [ "$(zshcomp show w)" = "workload workloads " ]
	check "zsh: files for create NAME --port's value" \
	    [ "$(zshcomp create web --port '')" = "(files) " ]
fi
if ! command -v bash >/dev/null 2>&1; then
	skip "no bash"
else
	check "bash: complete -p orchctl names _orchctl" sh -c \
	    "bash -c '. \"$BASHCOMP\"; complete -p orchctl' |
	    grep -q -- '-F _orchctl orchctl'"
	check "bash: orchctl sh<TAB> is show" [ "$(bashcomp sh)" = "show " ]
	check "bash: orchctl show ve<TAB> is version" \
	    [ "$(bashcomp show ve)" = "version " ]
	check "bash: orchctl log <TAB> lists reopen" \
	    [ "$(bashcomp log '')" = "brief reopen verbose " ]
fi

# a running orchd: its workload's name is completed
need_root
ensure_user
ports GW P_WEB P_OTHER
NAME=h35pkg-web-$$
testhttp_bin
conf_head >"$T/orchd.conf"
cat >>"$T/orchd.conf" <<CONF
listen on 127.0.0.1 port $GW
workload "$NAME" {
	host "web.test"
	command "'$T/bin/testhttp' serve $P_WEB"
	port $P_WEB
}
workload "other-$$" {
	host "other.test"
	command "'$T/bin/testhttp' serve $P_OTHER"
	port $P_OTHER
}
CONF
start_orchd_or_exit
check "completion: wake h35<TAB> is the live workload's name" \
    [ "$(comp -s "$SOCK" wake h35pkg-)" = "$NAME " ]
check "completion: show workload offers both names" \
    [ "$(comp -s "$SOCK" show workload '')" = "$NAME other-$$ " ]
check "completion: update's name from orchd" \
    [ "$(comp -s "$SOCK" update oth)" = "other-$$ " ]
check "completion: logs offers its options and the names" \
    [ "$(comp -s "$SOCK" logs '')" = "-f -n $NAME other-$$ " ]
if command -v bash >/dev/null 2>&1; then
	check "bash: orchctl -s SOCK wake h35<TAB> is the live name" \
	    [ "$(bashcomp -s "$SOCK" wake h35)" = "$NAME " ]
	check "bash: orchctl -s SOCK keepwarm <TAB> is both names" \
	    [ "$(bashcomp -s "$SOCK" keepwarm '')" = "$NAME other-$$ " ]
fi
if command -v zsh >/dev/null 2>&1; then
	check "zsh: orchctl -s SOCK wake h35<TAB> is the live name" \
	    [ "$(zshcomp -s "$SOCK" wake h35)" = "$NAME " ]
fi

# update of a workload orchd lacks: named, the definition never read
echo '{"hosts": ["x.test"]}' >"$T/def.json"
"$ORCHCTL" -s "$SOCK" update nosuch "$T/def.json" >"$T/out" 2>"$T/err"
rc=$?
check "update nosuch: exit 1, no such workload (not: a port is required)" \
    sh -c "[ $rc -eq 1 ] && grep -q 'no such workload' '$T/err' &&
    ! grep -q 'port' '$T/err'"
sed 's/^/#	/' "$T/err"
"$ORCHCTL" -s "$SOCK" update nosuch /nonexistent/def.json >"$T/out" \
    2>"$T/err"
check "update nosuch with a missing file: the workload is named first" \
    grep -q 'no such workload' "$T/err"
"$ORCHCTL" -s "$SOCK" update "$NAME" "$T/def.json" >"$T/out" 2>"$T/err"
check "update of a configured workload: its definition checked" \
    grep -q 'required\|configuration' "$T/err"
sed 's/^/#	/' "$T/err"

stop_orchd
e2e_done
