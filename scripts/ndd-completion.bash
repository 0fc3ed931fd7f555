# bash completion for ndd (installed as share/bash-completion/completions/ndd).
# The options are read from 'ndd COMMAND --help' when completing, so they
# follow the installed program.
_ndd() {
  local cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[1]:-}
  if [ "$COMP_CWORD" -eq 1 ]; then
    local cmds
    cmds=$("${COMP_WORDS[0]}" --help 2>/dev/null | awk '/^commands:/{on=1; next} on && /^  [a-z]/{print $1} on && /^$/{on=0}')
    COMPREPLY=($(compgen -W "$cmds --help --version" -- "$cur"))
    return
  fi
  if [[ $cur == -* ]]; then
    local opts
    opts=$("${COMP_WORDS[0]}" "$cmd" --help 2>/dev/null | grep -oE -- '(^|[ ,])--?[a-zA-Z][a-zA-Z0-9-]*' | tr -d ' ,' | sort -u)
    COMPREPLY=($(compgen -W "$opts --version" -- "$cur"))
    return
  fi
  COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -o bashdefault -F _ndd ndd
