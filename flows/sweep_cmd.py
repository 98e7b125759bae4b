"""`rlgpt sweep --tasks T1,T2 --seeds N`: the grid's runs on the configured task runner, one
summary table (docs/scaling.md). Control flow only."""

from __future__ import annotations

import argparse
import json
import logging
import os
import time
from pathlib import Path

from flows.launch import Invocation
from rlgpt.config import Params, dotted_keys, load_params, merge_nested, parse_sets
from rlgpt.errors import UserError
from rlgpt.lineage.rundir import RunLock, check_run_id
from rlgpt.lineage.sweep import SweepRun, SweepSummary, table, write


def _params_and_specs(args: argparse.Namespace) -> tuple[Params, list[SweepRun], Path, str]:
    from rlgpt.worlds import find_task

    sets = parse_sets(args.set or [])
    scale = {k: v for k, v in {"runner": args.runner, "workers": args.workers,
                                "address": args.address}.items() if v is not None}  # fmt: skip
    flags = {"scale": scale, "run": {"iterations": args.iterations, "world": args.world}}
    overrides = {s: merge_nested(sets.get(s, {}), flags.get(s, {})) for s in {*sets, *flags}}
    names = {**{k: f"--set {k}" for k in dotted_keys(sets)}, "run.iterations": "--iterations",
             "run.world": "--world",
             "scale.runner": "--runner", "scale.workers": "--workers",
             "scale.address": "--address"}  # fmt: skip
    default = args.params == "params.yaml" and not Path(args.params).exists()
    params = load_params(None if default else args.params, overrides, names)
    world = params.run.world
    tasks = [find_task(world, t.strip()).name for t in args.tasks.split(",") if t.strip()]
    if not tasks or len(set(tasks)) != len(tasks):
        raise UserError("--tasks takes distinct task names separated by commas (see `rlgpt tasks`)")
    if args.seeds < 1:
        raise UserError("--seeds takes the number of seeds per task, 1 or more")
    sweep_id = check_run_id(args.sweep_id or f"sweep-{time.strftime('%Y%m%d-%H%M%S')}")
    if len(sweep_id) > 60:
        raise UserError("--sweep-id is at most 60 characters (its runs are named after it)")
    root = (Path(params.run.runs_dir) / sweep_id).resolve()
    if root.is_dir() and any(root.iterdir()) and not (root / "sweep.json").is_file():
        raise UserError(
            f"{root} exists and is not a sweep (no sweep.json); pick another --sweep-id"
        )
    seeds = [params.run.seed + i for i in range(args.seeds)]
    specs = [
        SweepRun(task=t, seed=s, run_id=f"{sweep_id}-{t}-s{s}", runs_dir=str(root),
                 params_path=None if default else str(Path(args.params).resolve()),
                 sets=list(args.set or []), iterations=args.iterations,
                 project=str(Path.cwd()))
        for t in tasks for s in seeds
    ]  # fmt: skip
    for spec in specs:  # a large seed can make a run id too long
        check_run_id(spec.run_id)
    return params, specs, root, sweep_id


def cmd_sweep(args: argparse.Namespace, inv: Invocation) -> int:
    from flows import launch

    params, specs, root, sweep_id = _params_and_specs(args)
    launch.sandbox_ready(params)
    grid = {
        "tasks": list(dict.fromkeys(s.task for s in specs)),
        "seeds": list(dict.fromkeys(s.seed for s in specs)),
        "iterations": args.iterations,
        "sets": list(args.set or []),
    }
    spec_file = root / "sweep.json"
    if spec_file.is_file() and json.loads(spec_file.read_text())["grid"] != grid:
        raise UserError(
            f"sweep {sweep_id} exists with another grid ({spec_file}); pick another "
            "--sweep-id, or repeat its own arguments to continue it"
        )
    if params.scale.runner == "dask" and params.scale.address:
        from tasks.runners import reachable

        reachable(params.scale.address)  # before anything is started or recorded
    lock = RunLock(Path(params.run.runs_dir), sweep_id)
    root.mkdir(parents=True, exist_ok=True)
    runs = [s.model_dump() for s in specs]
    spec_file.write_text(json.dumps({"grid": grid, "runs": runs}, indent=1))
    inv.run_dir = root
    os.environ["PREFECT_LOCAL_STORAGE_PATH"] = str(root / ".prefect-results")
    launch.offline_env()
    from flows.server import RunServer

    server = RunServer(root / ".prefect-server.log")  # every run of the sweep shares it
    from flows.sweep_flow import NANNY_ENV, rlgpt_sweep
    from tasks import runners, tracking

    for name in ("distributed", "tornado"):  # the sweep prints its own lines
        logging.getLogger(name).setLevel(logging.ERROR)

    mlflow_run = tracking.start_sweep(params, sweep_id, grid)
    env = {"PREFECT_API_URL": server.url, "PREFECT_HOME": os.environ["PREFECT_HOME"]}
    # ours, not the nanny's: read before the flow starts a LocalCluster, whose nannies leave
    # their values in this process's environment (os.environ.update before each spawn)
    env |= {k: os.environ[k] for k in NANNY_ENV if k in os.environ}
    specs = [
        s.model_copy(update={"sets": [*s.sets, f"tracking.parent_run={mlflow_run}"]}) for s in specs
    ]
    where = runners.describe(params.scale)
    print(
        f"rlgpt: sweep {sweep_id}: {len(specs)} run(s) ({', '.join(grid['tasks'])} x "
        f"{len(grid['seeds'])} seed(s)) on {where}; runs under {root}/",
        flush=True,
    )
    t0 = time.perf_counter()
    try:
        flow = rlgpt_sweep.with_options(task_runner=runners.task_runner(params.scale))
        rows = flow(sweep_id, specs, env, params.scale.retries)
    finally:
        lock.release()
    wall = time.perf_counter() - t0
    samples = sum(r.samples for r in rows)
    summary = SweepSummary(
        sweep_id=sweep_id, tasks=grid["tasks"], seeds=grid["seeds"], runner=where, rows=rows,
        wall_s=round(wall, 1), samples=samples, samples_per_s=round(samples / max(wall, 1e-9), 1),
    )  # fmt: skip
    path = write(root, summary)
    tracking.end_sweep(params, mlflow_run, summary, path)
    print("\n" + table(summary))
    print(f"\nsummary: {path} (and summary.md, summary.csv); runs: {root}/")
    failed = [r.run_id for r in rows if r.status == "failed"]
    if failed:
        print(
            f"rlgpt: {len(failed)} run(s) failed after every retry: {', '.join(failed)}; "
            f"`rlgpt sweep` with the same arguments and --sweep-id {sweep_id} resumes them"
        )
    return 1 if failed else 0
