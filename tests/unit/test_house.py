"""House rules checked on the source: no function of rlgpt/, flows/ or tasks/ takes more than six
positional parameters (the rest are keyword-only), and the launcher keeps no module-level
state. A game backend that mirrors the game's own functions step for step is exempt."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_POSITIONAL = 6
# Crafter's own functions, mirrored parameter for parameter (docs/speed.md): exempt.
BACKENDS = {"rlgpt/worlds/crafter/fast.py", "rlgpt/worlds/crafter/worldgen.py"}


def _positional(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    names = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    return names[1:] if names[:1] in (["self"], ["cls"]) else names


def over_limit(root: Path = ROOT) -> list[str]:
    """`path:line name (n)` of every function with more than MAX_POSITIONAL positional
    parameters (self and cls not counted)."""
    found = []
    for top in ("rlgpt", "flows", "tasks"):
        for path in sorted((root / top).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            if rel in BACKENDS:
                continue
            for node in ast.walk(ast.parse(path.read_text(), rel)):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    n = len(_positional(node))
                    if n > MAX_POSITIONAL:
                        found.append(f"{rel}:{node.lineno} {node.name} ({n})")
    return found


def test_at_most_six_positional_parameters() -> None:
    offenders = over_limit()
    assert not offenders, (
        f"more than {MAX_POSITIONAL} positional parameters (make the rest keyword-only, `*,`): "
        + "; ".join(offenders)
    )


def test_the_check_sees_an_offender(tmp_path: Path) -> None:
    (tmp_path / "rlgpt").mkdir()
    (tmp_path / "flows").mkdir()
    (tmp_path / "tasks").mkdir()
    (tmp_path / "rlgpt" / "m.py").write_text(
        "def ok(a, b, c, d, e, f, *, g): ...\n"
        "class C:\n    def m(self, a, b, c, d, e, f): ...\n"
        "def bad(a, b, c, d, e, f, g): ...\n"
    )
    assert over_limit(tmp_path) == ["rlgpt/m.py:4 bad (7)"]


def test_launch_keeps_no_module_state() -> None:
    """The run directory a failure's traceback goes to travels with the command
    (flows.launch.Invocation), not in a module-level list; the module's dicts are constants."""
    tree = ast.parse((ROOT / "flows" / "launch.py").read_text())
    mutable = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp, ast.Call)
    names = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, mutable):
            names |= {ast.unparse(t) for t in node.targets}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.value, mutable):
            names.add(ast.unparse(node.target))
    assert names <= {"_OFFLINE_ENV", "FLAGS"}, f"module-level state in flows/launch.py: {names}"
