"""Static gate for generated code: size cap, parse, AST allow-list, required signature.

It closes classes of escape, not names: no name beginning with "__", no attribute beginning
with "_" nor of the interpreter's internals (frames f_*, code co_*, tracebacks tb_*,
generators and coroutines gi_*/cr_*/ag_*), none of the attributes that hand out `object` or
`type` (mro, registry, register, dispatch) or read and write attributes whose names are given
as data (format, format_map, update_wrapper, wraps, attrgetter, methodcaller, ...), no
attribute assignment, no `match` class patterns (they name attributes as strings). Imports
name only what EXPOSED lists: whole modules of C functions (math, itertools), and chosen
members of random, collections and functools (none that takes attribute names as data, none
of their Python classes); no alias begins with "_" (`from random import _os` would name
random's own `os`). Identifiers arrive NFKC-normalised by Python's parser, so full-width
letters and underscores are checked as what they become. The gate gives early, readable
errors; the worker (rlgpt/sandbox/worker.py) hands out only what EXPOSED lists, sealed, and the
OS layer holds without either. Importable without pydantic: the sandboxed worker runs it again
on its minimal root.
"""

from __future__ import annotations

import ast
import itertools
import math
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rlgpt.messages import ActionValidation

MAX_SOURCE_BYTES = 20_000


def _public(module: ModuleType) -> frozenset[str]:
    return frozenset(n for n in vars(module) if not n.startswith("_"))


# What generated code may import, member by member: the gate checks `from M import x` against
# it and the worker builds its module copies from it (one list for both).
EXPOSED: dict[str, frozenset[str]] = {
    "math": _public(math),  # C functions and constants
    "itertools": _public(itertools),  # C types
    "random": frozenset(
        {
            "random",
            "uniform",
            "randint",
            "randrange",
            "choice",
            "choices",
            "shuffle",
            "sample",
            "gauss",
            "seed",
        }
    ),
    "collections": frozenset({"deque", "defaultdict", "OrderedDict"}),  # C types
    "functools": frozenset({"reduce", "partial", "lru_cache", "cache", "cmp_to_key"}),
}
ALLOWED_IMPORTS = frozenset(EXPOSED)
FORBIDDEN_NAMES = frozenset(
    {
        "eval", "exec", "compile", "open", "getattr", "setattr", "delattr", "hasattr", "globals",
        "locals", "vars", "__import__", "input", "breakpoint", "exit", "quit", "memoryview",
        "help", "dir", "type", "object", "super", "classmethod", "staticmethod", "property",
        "os", "sys", "subprocess", "socket", "ctypes", "builtins", "importlib", "gc",
    }
)  # fmt: skip
INTERNAL_PREFIXES = ("_", "f_", "co_", "tb_", "gi_", "cr_", "ag_")
FORBIDDEN_ATTRS = frozenset(
    {
        "mro", "registry", "register", "dispatch", "format", "format_map", "update_wrapper",
        "wraps", "attrgetter", "methodcaller", "itemgetter", "partialmethod",
        "singledispatchmethod", "singledispatch", "cached_property", "total_ordering",
    }
)  # fmt: skip
_ALLOWED_TOP = (ast.FunctionDef, ast.Import, ast.ImportFrom, ast.Assign, ast.Expr)


class GateError(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


def _check_import(node: ast.Import | ast.ImportFrom, line: object) -> None:
    """Modules and members that EXPOSED lists, under names that do not begin with "_"."""
    for alias in node.names:
        if alias.asname is not None and alias.asname.startswith("_"):
            raise GateError("gate", f"line {line}: import alias '{alias.asname}' is not allowed")
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name not in EXPOSED:
                raise GateError("gate", f"line {line}: import of '{alias.name}' is not allowed")
        return
    mod = node.module or ""
    if node.level or mod not in EXPOSED:
        raise GateError("gate", f"line {line}: import of '{'.' * node.level}{mod}' is not allowed")
    for alias in node.names:
        if alias.name not in EXPOSED[mod]:
            offer = ", ".join(sorted(EXPOSED[mod])) if len(EXPOSED[mod]) < 12 else "its names"
            raise GateError(
                "gate",
                f"line {line}: '{alias.name}' is not available from {mod} (available: {offer})",
            )


def _bound_names(node: ast.AST) -> list[str]:
    """Names a node binds besides plain assignments: defs, arguments, handlers, patterns."""
    if isinstance(node, ast.FunctionDef):
        return [node.name]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar):
        return [node.name] if node.name else []
    if isinstance(node, ast.MatchMapping):
        return [node.rest] if node.rest else []
    return []


