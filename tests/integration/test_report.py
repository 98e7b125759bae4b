"""`rlgpt report`: one self-contained HTML page per run, checked as parsed HTML and in a real
headless browser."""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.conftest import rlgpt_exe
from tests.support.browser import CHROMIUM, WHY_SKIPPED, Browser

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def report(tmp_path_factory, request) -> tuple[Path, str]:
    """A real tiny run (2 iterations), then `rlgpt report` on it."""
    import yaml

    from tests.conftest import TINY

    tmp = tmp_path_factory.mktemp("report")
    params = {**TINY, "tracking": {"mlflow_uri": f"sqlite:///{tmp}/mlflow.db"}}
    params["run"] = {**TINY["run"], "runs_dir": str(tmp / "runs")}
    (tmp / "params.yaml").write_text(yaml.safe_dump(params))
    env = {**os.environ, "PREFECT_HOME": str(tmp / ".prefect")}
    run = subprocess.run([rlgpt_exe(), "run", "--params", "params.yaml", "--run-id", "r1",
                          "--quiet"], cwd=tmp, env=env, capture_output=True, text=True,
                         timeout=900)  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    rep = subprocess.run([rlgpt_exe(), "report", "r1", "--runs-dir", "runs"], cwd=tmp, env=env,
                         capture_output=True, text=True, timeout=300)  # fmt: skip
    assert rep.returncode == 0, rep.stderr[-2000:]
    assert "report.html" in rep.stdout
    return tmp / "runs" / "r1", (tmp / "runs" / "r1" / "report.html").read_text()


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: dict[str, str] = {}
        self.images: list[str] = []
        self.external: list[str] = []
        self.rows = 0
        self._table: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids[a["id"] or ""] = tag
        if tag == "table":
            self._table = a.get("id")
        if tag == "tr" and self._table == "iterations":
            self.rows += 1
        if tag == "img":
            self.images.append(a.get("src") or "")
        for key in ("src", "href"):
            url = a.get(key) or ""
            if tag != "a" and url.startswith(("http:", "https:", "//")):
                self.external.append(url)


def test_the_report_is_self_contained_and_shows_every_part(report):
    run, html = report
    page = _Page()
    page.feed(html)
    assert page.rows == 1 + 2, "a header and one row per iteration"
    assert not page.external, "nothing is fetched from the network"
    assert len(page.images) == 2
    for src in page.images:
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1]).startswith(PNG)
    assert {"iter-1", "iter-2", "final-success", "links"} <= set(page.ids)
    # the plan (coded vs learned), the code with its diff, the critique and the lineage
    assert 'class="rl">learned' in html and 'class="code">coded' in html
    assert "def place_table(view)" in html
    assert "collect_wood</b>: new" in html, "iteration 2 codes what iteration 1 learned"
    assert "revise_plan" in html and "slow_decompose" in html and "fast_code" in html
    # links to the MLflow runs of this run: the parent and both iterations
    assert html.count("#/experiments/") == 4  # the run, its two iterations, its learned action
    assert "iteration 1, learned action collect_wood" in html
    # generated code is shown, never interpreted: markup in it is escaped
    assert "<script" not in html
    curve = (run / "iter_1" / "train" / "curve.csv").read_text().splitlines()
    assert curve[0] == "samples,return,steps,success"


def test_a_missing_run_is_one_line(tmp_path):
    proc = subprocess.run([rlgpt_exe(), "report", "nope", "--runs-dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "no run 'nope'" in proc.stderr


@pytest.mark.skipif(CHROMIUM is None, reason=WHY_SKIPPED)
def test_the_report_renders_in_headless_chromium(report, tmp_path):
    run, _ = report
    with Browser() as browser:
        browser.load((run / "report.html").resolve().as_uri())
        images = browser.eval(
            "Array.from(document.images).map(i => [i.id, i.complete, i.naturalWidth])"
        )
        rows = browser.eval("document.querySelectorAll('#iterations tr').length")
        cells = browser.eval(
            "Array.from(document.querySelectorAll('#iterations td')).map(c => c.innerText)"
        )
        heights = browser.eval(
            "Array.from(document.querySelectorAll('table')).map(t => t.offsetHeight)"
        )
        shot = browser.screenshot(tmp_path / "report.png")
    assert [i[0] for i in images] == ["plot-per-iteration", "plot-learning-curves"]
    assert all(done and width > 300 for _, done, width in images), images
    assert rows == 3 and cells[0] == "1" and "make_wood_pickaxe" in " ".join(cells)
    assert heights and all(h > 0 for h in heights), "every table is laid out and visible"
    assert shot.read_bytes().startswith(PNG) and shot.stat().st_size > 20_000
    if os.environ.get("RLGPT_REPORT_SCREENSHOT"):  # the README's picture
        shutil.copy(shot, os.environ["RLGPT_REPORT_SCREENSHOT"])
