"""Fault injection for crash and failure tests, at named points of the pipeline.

RLGPT_FAULT="<point>" SIGKILLs this process at that point; RLGPT_FAULT="enospc:<point>" makes
the write there fail as on a full disk; RLGPT_FAULT="raise:<point>" raises a RuntimeError there.
Points: "<stage>:<iteration>" (a stage body starts), "train_mid" (a training checkpoint was
written), "learn_mid" (a learned action's training checkpoint was written), "write_summary"
(summary.json is about to be written), "end_parent" (summary.json is written and the MLflow
parent run is about to be closed).
"""

from __future__ import annotations

import errno
import os
import signal

FAULT_ENV = "RLGPT_FAULT"


def maybe_crash(point: str) -> None:
    """SIGKILL this process at `point`, or fail there, if a test asked for it."""
    fault = os.environ.get(FAULT_ENV, "")
    if fault == point:
        os.kill(os.getpid(), signal.SIGKILL)
    elif fault == f"enospc:{point}":
        raise OSError(errno.ENOSPC, "No space left on device (injected)")
    elif fault == f"raise:{point}":
        raise RuntimeError(f"injected failure at {point}")
