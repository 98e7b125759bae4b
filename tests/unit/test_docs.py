"""The pages a reader follows: every relative link in the README and docs/ leads to a file of
the repository, and no page names a path of the machine that wrote it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s#]+)")
MACHINE_PATH = re.compile(r"(?<![\w.])/(?:work|home/\w+|root|Users/\w+)/")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_lead_to_files(page: Path) -> None:
    broken = []
    for target in LINK.findall(page.read_text()):
        if re.match(r"^[a-z]+:", target):  # http:, https:, mailto:
            continue
        if not (page.parent / target).resolve().exists():
            broken.append(target)
    assert broken == [], f"{page.name}: links to no file (relative to {page.parent.name}/)"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_machine_paths(page: Path) -> None:
    hits = [ln for ln in page.read_text().splitlines() if MACHINE_PATH.search(ln)]
    assert hits == []


def test_the_checks_catch_what_they_look_for(tmp_path: Path) -> None:
    assert LINK.findall("see [a](docs/img/x.png) and [b](https://x.org/y)") == [
        "docs/img/x.png",
        "https://x.org/y",
    ]
    assert MACHINE_PATH.search("file:///work/main/dvc_plots/index.html")
    assert MACHINE_PATH.search("sqlite:////home/alice/mlflow.db")
    assert not MACHINE_PATH.search("runs/dvc/report.html and ./work/ and /tmp/x")
