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


def _values(parser: argparse.ArgumentParser, found: dict[str, list[str]]) -> dict[str, list[str]]:
    """The values an option takes, where argparse knows them (its choices), over all commands."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                _values(sub, found)
        elif action.choices:
            for opt in action.option_strings:
                found[opt] = [str(c) for c in action.choices]
    return found


def bash_script(
    parser: argparse.ArgumentParser, prog: str = "rlgpt", values: dict[str, list[str]] | None = None
) -> str:
    """Complete `prog`, its sub-commands (two levels), each one's long options, and the values
    of options with choices (and `values`, e.g. task names for --task)."""
    cases: list[str] = []
    known = _values(parser, {}) | (values or {})
    value_cases = "\n".join(
        f'        {opt}) COMPREPLY=($(compgen -W "{" ".join(v)}" -- "$cur")); return ;;'
        for opt, v in sorted(known.items())
    )

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
    case "${{COMP_WORDS[COMP_CWORD-1]}}" in
{value_cases}
    esac
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
