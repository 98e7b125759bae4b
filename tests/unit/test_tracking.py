"""MLflow follows disk: one parent per run id, an iteration logged once, a recomputed one marked,
the final rate once per step (a real sqlite MLflow store)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from mlflow.tracking import MlflowClient

from rlgpt.config import Params
from rlgpt.lineage.context import RunContext
from rlgpt.lineage.process import process_tag
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


def test_superseded_and_orphaned_parents_end_killed(tmp_path):
    """A parent left RUNNING by a killed run: a rerun of its id ends it KILLED as it
    supersedes it; another run ends KILLED a parent whose process is gone, and leaves alone
    one whose process lives (or that another host ran)."""
    c = MlflowClient(tracking_uri=f"sqlite:///{tmp_path}/mlflow.db")
    old = tracking.start_parent.fn(_ctx(tmp_path), "m")  # its process "dies" before closing
    new = tracking.start_parent.fn(_ctx(tmp_path), "m")  # `rlgpt run --force`, same id
    assert c.get_run(old).info.status == "KILLED"
    assert c.get_run(old).data.tags["rlgpt.superseded"] == "true"
    assert c.get_run(new).info.status == "RUNNING"

    exp = c.get_run(new).info.experiment_id
    dead = subprocess.Popen(["true"])
    dead.wait()
    tags = {"gone": process_tag(dead.pid), "alive": process_tag(),
            "elsewhere": "another-host|b|1|1"}  # fmt: skip
    runs = {k: c.create_run(exp, tags={"rlgpt.run_id": k, "rlgpt.process": v}).info.run_id
            for k, v in tags.items()}  # fmt: skip
    child = c.create_run(exp, tags={"mlflow.parentRunId": runs["gone"]}).info.run_id
    assert tracking.end_orphans(c, exp) == [runs["gone"]]
    assert c.get_run(runs["gone"]).info.status == "KILLED"
    assert c.get_run(runs["gone"]).data.tags["rlgpt.orphaned"] == "true"
    assert c.get_run(child).info.status == "KILLED", "its RUNNING iteration too"
    for k in ("alive", "elsewhere"):
        assert c.get_run(runs[k]).info.status == "RUNNING", k
