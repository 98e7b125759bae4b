"""`rlgpt completion bash`: a bash completion script generated from the CLI's own parser, so it
never drifts from the commands and options (zsh: load it after `bashcompinit`)."""

from __future__ import annotations

import argparse


def _words(parser: argparse.ArgumentParser) -> tuple[list[str], dict[str, argparse.ArgumentParser]]:
    """A parser's options and its sub-commands."""
    options: list[str] = []
    subs: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:  # argparse keeps no public list of its actions
        if isinstance(action, argparse._SubParsersAction):
            subs |= dict(action.choices)
        else:
            options += [o for o in action.option_strings if o.startswith("--")]
    return options, subs


def bash_script(parser: argparse.ArgumentParser, prog: str = "rlgpt") -> str:
    """Complete `prog`, its sub-commands (two levels) and each one's long options."""
    cases: list[str] = []

    def walk(p: argparse.ArgumentParser, path: str) -> None:
        options, subs = _words(p)
        cases.append(f'        "{path}") words="{" ".join([*subs, *options])}" ;;')
        for name, sub in subs.items():
            walk(sub, f"{path} {name}".strip())

    walk(parser, "")
    body = "\n".join(cases)
    return f"""# bash completion for {prog}: eval "$({prog} completion bash)"
_{prog}_complete() {{
    local cur path="" w i words=""
    cur="${{COMP_WORDS[COMP_CWORD]}}"
    for ((i = 1; i < COMP_CWORD; i++)); do
        w="${{COMP_WORDS[i]}}"
        [[ "$w" == -* ]] && continue
        case "$path" in
{body}
            *) ;;
        esac
        case " $words " in *" $w "*) path="${{path:+$path }}$w" ;; esac
    done
    case "$path" in
{body}
        *) words="" ;;
    esac
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
}}
complete -o default -F _{prog}_complete {prog}
"""