def _check_node(node: ast.AST) -> None:
    line = getattr(node, "lineno", "?")
    if isinstance(node, ast.Import | ast.ImportFrom):
        _check_import(node, line)
    elif isinstance(node, ast.Name) and (node.id in FORBIDDEN_NAMES or node.id.startswith("__")):
        raise GateError("gate", f"line {line}: name '{node.id}' is not allowed")
    elif isinstance(node, ast.Attribute):
        if node.attr.startswith(INTERNAL_PREFIXES) or node.attr in FORBIDDEN_ATTRS:
            raise GateError("gate", f"line {line}: attribute '{node.attr}' is not allowed")
        if not isinstance(node.ctx, ast.Load):
            raise GateError("gate", f"line {line}: assigning to an attribute is not allowed")
    elif isinstance(node, ast.MatchClass):
        raise GateError("gate", f"line {line}: class patterns in `match` are not allowed")
    elif isinstance(node, ast.Global | ast.Nonlocal | ast.ClassDef | ast.AsyncFunctionDef):
        raise GateError("gate", f"line {line}: {type(node).__name__} is not allowed")
    for name in _bound_names(node):
        if name.startswith("__") or name in FORBIDDEN_NAMES:
            raise GateError("gate", f"line {line}: name '{name}' is not allowed")


def _is_generator(fn: ast.FunctionDef) -> bool:
    """Whether `fn` itself yields (a yield inside a nested def or lambda does not count)."""
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Yield | ast.YieldFrom):
            return True
        if not isinstance(node, ast.FunctionDef | ast.Lambda):
            stack.extend(ast.iter_child_nodes(node))
    return False


def check_source(name: str, source: str) -> ast.Module:
    """Raise GateError unless `source` defines a generator `def <name>(view)` within the rules."""
    if len(source.encode("utf-8", "replace")) > MAX_SOURCE_BYTES:
        raise GateError("gate", f"source is larger than {MAX_SOURCE_BYTES} bytes")
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise GateError("syntax", f"line {exc.lineno}: {exc.msg}") from None
    except (MemoryError, RecursionError, ValueError) as exc:
        raise GateError("syntax", f"source cannot be parsed safely: {type(exc).__name__}") from None
    for stmt in tree.body:
        if not isinstance(stmt, _ALLOWED_TOP):
            raise GateError(
                "gate", f"line {stmt.lineno}: only defs, imports and constants at top level"
            )
    try:
        for node in ast.walk(tree):
            _check_node(node)
    except RecursionError:
        raise GateError("gate", "source nests too deeply") from None
    funcs = {s.name: s for s in tree.body if isinstance(s, ast.FunctionDef)}
    fn = funcs.get(name)
    if fn is None:
        raise GateError("signature", f"no function named '{name}' (expected `def {name}(view):`)")
    args = fn.args
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    if names != ["view"] or args.kwonlyargs or args.vararg or args.kwarg:
        raise GateError("signature", f"'{name}' must take exactly one argument: `view`")
    if not _is_generator(fn):
        raise GateError("signature", f"'{name}' must be a generator that yields action names")
    return tree


def gate(name: str, source: str) -> ActionValidation | None:
    """None when the source passes the gate, else a failed ActionValidation."""
    from rlgpt.messages import ActionValidation

    try:
        check_source(name, source)
    except GateError as exc:
        return ActionValidation(name=name, ok=False, error_kind=exc.kind, message=exc.message)  # type: ignore[arg-type]
    return None
