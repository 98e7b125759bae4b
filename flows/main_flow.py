"""The deployable RL-GPT flow: plain parameters that a Prefect deployment, its schedule or the
UI's form can fill (a task name, a params file, `section.key=value` overrides, a run id). It
builds the run as `rlgpt run` does, through the same validation, and runs the loop as a
subflow. `rlgpt run` itself calls the loop directly (it also prints the table and manages a
private server); both write the same run directory."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from prefect import flow
from prefect.runtime import flow_run

from flows.rlgpt_flow import rlgpt_run
from rlgpt.config import dotted_keys, load_params, merge_nested, parse_sets
from rlgpt.lineage.context import RunContext
from rlgpt.lineage.rundir import RunLock, check_run_id, create
from rlgpt.llm.factory import make_llm
from rlgpt.worlds import find_task


def _name() -> str:
    p = flow_run.parameters
    return str(p.get("run_id") or p.get("task") or "rlgpt")


@flow(name="rlgpt", flow_run_name=_name, log_prints=False, validate_parameters=True)
def rlgpt_flow(
    task: str | None = None,
    params_path: str = "params.yaml",
    sets: list[str] | None = None,
    run_id: str | None = None,
    force: bool = False,
) -> dict[str, Any]:
    """Run RL-GPT on `task` (default: params.yaml's run.task) with `params_path` and the
    overrides `sets` (e.g. ["train.sample_budget=30000"]); returns summary.json's content. The
    run id defaults to TASK-YYYYmmdd-HHMMSS; `force` replaces an earlier run of that id."""
    overrides = parse_sets(sets or [])
    if task:
        overrides["run"] = merge_nested(overrides.get("run", {}), {"task": task})
    names = {k: f"sets: {k}" for k in dotted_keys(overrides)}
    path = params_path if Path(params_path).is_file() or params_path != "params.yaml" else None
    params = load_params(path, overrides, names)
    spec = find_task(params.run.world, params.run.task)
    make_llm(params.llm, params.run.runs_dir, spec.world)  # no key, no recording: say so now
    rid = check_run_id(run_id or f"{spec.name}-{time.strftime('%Y%m%d-%H%M%S')}")
    runs_dir = Path(params.run.runs_dir)
    lock = RunLock(runs_dir, rid)
    try:
        root = create(runs_dir, rid, force)
        (root / "params.yaml").write_text(params.model_dump_json(indent=2))
        ctx = RunContext(run_id=rid, params=params, task=spec, show_progress=False)
        summary = rlgpt_run(ctx, emit=False)
    finally:
        lock.release()
    return summary.model_dump(mode="json")
