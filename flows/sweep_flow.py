"""`rlgpt sweep`: a Prefect flow that fans the grid's runs out as Prefect tasks on the
configured task runner (Dask by default; docs/scaling.md). Control flow only.

The unit of work is one whole `rlgpt run` in a child process of the worker: its own run
directory, torch thread count and sandbox workers, the sweep's Prefect server and MLflow parent.
The child dies with the worker that started it (PR_SET_PDEATHSIG); a retry, on whichever worker
Dask picks, resumes the run from its completed stages."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_table_artifact
from prefect.futures import as_completed

from flows import pdeathsig
from rlgpt.lineage.sweep import (
    SweepRow,
    SweepRun,
    finished,
    progress_line,
    row_from_run,
    status_line,
)

ATTEMPTS = ".attempts"  # one line per attempt of a run: which worker, when


def _attempts(spec: SweepRun) -> int:
    path = Path(spec.runs_dir) / ATTEMPTS / f"{spec.run_id}.log"
    return len(path.read_text().splitlines()) if path.is_file() else 0


def _attempt(spec: SweepRun) -> tuple[int, str]:
    """Record one more attempt of this run: its number and the worker making it."""
    host = f"{socket.gethostname()}:{os.getpid()}"
    path = Path(spec.runs_dir) / ATTEMPTS / f"{spec.run_id}.log"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as f:
        f.write(f"{time.time():.0f} {host}\n")
    return _attempts(spec), host


def _command(spec: SweepRun) -> list[str]:
    exe = [sys.executable, "-m", "rlgpt"]
    if (spec.root / "params.yaml").is_file():  # an attempt before this one started it
        return [*exe, "resume", spec.run_id, "--runs-dir", spec.runs_dir, "--quiet"]
    cmd = [*exe, "run", "--task", spec.task, "--seed", str(spec.seed), "--run-id", spec.run_id,
           "--quiet"]  # fmt: skip
    if spec.root.exists():  # an attempt died before it wrote params.yaml: start it over
        cmd.append("--force")
    if spec.params_path:
        cmd += ["--params", spec.params_path]
    if spec.iterations:
        cmd += ["--iterations", str(spec.iterations)]
    for s in spec.sets:
        cmd += ["--set", s]
    # last, so that no --set of the user's moves the run out of the sweep's directory
    return [*cmd, "--set", f"run.runs_dir={spec.runs_dir}"]


# Dask's nanny starts each worker with these set (distributed.nanny.pre-spawn-environ), for
# the worker's own task threads. A run is a child process with its own thread settings, so it
# gets the sweep command's values (run_env), never the nanny's: MALLOC_TRIM_THRESHOLD_=65536
# (glibc hands memory back after every large free) made a run's training 27% slower here (682
# vs 936 samples/s), and kept a 2-worker sweep near 1.5x sequential (docs/scaling.md).
NANNY_ENV = ("MALLOC_TRIM_THRESHOLD_", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def run_env(worker: Mapping[str, str], sweep: Mapping[str, str]) -> dict[str, str]:
    """A run's environment: its worker's, less what Dask's nanny set there, plus `sweep` (the
    sweep's server and home, and its own values of NANNY_ENV)."""
    return {k: v for k, v in worker.items() if k not in NANNY_ENV} | dict(sweep)


@task(name="sweep-run", task_run_name="{spec.run_id}")
def sweep_run(spec: SweepRun, env: dict[str, str]) -> SweepRow:
    """One run of the grid, to the end; raises (and is retried) when it did not finish."""
    t0 = time.perf_counter()
    if finished(spec):  # a rerun of the sweep, or a retry after the run had finished
        return row_from_run(spec, max(1, _attempts(spec)), "", 0.0)
    attempts, host = _attempt(spec)
    log = Path(spec.runs_dir) / "logs" / f"{spec.run_id}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    cmd = _command(spec)
    get_run_logger().info("%s: attempt %d on %s: %s", spec.run_id, attempts, host, cmd[3])
    with log.open("a") as out:
        out.write(f"\n# attempt {attempts} on {host}: {' '.join(cmd)}\n")
        out.flush()
        proc = subprocess.run(  # it dies with this worker; no preexec_fn (flows/pdeathsig.py)
            pdeathsig.command(cmd), cwd=spec.project, env=run_env(os.environ, env),
            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True, check=False,
        )  # fmt: skip
    if finished(spec):
        return row_from_run(spec, attempts, host, time.perf_counter() - t0)
    last = [ln for ln in log.read_text().splitlines() if ln.startswith("rlgpt:")][-1:]
    raise RuntimeError(f"{spec.run_id}: exit {proc.returncode}: {' '.join(last)[:300]} ({log})")


def _failed_row(spec: SweepRun, exc: BaseException) -> SweepRow:
    return SweepRow(task=spec.task, seed=spec.seed, run_id=spec.run_id, status="failed",
                    attempts=_attempts(spec), error=str(exc)[:300])  # fmt: skip


HEARTBEAT_S = float(os.environ.get("RLGPT_SWEEP_HEARTBEAT_S", "60"))


def _heartbeat(
    specs: list[SweepRun], done: dict[str, SweepRow], t0: float, stop: threading.Event
) -> None:
    """Every HEARTBEAT_S: what the runs under way are doing (long runs finish rarely)."""
    while not stop.wait(HEARTBEAT_S):
        try:
            finished_ids = set(done)
        except RuntimeError:  # a run finished during the copy: next beat
            continue
        print(status_line(specs, finished_ids, time.perf_counter() - t0), flush=True)


def _collect(
    futures: dict[Any, SweepRun], done: dict[str, SweepRow], total: int, t0: float, logger: Any
) -> None:
    """Each run's row as it finishes (a run lost after every retry is a failed row)."""
    for fut in as_completed(list(futures)):
        spec = futures[fut]
        try:
            row = fut.result()
        except Exception as exc:  # noqa: BLE001 - a lost run is a row, never a lost sweep
            row = _failed_row(spec, exc)
        done[spec.run_id] = row
        line = progress_line(len(done), total, time.perf_counter() - t0, row)
        print(line, flush=True)
        logger.info(line)


@flow(name="rlgpt-sweep", flow_run_name="{sweep_id}", validate_parameters=False)
def rlgpt_sweep(
    sweep_id: str, specs: list[SweepRun], env: dict[str, str], retries: int
) -> list[SweepRow]:
    """Submit every run at once; the task runner decides how many run together. A run that
    fails all its retries is a row marked failed: the others still finish."""
    logger = get_run_logger()
    logger.info("sweep %s: %d run(s)", sweep_id, len(specs))
    t0 = time.perf_counter()
    runner = sweep_run.with_options(retries=retries, retry_delay_seconds=1)
    futures = {runner.submit(spec, env): spec for spec in specs}
    done: dict[str, SweepRow] = {}
    stop = threading.Event()
    threading.Thread(target=_heartbeat, args=(specs, done, t0, stop), daemon=True).start()
    try:
        _collect(futures, done, len(specs), t0, logger)
    finally:
        stop.set()
    rows = [done[s.run_id] for s in specs]
    table = [r.model_dump(include={"task", "seed", "final_success_rate", "samples", "wall_s",
                                   "attempts", "status"}) for r in rows]  # fmt: skip
    create_table_artifact(
        table, key=f"sweep-{sweep_id.lower()}"[:100], description=f"rlgpt sweep {sweep_id}"
    )
    return rows
