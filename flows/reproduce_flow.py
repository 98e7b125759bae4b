"""Scheduled reproduction: replay a recorded run with its seeds and compare the metrics."""

from __future__ import annotations

import time
from pathlib import Path

from prefect import flow

from flows.rlgpt_flow import rlgpt_run
from rlgpt.lineage.context import RunContext
from rlgpt.lineage.layout import read_model
from rlgpt.lineage.reproduce import Comparison, compare, replay_params
from rlgpt.lineage.rundir import RunLock, create
from rlgpt.lineage.summary import RunSummary
from rlgpt.worlds import find_task
from tasks.tracking import log_reproduction, record_comparison


@flow(name="rlgpt-reproduce", log_prints=False)
def reproduce(run_id: str, runs_dir: str = "runs") -> Comparison:
    """Re-run `run_id` with the replay backend and its own seeds; record the comparison."""
    root = Path(runs_dir)
    params = replay_params(root, run_id)
    original = read_model(root / run_id / "summary.json", RunSummary)
    new_id = f"{run_id}-repro-{time.strftime('%Y%m%d-%H%M%S')}"
    task = find_task(params.run.world, params.run.task)
    ctx = RunContext(run_id=new_id, params=params, task=task, show_progress=False)
    lock = RunLock(root, new_id)
    create(root, new_id, force=False)
    (ctx.layout.root / "params.yaml").write_text(params.model_dump_json(indent=2))
    try:
        again = rlgpt_run(ctx, emit=False)
    finally:
        lock.release()
    comparison = compare(original, again, params.reproduce.tolerance)
    log_reproduction(ctx, comparison)
    record_comparison(ctx, comparison)  # last: the record says it is complete
    return comparison
