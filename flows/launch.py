"""Launching a run, a resume or a reproduction: validated parameters, a locked run directory,
the Prefect server it talks to, and the flow. Control flow only."""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import dataclass
from pathlib import Path

from rlgpt.config import (
    Params,
    dotted_keys,
    load_params,
    merge_nested,
    parse_sets,
    read_run_params,
    validate_params,
)
from rlgpt.errors import UserError
from rlgpt.lineage.context import RunContext
from rlgpt.lineage.rundir import RunLock, check_run_id, create
from rlgpt.lineage.summary import RunSummary

_OFFLINE_ENV = {
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "DO_NOT_TRACK": "1",
    "DVC_NO_ANALYTICS": "1",
    "PREFECT_LOGGING_LEVEL": "CRITICAL",  # failures are reported in one line by the CLI
    "PREFECT_SERVER_LOGGING_LEVEL": "WARNING",
    # flow and task run logs (and the rlgpt library's warnings) reach the Prefect UI
    "PREFECT_LOGGING_SETTINGS_PATH": str(Path(__file__).with_name("logging.yml")),
    "PREFECT_LOGGING_EXTRA_LOGGERS": "rlgpt",
    # the local server's start-up (its database migrations) took over Prefect's 20 s on a busy
    # 2-core machine, and the run died before any work: wait longer rather than fail
    "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "180",
}
# Which command-line flag sets which key (for one-line errors that name the flag).
FLAGS = {
    "run.world": "--world", "run.task": "--task", "run.iterations": "--iterations",
    "run.seed": "--seed",
    "llm.backend": "--llm", "llm.model": "--model", "llm.base_url": "--base-url",
    "llm.replay_from": "--from",
}  # fmt: skip


@dataclass
class Invocation:
    """One `rlgpt` command's state that its failure report needs: the run (or sweep) directory
    once known, where the traceback of a failure is written (error.log)."""

    run_dir: Path | None = None


def offline_env() -> None:
    """Prefect's home inside the project, analytics off; set before prefect is imported."""
    os.environ.setdefault("PREFECT_HOME", str(Path.cwd() / ".prefect"))
    for key, value in _OFFLINE_ENV.items():
        os.environ.setdefault(key, value)


def completed(runs_dir: Path, run_id: str, what: str) -> Path:
    """The directory of a run that finished (its manifest is written last), else a UserError."""
    check_run_id(run_id)
    root = runs_dir / run_id
    if not (root / "manifest.json").is_file():
        state = "did not finish" if root.is_dir() else "does not exist"
        raise UserError(f"run '{run_id}' under {runs_dir}/ {state}: {what} needs a completed run")
    return root


def run_params(args: argparse.Namespace) -> Params:
    """params.yaml (or a recorded run's, to replay it) with the command line's values, all
    through one validation path."""
    if args.replay_from and args.llm != "replay":
        raise UserError("--from RUN_ID goes with --llm replay (it names the run to replay)")
    sets = parse_sets(getattr(args, "set", None) or [])
    flags = {
        "run": {
            "world": args.world,
            "task": args.task,
            "iterations": args.iterations,
            "seed": args.seed,
        },
        "llm": {"backend": args.llm, "model": args.model, "base_url": args.base_url},
        "library": {"use": False, "add": False} if getattr(args, "no_library", False) else {},
    }
    overrides = {s: merge_nested(sets.get(s, {}), flags.get(s, {})) for s in {*sets, *flags}}
    names = {**{k: f"--set {k}" for k in dotted_keys(sets)}, **FLAGS}
    default = args.params == "params.yaml" and not Path(args.params).exists()
    params = load_params(None if default else args.params, overrides, names)
    if args.llm != "replay":
        return params
    if not args.replay_from:
        raise UserError("--llm replay needs --from RUN_ID (the run to replay)")
    runs_dir = Path(params.run.runs_dir)
    source = completed(runs_dir, args.replay_from, "--llm replay")
    recorded = read_run_params(source / "params.yaml").model_dump(mode="json")
    recorded["tracking"] = params.tracking.model_dump(mode="json")
    recorded["run"]["runs_dir"] = params.run.runs_dir
    replay = {"backend": "replay", "replay_from": args.replay_from}
    return validate_params(recorded, str(source), {**overrides, "llm": replay}, FLAGS)


def sandbox_ready(params: Params) -> None:
    """A run whose coded actions could not be validated is no RL-GPT run: without a working
    sandbox (and no `sandbox.isolation: degraded`), stop before any work, in one line."""
    from rlgpt.sandbox.client import check_isolation

    check_isolation(params.sandbox.isolation)


def cmd_run(args: argparse.Namespace, inv: Invocation) -> int:
    from rlgpt.llm.factory import make_llm
    from rlgpt.worlds import find_task

    if args.run_id is not None:
        check_run_id(args.run_id)
    params = run_params(args)
    sandbox_ready(params)
    task = find_task(params.run.world, params.run.task)
    make_llm(params.llm, params.run.runs_dir, task.world)  # no key, no recording: say so now
    run_id = check_run_id(args.run_id or f"{task.name}-{time.strftime('%Y%m%d-%H%M%S')}")
    runs_dir = Path(params.run.runs_dir)
    lock = RunLock(runs_dir, run_id)
    root = create(runs_dir, run_id, args.force)
    (root / "params.yaml").write_text(params.model_dump_json(indent=2))
    ctx = RunContext(run_id=run_id, params=params, task=task, show_progress=not args.quiet)
    try:
        return launch(ctx, args.metrics_out, inv)
    finally:
        lock.release()


