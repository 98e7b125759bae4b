"""Training slots: at most N trainings of this user learn at once on this machine (params.yaml
scale.training_slots; docs/scaling.md). More trainings than cores do not add throughput: each
slows the others (measured: 4 at once on 2 cores give 0.87x of 2 at once). A training that finds
every slot taken waits, and says so once; a slot is an flock on a file in the temp directory,
so a process that dies frees its slot."""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path


def slot_dir() -> Path:
    return Path(tempfile.gettempdir()) / f"rlgpt-training-slots-{os.getuid()}"


def slots_for(setting: int | None) -> int:
    """The number of slots: None means one per core, 0 means no limit."""
    return (os.cpu_count() or 1) if setting is None else setting


@contextlib.contextmanager
def training_slot(
    setting: int | None, say: Callable[[str], None], poll_s: float = 0.5
) -> Iterator[int | None]:
    """Hold one slot for the body (its index), waiting for one if all are taken; None: no
    limit."""
    n = slots_for(setting)
    if n <= 0:
        yield None
        return
    root = slot_dir()
    root.mkdir(parents=True, exist_ok=True)
    waited = False
    while True:
        for i in range(n):
            f = (root / f"slot-{i}.lock").open("a+")
            try:
                fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                f.close()
                continue
            try:
                yield i
            finally:
                f.close()  # closing the file releases the lock
            return
        if not waited:
            say(
                f"all {n} training slots of this machine are taken (scale.training_slots); "
                "waiting for one"
            )
            waited = True
        time.sleep(poll_s)
