"""The sweep's summary: per-run rows, per-task mean and spread, files, the live lines."""

from __future__ import annotations

import csv
from pathlib import Path

from rlgpt.lineage.summary import RunSummary
from rlgpt.lineage.sweep import (
    SweepRow,
    SweepRun,
    SweepSummary,
    finished,
    status_line,
    table,
    write,
)


def _summary() -> SweepSummary:
    rows = [
        SweepRow(task="place_table", seed=0, run_id="s-place_table-s0", status="complete",
                 final_success_rate=0.9, iterations=2, samples=100, wall_s=10.0),
        SweepRow(task="place_table", seed=1, run_id="s-place_table-s1", status="complete",
                 final_success_rate=0.5, iterations=2, samples=100, wall_s=12.0, attempts=2),
        SweepRow(task="collect_wood", seed=0, run_id="s-collect_wood-s0", status="failed",
                 attempts=3, error='exit 1: rlgpt: failed, "quoted"'),
    ]  # fmt: skip
    return SweepSummary(sweep_id="s", tasks=["place_table", "collect_wood"], seeds=[0, 1],
                        runner="sequential", rows=rows, wall_s=20.0, samples=200,
                        samples_per_s=10.0)  # fmt: skip


def test_table_has_each_run_and_each_tasks_mean_and_spread():
    text = table(_summary())
    assert "place_table          mean 0.70 +- 0.20 over 2 seed(s), 2 finished" in text
    assert "collect_wood         mean 0.00 +- 0.00 over 1 seed(s), 0 finished" in text
    assert 'failed (exit 1: rlgpt: failed, "quoted")' in text
    assert "3 run(s), 200 samples in 20 s: 10 samples/s in all (sequential)" in text


def test_write_gives_json_markdown_and_csv_that_read_back(tmp_path: Path):
    write(tmp_path, _summary())
    back = SweepSummary.model_validate_json((tmp_path / "summary.json").read_text())
    assert back == _summary()
    rows = list(csv.DictReader((tmp_path / "summary.csv").open()))
    assert [r["run_id"] for r in rows] == ["s-place_table-s0", "s-place_table-s1",
                                           "s-collect_wood-s0"]  # fmt: skip
    assert rows[2]["error"] == 'exit 1: rlgpt: failed, "quoted"'
    assert rows[1]["attempts"] == "2"
    assert "mean 0.70" in (tmp_path / "summary.md").read_text()


def test_status_line_says_what_each_started_run_is_doing(tmp_path: Path):
    specs = [SweepRun(task=t, seed=0, run_id=f"s-{t}-s0", runs_dir=str(tmp_path),
                      params_path=None, project=str(tmp_path))
             for t in ("place_table", "collect_wood", "eat_cow")]  # fmt: skip
    log = tmp_path / "s-collect_wood-s0" / "stage_log.jsonl"
    log.parent.mkdir()
    log.write_text('{"stage": "decompose", "iteration": 1}\n{"stage": "train", "iteration": 2}\n')
    line = status_line(specs, {"s-place_table-s0"}, 42.0)
    assert line == "[1/3 done, 1 waiting, 42 s] collect_wood s0: train iter 2"


def test_a_run_is_finished_when_complete_or_stopped_at_its_budget_not_while_running(tmp_path):
    spec = SweepRun(task="place_table", seed=0, run_id="s-place_table-s0",
                    runs_dir=str(tmp_path), params_path=None, project=str(tmp_path))  # fmt: skip
    spec.root.mkdir()
    assert not finished(spec)
    for status, done in (("running", False), ("budget_exhausted", True)):
        summary = RunSummary(
            run_id=spec.run_id,
            task="place_table",
            llm="openai:m",
            final_success_rate=0.0,
            iterations=[],
            status=status,
            wall_s=1.0,
        )
        (spec.root / "summary.json").write_text(summary.model_dump_json())
        assert finished(spec) is done
    (spec.root / "summary.json").write_text(
        summary.model_copy(update={"status": "running"}).model_dump_json()
    )
    (spec.root / "manifest.json").write_text("{}")
    assert finished(spec)