def cmd_resume(args: argparse.Namespace, inv: Invocation) -> int:
    from rlgpt.worlds import find_task

    runs_dir = Path(args.runs_dir)
    root = runs_dir / check_run_id(args.run_id)
    if not (root / "params.yaml").is_file():
        raise UserError(f"no run '{args.run_id}' under {args.runs_dir}/ (no params.yaml)")
    params = read_run_params(root / "params.yaml")
    sandbox_ready(params)
    lock = RunLock(runs_dir, args.run_id)
    params.run.runs_dir = args.runs_dir
    ctx = RunContext(
        run_id=args.run_id,
        params=params,
        task=find_task(params.run.world, params.run.task),
        show_progress=not args.quiet,
        resume=True,
    )
    try:
        return launch(ctx, None, inv)
    finally:
        lock.release()


def launch(ctx: RunContext, metrics_out: str | None, inv: Invocation) -> int:
    """Run (or resume) the flow; completed stages come from Prefect's persisted results."""
    root, params = ctx.layout.root, ctx.params
    inv.run_dir = root
    os.environ["PREFECT_LOCAL_STORAGE_PATH"] = str((root / ".prefect-results").resolve())
    offline_env()
    from flows.server import RunServer

    # stopped at exit, after Prefect's own handlers; the flow's imports (Prefect, MLflow,
    # torch: seconds) run while it starts
    server = RunServer(root / ".prefect-server.log", wait=False)
    from flows.rlgpt_flow import rlgpt_run

    server.wait()

    llm = params.llm
    where = f" at {llm.base_url}" if llm.backend == "openai" and llm.base_url else ""
    verb = "resume" if ctx.resume else "run"
    print(
        f"rlgpt: {verb} {ctx.run_id}: task {ctx.task.name} ({ctx.task.description}), "
        f"llm {llm.backend}{where}"
    )
    from tasks.runners import run_task_runner

    summary = rlgpt_run.with_options(task_runner=run_task_runner(params.scale))(ctx)
    if metrics_out:
        from rlgpt.lineage.layout import write_json

        write_json(
            Path(metrics_out),
            {
                "final_success_rate": summary.final_success_rate,
                "selected_iteration": summary.selected_iteration,
                "iterations": len(summary.iterations),
                "samples": sum(i.samples for i in summary.iterations),
            },
        )
        # per iteration, beside it: what `dvc plots show` draws (dvc.yaml, plots)
        rows = ["iteration,samples,success_rate,dead_loop_ratio"] + [
            f"{i.iteration},{i.samples},{i.success_rate},{i.dead_loop_ratio}"
            for i in summary.iterations
        ]
        Path(metrics_out).with_name("iterations.csv").write_text("\n".join(rows) + "\n")
        _write_curve(root, summary, Path(metrics_out).with_name("curve.csv"))
    uri = params.tracking.mlflow_uri
    chosen = ""
    selected = any(i.selection_rate is not None for i in summary.iterations)
    if selected and summary.selected_iteration is not None and len(summary.iterations) > 1:
        chosen = (
            f" (iteration {summary.selected_iteration}'s policy, the best on the "
            f"selection episodes; the last one: {summary.last_success_rate:.2f})"
        )
    print(
        f"\nfinal success rate: {summary.final_success_rate:.2f}{chosen} after "
        f"{len(summary.iterations)} iteration(s), {summary.wall_s:.0f} s"
    )
    print(f"artifacts: {root}/ (summary.json, manifest.json, iter_*/)")
    print(
        f"mlflow:    {uri} experiment '{params.tracking.experiment}', run '{ctx.run_id}' "
        f"(mlflow ui --backend-store-uri {uri})"
    )
    print(
        "dvc:       `dvc repro run` runs this as stage 'run' (dvc.yaml); outputs runs/dvc/, "
        "pinned in dvc.lock"
    )
    return 0


def _write_curve(root: Path, summary: RunSummary, out: Path, rows: int = 400) -> None:
    """The learning curve for `dvc plots`: training success and return against samples (moving
    averages over 50 episodes, at most `rows` points)."""
    from rlgpt.report.collect import training_curve
    from rlgpt.report.figures import smooth

    points, _ = training_curve(root, summary.iterations)
    won = smooth([float(p[2]) for p in points], 50)
    ret = smooth([p[1] for p in points], 50)
    step = max(1, len(points) // rows)
    lines = ["samples,success,return"] + [
        f"{points[i][0]},{won[i]:.3f},{ret[i]:.3f}" for i in range(0, len(points), step)
    ]
    out.write_text("\n".join(lines) + "\n")


def cmd_reproduce(args: argparse.Namespace) -> int:
    from rlgpt.lineage.layout import read_model

    root = completed(Path(args.runs_dir), args.run_id, "reproduce")
    read_model(root / "summary.json", RunSummary)  # a damaged record: say so before any work
    sandbox_ready(read_run_params(root / "params.yaml"))
    offline_env()
    from flows.server import RunServer

    RunServer(Path(args.runs_dir) / args.run_id / "reproductions" / ".prefect-server.log")
    from flows.reproduce_flow import reproduce

    result = reproduce(args.run_id, args.runs_dir)
    verdict = "passed" if result.passed else f"FAILED ({result.reason})"
    print(
        f"reproduction {result.reproduction} of {result.original}: {verdict}; "
        f"max |delta| {result.max_abs_delta:.3f} (tolerance {result.tolerance})"
    )
    return 0 if result.passed else 1
