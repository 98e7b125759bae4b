"""A skill API's reference for prompts, generated from its code: every function and constant of
its `SKILL_API` (in that order) with its signature and docstring, and every public member of its
view. Which names the reference lists is read from the API itself, so a skill is documented the
day it is added."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from types import ModuleType
from typing import Any


def _annotation(fn: Callable[..., Any], name: str) -> str:
    value = fn.__annotations__.get(name)
    return value if isinstance(value, str) else getattr(value, "__name__", str(value))


def signature(
    fn: Callable[..., Any], drop_self: bool = False, constants: dict[str, Any] | None = None
) -> str:
    """`(a: T, b: U = default) -> R` with annotations as written in the source; a default that
    is one of the API's `constants` shows its name."""
    named = {id(v): k for k, v in (constants or {}).items()}
    params = []
    for p in inspect.signature(fn).parameters.values():
        if drop_self and p.name == "self":
            continue
        text = p.name
        if p.name in fn.__annotations__:
            text += f": {_annotation(fn, p.name)}"
        if p.default is not inspect.Parameter.empty:
            text += f" = {named.get(id(p.default), repr(p.default))}"
        params.append(text)
    ret = f" -> {_annotation(fn, 'return')}" if "return" in fn.__annotations__ else ""
    return f"({', '.join(params)}){ret}"


def _doc(obj: Any) -> str:
    return " ".join((inspect.getdoc(obj) or "").split())


def functions(api: ModuleType) -> dict[str, Callable[..., Any]]:
    """The API's skills (callables of SKILL_API), in its order."""
    return {k: v for k, v in api.SKILL_API.items() if callable(v)}


def constants(api: ModuleType) -> dict[str, Any]:
    return {k: v for k, v in api.SKILL_API.items() if not callable(v)}


def generator_skills(api: ModuleType) -> frozenset[str]:
    """The skills that are generators: a call does nothing unless driven with `yield from`."""
    return frozenset(k for k, v in functions(api).items() if inspect.isgeneratorfunction(v))


def view_members(view: type) -> list[tuple[str, str, str]]:
    """(name, signature, doc) of every public member of the view a coded action may use."""
    out = []
    for name, member in inspect.getmembers(view):
        if name.startswith("_") or name == "update":
            continue
        if isinstance(member, property):
            assert member.fget is not None
            out.append((name, f" -> {_annotation(member.fget, 'return')}", _doc(member)))
        else:
            out.append((name, signature(member, drop_self=True), _doc(member)))
    return out


def api_reference(api: ModuleType, map_names: Iterable[str]) -> str:
    """The reference section of the coder prompts for skill API module `api`."""
    consts = constants(api)
    lines = [
        _doc(api),
        "",
        "Type Action: a generator of action names (and plans of several);"
        " drive it with yield from.",
    ]
    lines += ["", "Functions:"]
    for name, fn in functions(api).items():
        lines.append(f"- {name}{signature(fn, constants=consts)}: {_doc(fn)}")
    lines += ["", "Constants:"]
    lines += [f"- {name} = {value!r}" for name, value in consts.items()]
    lines += ["", "The view (the one argument of a coded action; read-only):"]
    lines += [f"- view.{name}{sig}: {doc}" for name, sig, doc in view_members(api.ObsView)]
    lines += ["", "Names on the map (for view.at, cells, nearest, approach): "
              + ", ".join(map_names) + "; 'none' outside the world."]  # fmt: skip
    return "\n".join(lines)
