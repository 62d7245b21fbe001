# bash completion for orchctl(8).  The words come from orchctl itself
# (orchctl complete), out of the table its -h is made from: commands,
# their keywords and options, create's flags, and the names of the
# workloads of the running orchd.  Where orchctl has nothing to offer (a
# file, a socket), bash offers files.
#
# Installed as /usr/share/bash-completion/completions/orchctl, or
# sourced from ~/.bashrc.
_orchctl()
{
	local IFS=$'\n'

	COMPREPLY=($("${COMP_WORDS[0]}" complete -- \
	    "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
}
complete -o default -F _orchctl orchctl
