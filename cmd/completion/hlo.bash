# bash completion for hlo and every hlo-* tool of hlotools.  Nothing here
# lists options: each tool's own --help (generated from its option table)
# is read the first time the tool is completed, so tools added later are
# covered.  Installed as share/bash-completion/completions/hlo, with a link
# hlo-TOOL -> hlo for each tool so bash-completion loads it on demand.

# The options of tool command $1: sets _hlo_words (every option) and
# _hlo_args (options that take an argument), cached per tool.
_hlo_read_options() {
  local key=${1//[^a-zA-Z0-9]/_}
  local wv=_hlo_w_$key av=_hlo_a_$key
  if [[ -z ${!wv+set} ]]; then
    local line words="" args="" re='^[[:space:]]+(-[a-zA-Z])?,?[[:space:]]*(--[a-zA-Z0-9-]+)([ =[]?)'
    while IFS= read -r line; do
      [[ $line =~ $re ]] || continue
      words+=" ${BASH_REMATCH[1]} ${BASH_REMATCH[2]}"
      if [[ ${BASH_REMATCH[3]} == " " ]]; then args+=" ${BASH_REMATCH[1]} ${BASH_REMATCH[2]}"; fi
    done < <("$1" --help 2>/dev/null)
    printf -v "$wv" '%s' "$words"
    printf -v "$av" '%s' "$args"
  fi
  _hlo_words=${!wv}
  _hlo_args=${!av}
}

# Complete word $2 of a command line whose tool is $1 (an hlo-* command);
# $3 is the word before it.
_hlo_complete_tool() {
  local tool=$1 cur=$2 prev=$3
  _hlo_read_options "$tool"
  if [[ -n $prev && " $_hlo_args " == *" $prev "* ]]; then
    COMPREPLY=($(compgen -f -- "$cur")) # the option's argument: usually a file
    return
  fi
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$_hlo_words --help --version" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}

# The tool names hlo can run: hlo-* beside the hlo command, then on PATH.
_hlo_tool_names() {
  local dir f names=""
  dir=$(type -P hlo 2>/dev/null)
  dir=${dir%/*}
  if [[ -n $dir ]]; then
    for f in "$dir"/hlo-*; do [[ -x $f ]] && names+=" ${f##*/hlo-}"; done
  fi
  for f in $(compgen -c hlo- 2>/dev/null); do names+=" ${f#hlo-}"; done
  printf '%s\n' $names | sort -u
}

# The command hlo runs for tool name $1.
_hlo_tool_path() {
  local dir
  dir=$(type -P hlo 2>/dev/null)
  dir=${dir%/*}
  if [[ -n $dir && -x $dir/hlo-$1 ]]; then printf '%s\n' "$dir/hlo-$1"; else printf '%s\n' "hlo-$1"; fi
}

# hlo-TOOL ...
_hlo_tool() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=""
  ((COMP_CWORD > 1)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
  _hlo_complete_tool "${COMP_WORDS[0]}" "$cur" "$prev"
}

# hlo [--help|--version] TOOL ARGS... | hlo help [TOOL]
_hlo() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=""
  ((COMP_CWORD > 1)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
  if ((COMP_CWORD == 1)); then
    COMPREPLY=($(compgen -W "help --help --version $(_hlo_tool_names)" -- "$cur"))
  elif [[ ${COMP_WORDS[1]} == help ]]; then
    ((COMP_CWORD == 2)) && COMPREPLY=($(compgen -W "$(_hlo_tool_names)" -- "$cur"))
  else
    ((COMP_CWORD == 2)) && prev=""
    _hlo_complete_tool "$(_hlo_tool_path "${COMP_WORDS[1]}")" "$cur" "$prev"
  fi
}

complete -o filenames -F _hlo hlo
for _hlo_t in $(_hlo_tool_names); do complete -o filenames -F _hlo_tool "hlo-$_hlo_t"; done
unset _hlo_t
