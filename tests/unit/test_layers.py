"""The parts of rlgpt/ stand in floors (docs/design.md, Parts): each imports only parts below
it, so no import runs back up and none goes round; full Craftax imports nothing of Crafter's
package (what both grid worlds share is in rlgpt/worlds/grid/)."""

from __future__ import annotations

import ast
from collections.abc import Set as AbstractSet
from pathlib import Path

RLGPT = Path(__file__).resolve().parents[2] / "rlgpt"
# From the top floor down, as docs/design.md lists them.
FLOORS = [
    "check", "rl", "report", "lineage", "agents", "validation", "llm", "config", "library", "trial",
    "worlds", "sandbox", "evidence", "messages", "textsafe", "errors", "faults",
]  # fmt: skip


def _name(path: Path) -> str:
    parts = path.relative_to(RLGPT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(path: Path, names: AbstractSet[str] = frozenset()) -> set[str]:
    """Every module a file imports, anywhere in it (lazy and TYPE_CHECKING imports included),
    relative ones resolved; `from package import module` names the module when it is one of
    `names`."""
    package = ".".join(path.relative_to(RLGPT.parent).with_suffix("").parts[:-1])
    mods: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            mods |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(p for p in (base, node.module or "") if p)
            subs = {f"{module}.{a.name}" for a in node.names} & names
            mods |= subs or {module}
    return mods


def _part(path: Path) -> str:
    return path.relative_to(RLGPT).with_suffix("").parts[0]


def test_every_part_of_rlgpt_stands_on_a_floor():
    parts = {_part(p) for p in RLGPT.rglob("*.py")} - {"__init__", "__main__"}
    assert parts == set(FLOORS)


def test_a_part_imports_only_parts_below_it():
    offenders = {}
    for path in RLGPT.rglob("*.py"):
        here = _part(path)
        if here in ("__init__", "__main__"):
            continue
        up = {
            m for m in _imported(path)
            if m.startswith("rlgpt.") and m.split(".")[1] in FLOORS
            and FLOORS.index(m.split(".")[1]) < FLOORS.index(here)
        }  # fmt: skip
        if up:
            offenders[str(path.relative_to(RLGPT))] = up
    assert offenders == {}


def test_full_craftax_imports_nothing_of_crafter():
    offenders = {}
    for path in (RLGPT / "worlds" / "craftax").rglob("*.py"):
        bad = {m for m in _imported(path) if m.startswith("rlgpt.worlds.crafter")}
        if bad:
            offenders[str(path.relative_to(RLGPT))] = bad
    assert offenders == {}


def test_no_import_goes_round():
    """No files of rlgpt/ import each other in a loop (a lazy import included)."""
    files = {_name(p): p for p in RLGPT.rglob("*.py")}
    edges = {n: {m for m in _imported(p, set(files)) if m in files and m != n}
             for n, p in files.items()}  # fmt: skip
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    loops = []

    def visit(n: str) -> None:  # Tarjan's strongly connected components
        index[n] = low[n] = len(index)
        stack.append(n)
        for m in edges[n]:
            if m not in index:
                visit(m)
                low[n] = min(low[n], low[m])
            elif m in stack:
                low[n] = min(low[n], index[m])
        if low[n] == index[n]:
            loop = []
            while True:
                m = stack.pop()
                loop.append(m)
                if m == n:
                    break
            if len(loop) > 1:
                loops.append(sorted(loop))

    for n in sorted(files):
        if n not in index:
            visit(n)
    assert loops == []
