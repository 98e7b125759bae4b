"""Static checks of a model's common mistakes with the skill API, for early, readable feedback.

They run on the host after the gate and before any scenario: a misspelled action name in a
`yield`, a skill generator called without `yield from`, an attribute the view does not have, a
map name that is an item ("wood" for a tree), an inventory or achievement key that does not
exist. The facts come from the world (`World.lint_facts`: which skills are generators is read
from the skill API itself). None of them is a security layer: the worker rejects the same
mistakes when they run.
"""

from __future__ import annotations

import ast
import difflib

from rlgpt.sandbox.driven import add_yield_from
from rlgpt.sandbox.gate import GateError
from rlgpt.worlds.base import LintFacts

NAME_METHODS = frozenset({"cells", "nearest"})  # view.cells(NAME), view.nearest(NAME)


def _hint(word: str, options: list[str] | tuple[str, ...]) -> str:
    near = difflib.get_close_matches(word, list(options), n=1)
    return f" (did you mean '{near[0]}'?)" if near else ""


def _map_name_error(line: int, name: str, facts: LintFacts) -> GateError:
    sources = facts.item_sources
    if name in sources:
        why = f"'{name}' is an item, not something on the map: it comes from '{sources[name]}'"
    else:
        why = f"'{name}' is not on the map{_hint(name, facts.map_names[1:])}"
    return GateError("api_misuse", f"line {line}: {why}")


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _str_arg(call: ast.Call, i: int) -> str | None:
    if len(call.args) > i and isinstance(call.args[i], ast.Constant):
        value = call.args[i].value  # type: ignore[attr-defined]
        return value if isinstance(value, str) else None
    return None


def _check_call(node: ast.Call, parent: ast.AST | None, facts: LintFacts) -> None:
    line = node.lineno
    func = node.func
    driven = isinstance(parent, ast.YieldFrom)
    if isinstance(func, ast.Name) and func.id in facts.generator_skills and not driven:
        raise GateError("api_misuse", f"line {line}: {add_yield_from(func.id)}")
    if isinstance(func, ast.Name) and func.id in facts.name_args:
        name = _str_arg(node, facts.name_args[func.id])
        if name is not None and name not in facts.map_names:
            raise _map_name_error(line, name, facts)
    if isinstance(func, ast.Attribute) and func.attr in NAME_METHODS:
        name = _str_arg(node, 0)
        if name is not None and name not in facts.map_names:
            raise _map_name_error(line, name, facts)


def _check_subscript(node: ast.Subscript, facts: LintFacts) -> None:
    value, key = node.value, node.slice
    if not (isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name)):
        return
    if value.value.id != "view" or not isinstance(key, ast.Constant):
        return
    if not isinstance(key.value, str):
        return
    known = {"inventory": facts.items, "achievements": facts.achievements}
    options = known.get(value.attr)
    if options is not None and key.value not in options:
        what = "an item" if value.attr == "inventory" else "an achievement"
        raise GateError(
            "api_misuse",
            f"line {node.lineno}: '{key.value}' is not {what}{_hint(key.value, options)}; "
            f"valid: {', '.join(options)}",
        )


def lint(source: str, facts: LintFacts) -> None:
    """Raise GateError (invalid_action or api_misuse) at the first mistake found."""
    tree = ast.parse(source)
    parents = _parents(tree)
    primitives, members = facts.primitives, facts.view_members
    for node in ast.walk(tree):
        if isinstance(node, ast.Yield) and isinstance(node.value, ast.Constant):
            value = node.value.value
            if isinstance(value, str) and value not in primitives:
                raise GateError(
                    "invalid_action",
                    f"line {node.lineno}: yields '{value}', which is not an action"
                    f"{_hint(value, primitives)}; actions: {', '.join(primitives)}",
                )
        elif isinstance(node, ast.Call):
            _check_call(node, parents.get(node), facts)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            allowed = node.attr in members or node.attr == "update"
            if node.value.id == "view" and not allowed:
                raise GateError(
                    "api_misuse",
                    f"line {node.lineno}: view has no attribute '{node.attr}'"
                    f"{_hint(node.attr, members)}; it has: {', '.join(members)}",
                )
        elif isinstance(node, ast.Subscript):
            _check_subscript(node, facts)
