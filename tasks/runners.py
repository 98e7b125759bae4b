"""The Prefect task runner the fan-out points submit to (params.yaml `scale`, docs/scaling.md):
prefect-dask's DaskTaskRunner on a LocalCluster or an existing scheduler, or one task at a
time."""

from __future__ import annotations

import os
import socket
from typing import TYPE_CHECKING, Any

from rlgpt.config import ScaleParams
from rlgpt.errors import UserError

if TYPE_CHECKING:  # prefect reads PREFECT_API_URL on import: not before the server is known
    from prefect.task_runners import TaskRunner


def reachable(address: str, timeout_s: float = 10.0) -> str:
    """The scheduler address, once something answers there; else one line saying what to fix."""
    hostport = address.split("://", 1)[-1].rstrip("/")
    host, _, port = hostport.rpartition(":")
    try:
        socket.create_connection((host or "127.0.0.1", int(port)), timeout=timeout_s).close()
    except (OSError, ValueError):
        raise UserError(
            f"scale.address {address!r}: no Dask scheduler answers there; start one "
            "(`dask scheduler`) or give its tcp://HOST:PORT"
        ) from None
    return address


# A sweep's task is a whole run (minutes), in a child process of its worker: Dask's fine-grained
# housekeeping only takes CPU from the runs on the same cores. Its defaults wake every worker
# 100 times a second to sample stacks (profile), every process 50 times a second to time its
# event loop (tick), and poll memory and system use 10 and 2 times a second. Slowed here, for the
# LocalCluster a sweep starts (its nannies hand the config to their workers); docs/scaling.md.
QUIET_DASK = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "1s",
}


def task_runner(scale: ScaleParams) -> TaskRunner[Any]:
    from prefect.task_runners import ThreadPoolTaskRunner

    if scale.runner == "sequential":
        return ThreadPoolTaskRunner(max_workers=1)
    # distributed configures its loggers on import: INFO lines on every start; errors only
    os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "error")
    import dask
    from prefect_dask import DaskTaskRunner

    if scale.address:
        return DaskTaskRunner(address=reachable(scale.address))
    dask.config.set(QUIET_DASK)  # for the rest of this process: the sweep's own cluster
    return DaskTaskRunner(
        cluster_kwargs={
            "n_workers": scale.workers,
            "threads_per_worker": scale.threads_per_worker,
            "processes": True,  # a worker that dies takes only its own runs with it
            "dashboard_address": ":0",  # a free port: sweeps at once do not collide
        }
    )


def describe(scale: ScaleParams) -> str:
    if scale.runner == "sequential":
        return "sequential"
    if scale.address:
        return f"dask ({scale.address})"
    return f"dask (LocalCluster, {scale.workers} worker(s) x {scale.threads_per_worker} thread(s))"


def run_task_runner(scale: ScaleParams) -> TaskRunner[Any]:
    """Where a run's own fan-out (the candidates' validations) goes: the Dask scheduler at
    `address` when there is one; else threads in the run's process, `workers` at once (each
    validation's work is in its own sandboxed process: a thread only waits for it, and a
    cluster per run would cost more to start than it saves)."""
    from prefect.task_runners import ThreadPoolTaskRunner

    if scale.runner == "dask" and scale.address:
        from prefect_dask import DaskTaskRunner

        return DaskTaskRunner(address=reachable(scale.address))
    return ThreadPoolTaskRunner(max_workers=scale.workers)
