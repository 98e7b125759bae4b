"""The task runner a sweep fans out to (tasks/runners.py)."""

from __future__ import annotations

import dask
import distributed  # noqa: F401 - its config keys exist once it is imported
import pytest

from rlgpt.config import ScaleParams
from tasks.runners import QUIET_DASK, task_runner


@pytest.fixture
def dask_config():
    before = {k: dask.config.get(k) for k in QUIET_DASK}
    yield
    dask.config.set(before)


def test_the_sweeps_own_cluster_keeps_dask_housekeeping_quiet(dask_config):
    """A sweep's task is a whole run: Dask's per-task profiling and 20 ms ticks only take CPU
    from the runs beside them, so the LocalCluster a sweep starts turns them down."""
    dask.config.set({"distributed.worker.profile.enabled": True,
                     "distributed.admin.tick.interval": "20ms"})  # fmt: skip
    task_runner(ScaleParams(runner="sequential"))
    assert dask.config.get("distributed.worker.profile.enabled") is True  # no cluster, no change
    runner = task_runner(ScaleParams(runner="dask", workers=2))
    assert type(runner).__name__ == "DaskTaskRunner"
    assert dask.config.get("distributed.worker.profile.enabled") is False
    assert dask.config.get("distributed.admin.tick.interval") == "1s"
    assert dask.config.get("distributed.worker.memory.monitor-interval") == "1s"
