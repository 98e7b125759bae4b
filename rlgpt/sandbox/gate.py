"""Static gate for generated code: size cap, parse, AST allow-list, required signature.

It closes classes of escape, not names: no name or attribute beginning with "_", no attribute of
the interpreter's internals (frames f_*, code co_*, tracebacks tb_*, generators and coroutines
gi_*/cr_*/ag_*), none of the attributes that hand out `object` or `type` (mro, registry,
register, dispatch) or read attributes by string (format, format_map), no attribute assignment,
no `match` class patterns (they name attributes as strings). It is a courtesy that gives early,
readable errors; the sandboxed worker and the OS layer hold without it.
Importable without pydantic: the sandboxed worker runs it again on its minimal root.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rlgpt.messages import ActionValidation

MAX_SOURCE_BYTES = 20_000
ALLOWED_IMPORTS = frozenset({"math", "random", "itertools", "collections", "functools"})
FORBIDDEN_NAMES = frozenset(
    {
        "eval", "exec", "compile", "open", "getattr", "setattr", "delattr", "globals",
        "locals", "vars", "__import__", "input", "breakpoint", "exit", "quit", "memoryview",
        "help", "dir", "type", "object", "super", "classmethod", "staticmethod", "property",
        "os", "sys", "subprocess", "socket", "ctypes", "builtins", "importlib", "gc",
    }
)  # fmt: skip
INTERNAL_PREFIXES = ("_", "f_", "co_", "tb_", "gi_", "cr_", "ag_")
FORBIDDEN_ATTRS = frozenset({"mro", "registry", "register", "dispatch", "format", "format_map"})
_ALLOWED_TOP = (ast.FunctionDef, ast.Import, ast.ImportFrom, ast.Assign, ast.Expr)


class GateError(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


def _check_node(node: ast.AST) -> None:
    line = getattr(node, "lineno", "?")
    if isinstance(node, ast.Import | ast.ImportFrom):
        mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
        for mod in mods:
            if (mod or "").split(".")[0] not in ALLOWED_IMPORTS:
                raise GateError("gate", f"line {line}: import of '{mod}' is not allowed")
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
