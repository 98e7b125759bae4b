"""The Prefect task runner the fan-out points submit to (params.yaml `scale`, docs/scaling.md):
prefect-dask's DaskTaskRunner on a LocalCluster or an existing scheduler, or one task at a
time."""

from __future__ import annotations

import os
from typing import Any

from prefect.task_runners import TaskRunner, ThreadPoolTaskRunner

from rlgpt.config import ScaleParams


def task_runner(scale: ScaleParams) -> TaskRunner[Any]:
    if scale.runner == "sequential":
        return ThreadPoolTaskRunner(max_workers=1)
    # distributed configures its loggers on import: INFO lines on every start; errors only
    os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "error")
    from prefect_dask import DaskTaskRunner

    if scale.address:
        return DaskTaskRunner(address=scale.address)
    return DaskTaskRunner(cluster_kwargs={
        "n_workers": scale.workers, "threads_per_worker": scale.threads_per_worker,
        "processes": True,  # a run is CPU-bound Python: one process per worker, no shared GIL
        "dashboard_address": ":0",  # a free port: sweeps at once do not collide
    })  # fmt: skip


def describe(scale: ScaleParams) -> str:
    if scale.runner == "sequential":
        return "sequential"
    if scale.address:
        return f"dask ({scale.address})"
    return (f"dask (LocalCluster, {scale.workers} worker(s) x {scale.threads_per_worker} "
            "thread(s))")  # fmt: skip


def run_task_runner(scale: ScaleParams) -> TaskRunner[Any]:
    """Where a run's own fan-out (the candidates' validations) goes: the Dask scheduler at
    `address` when there is one; else threads in the run's process, `workers` at once (each
    validation's work is in its own sandboxed process: a thread only waits for it, and a
    cluster per run would cost more to start than it saves)."""
    if scale.runner == "dask" and scale.address:
        from prefect_dask import DaskTaskRunner

        return DaskTaskRunner(address=scale.address)
    return ThreadPoolTaskRunner(max_workers=scale.workers)
