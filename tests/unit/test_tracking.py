"""MLflow follows disk: one parent per run id, an iteration logged once, a recomputed one marked,
the final rate once per step (a real sqlite MLflow store)."""

from __future__ import annotations

from pathlib import Path

from mlflow.tracking import MlflowClient

from rlgpt.config import Params
from rlgpt.lineage.context import RunContext
from rlgpt.lineage.summary import IterationSummary
from rlgpt.worlds.crafter.tasks import get_task
from tasks import tracking


def _ctx(tmp_path: Path, resume: bool = False, parent: str | None = None) -> RunContext:
    params = Params()
    params.tracking.mlflow_uri = f"sqlite:///{tmp_path}/mlflow.db"
    params.run.runs_dir = str(tmp_path / "runs")
    return RunContext(run_id="t", params=params, task=get_task("collect_wood"),
                      resume=resume, mlflow_run_id=parent)  # fmt: skip


def _it(rate: float) -> IterationSummary:
    return IterationSummary(iteration=1, outer=1, inner=1, success_rate=rate, samples=10,
                            dead_loop_ratio=0.0, coded=[], learned=["collect_wood"],
                            validation="ok", verdict="success")  # fmt: skip


def _children(c: MlflowClient, parent: str) -> list:
    exp = c.get_run(parent).info.experiment_id
    return [r for r in c.search_runs([exp]) if r.data.tags.get("mlflow.parentRunId") == parent]


def test_parent_is_continued_iterations_logged_once_and_recomputation_marked(tmp_path):
    first = tracking.start_parent.fn(_ctx(tmp_path), "m")
    c = MlflowClient(tracking_uri=f"sqlite:///{tmp_path}/mlflow.db")
    c.set_terminated(first, "KILLED")  # a Ctrl-C
    again = tracking.start_parent.fn(_ctx(tmp_path, resume=True), "m")
    assert again == first and c.get_run(first).info.status == "RUNNING"

    ctx = _ctx(tmp_path, resume=True, parent=first)
    iter_dir = str(tmp_path / "iter_1")
    one = tracking.log_iteration.fn(ctx, _it(0.5), None, iter_dir)
    assert tracking.log_iteration.fn(ctx, _it(0.5), None, iter_dir) == one, "never twice"
    other = tracking.log_iteration.fn(ctx, _it(0.8), None, iter_dir)  # recomputed, new numbers
    assert other != one
    runs = {r.info.run_id: r for r in _children(c, first)}
    assert runs[one].data.tags["rlgpt.superseded"] == "true"
    assert runs[other].data.tags["rlgpt.recomputed"] == "true"
    assert runs[other].data.metrics["success_rate"] == 0.8

    for _ in range(3):  # resumed again and again: one point per step
        tracking.end_parent.fn(ctx, "FINISHED", 0.8, "", 1)
    history = c.get_metric_history(first, "final_success_rate")
    assert [(m.step, m.value) for m in history] == [(1, 0.8)]
