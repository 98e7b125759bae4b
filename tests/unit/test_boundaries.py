"""rlgpt/ never imports prefect, mlflow or dvc (docs/design.md, Parts)."""

from __future__ import annotations

import ast
from pathlib import Path

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
