"""The skill API's reference for prompts, generated from the code: every public function,
constant and view member with its full signature and its docstring."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from rlgpt.envs.recipes import semantic_names
from rlgpt.skills import api

FUNCTIONS = (
    "approach", "go_to", "stand_near", "explore", "face_free", "guard", "keep_alive", "shelter",
    "grow_plant", "sow", "path_to", "route", "follow_path",
)  # fmt: skip
CONSTANTS = ("MOVES", "WALKABLE")


def _annotation(fn: Callable[..., Any], name: str) -> str:
    value = fn.__annotations__.get(name)
    return value if isinstance(value, str) else getattr(value, "__name__", str(value))


def signature(fn: Callable[..., Any], drop_self: bool = False) -> str:
    """`(a: T, b: U = default) -> R` with annotations as written in the source."""
    params = []
    for p in inspect.signature(fn).parameters.values():
        if drop_self and p.name == "self":
            continue
        text = p.name
        if p.name in fn.__annotations__:
            text += f": {_annotation(fn, p.name)}"
        if p.default is not inspect.Parameter.empty:
            text += f" = {'WALKABLE' if p.default is api.WALKABLE else repr(p.default)}"
        params.append(text)
    ret = f" -> {_annotation(fn, 'return')}" if "return" in fn.__annotations__ else ""
    return f"({', '.join(params)}){ret}"


def _doc(obj: Any) -> str:
    return " ".join((inspect.getdoc(obj) or "").split())


def view_members() -> list[tuple[str, str, str]]:
    """(name, signature, doc) of every public member of the view a coded action may use."""
    out = []
    for name, member in inspect.getmembers(api.ObsView):
        if name.startswith("_") or name == "update":
            continue
        if isinstance(member, property):
            assert member.fget is not None
            out.append((name, f" -> {_annotation(member.fget, 'return')}", _doc(member)))
        else:
            out.append((name, signature(member, drop_self=True), _doc(member)))
    return out


@functools.cache
def api_reference() -> str:
    """The reference section of the coder prompts."""
    lines = [_doc(api), "", "Type Action: a generator of action names; drive it with yield from."]
    lines += ["", "Functions:"]
    for name in FUNCTIONS:
        fn = getattr(api, name)
        lines.append(f"- {name}{signature(fn)}: {_doc(fn)}")
    lines += ["", "Constants:"]
    lines += [f"- {name} = {getattr(api, name)!r}" for name in CONSTANTS]
    lines += ["", "The view (the one argument of a coded action; read-only):"]
    lines += [f"- view.{name}{sig}: {doc}" for name, sig, doc in view_members()]
    lines += ["", "Names on the map (for view.at, cells, nearest, approach): "
              + ", ".join(semantic_names()[1:]) + "; 'none' outside the world."]  # fmt: skip
    return "\n".join(lines)
