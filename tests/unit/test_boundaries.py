"""rlgpt/ never imports prefect, mlflow or dvc (docs/design.md, Parts)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

FORBIDDEN = {"prefect", "mlflow", "dvc"}
RLGPT = Path(__file__).resolve().parents[2] / "rlgpt"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    mods: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            mods |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            mods.add(node.module.split(".")[0])
    return mods


def test_library_has_no_orchestration_imports():
    files = list(RLGPT.rglob("*.py"))
    assert len(files) > 20
    offenders = {str(p.relative_to(RLGPT)): _imports(p) & FORBIDDEN for p in files}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_checker_sees_a_forbidden_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import os\nfrom mlflow.tracking import MlflowClient\n")
    assert _imports(bad) & FORBIDDEN == {"mlflow"}


def test_the_library_never_reaches_up_into_flows_or_tasks():
    """Only rlgpt/__main__.py (`python -m rlgpt`, run as a script) calls the CLI in flows/."""
    files = [p for p in RLGPT.rglob("*.py") if p.name != "__main__.py"]
    offenders = {str(p.relative_to(RLGPT)): _imports(p) & {"flows", "tasks"} for p in files}
    assert {k: v for k, v in offenders.items() if v} == {}


def _at_import(tree: ast.Module) -> list[ast.AST]:
    """The statements that run when a module is imported: its top level, without function
    bodies and `if TYPE_CHECKING:` blocks."""
    out: list[ast.AST] = []
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out += list(ast.walk(node))
    return out


def _modules(path: Path, at_import: bool = False) -> set[str]:
    """Full dotted names of the imports of a file (relative ones resolved); `at_import`: only
    those that run when it is imported."""
    tree = ast.parse(path.read_text())
    package = ".".join(path.relative_to(RLGPT.parent).with_suffix("").parts[:-1])
    mods: set[str] = set()
    for node in _at_import(tree) if at_import else ast.walk(tree):
        if isinstance(node, ast.Import):
            mods |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            mods.add(".".join(p for p in (base, node.module or "") if p))
    return mods


GAMES = {"crafter", "craftax", "jax", "jaxlib"}
WORLDS = RLGPT / "worlds"


def _world_of(path: Path) -> str | None:
    """The world package a file belongs to (rlgpt/worlds/<name>/...), None for generic code."""
    rel = path.relative_to(RLGPT).parts
    return rel[1] if len(rel) > 2 and rel[0] == "worlds" else None


# modules of rlgpt/worlds/ itself (the protocol, check_world) are no world's: generic code
GENERIC = {p.stem for p in WORLDS.glob("*.py")} - {"__init__"}


def test_no_generic_module_imports_a_world_or_a_game():
    """The seam (docs/worlds.md): outside rlgpt/worlds/<name>/ nothing imports a game package or
    a world's own modules; the generic parts ask `rlgpt.worlds.get_world(name)`."""
    root = RLGPT.parent
    files = [*RLGPT.rglob("*.py"), *(root / "flows").rglob("*.py"), *(root / "tasks").rglob("*.py")]
    offenders = {}
    for p in files:
        if p.is_relative_to(RLGPT) and _world_of(p) is not None:
            continue
        bad = {
            m for m in _modules(p)
            if m.split(".")[0] in GAMES
            or (m.startswith("rlgpt.worlds.") and m.split(".")[2] not in GENERIC)
        }  # fmt: skip
        if bad:
            offenders[str(p.relative_to(root))] = bad
    assert offenders == {}


def test_a_world_imports_no_other_game_than_its_own():
    """Crafter's world never imports craftax or jax; Craftax-Classic may reuse Crafter's
    package (the same game), never the other way round."""
    offenders = {}
    for p in (WORLDS / "crafter").rglob("*.py"):
        bad = {m for m in _modules(p) if m.split(".")[0] in {"craftax", "jax", "jaxlib"}
               or m.startswith("rlgpt.worlds.craftax")}  # fmt: skip
        if bad:
            offenders[str(p.relative_to(RLGPT))] = bad
    assert offenders == {}


@pytest.mark.parametrize("world", ["crafter", "craftax"])
def test_what_the_sandbox_imports_is_standard_library_only(world):
    """The skill package and the `__init__` files above it are bound into the sandbox root,
    which holds the standard library and nothing else (rlgpt/sandbox/boundary.py)."""
    import sys

    from rlgpt.sandbox.boundary import code_paths
    from rlgpt.worlds import get_world

    if world != "crafter":
        pytest.importorskip("craftax")
    package = get_world(world).skills().package
    files = []
    for rel in code_paths(package):
        if rel == "rlgpt/sandbox":  # the worker's own package: its boundary tests run it
            continue
        path = RLGPT.parent / rel
        files += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    assert any(p.name == "api.py" for p in files)
    parts = package.split(".")
    bound = {".".join(parts[:i]) for i in range(2, len(parts))}  # the parents' __init__ files
    offenders = {}
    for p in files:
        outside = {
            m for m in _modules(p, at_import=True)
            if m.split(".")[0] not in sys.stdlib_module_names
            and not m.startswith(("rlgpt.sandbox", package)) and m not in bound
        }  # fmt: skip
        if outside - {"__future__"}:
            offenders[str(p.relative_to(RLGPT.parent))] = outside
    assert offenders == {}
