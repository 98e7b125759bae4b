"""Validate the offline author's collect_wood once with `sandbox.timeout_s` from argv (and,
given a second argument, pinned to that CPU, with its worker); print the verdict and the wall
time as one JSON line."""

from __future__ import annotations

import json
import os
import sys
import time

from rlgpt.config import SandboxParams
from rlgpt.validation.validate import validate_action
from rlgpt.worlds.crafter.author import write_action

if __name__ == "__main__":
    if len(sys.argv) > 2:
        os.sched_setaffinity(0, {int(sys.argv[2])})
    t0 = time.monotonic()
    verdict = validate_action(
        write_action("collect_wood", 80), sandbox=SandboxParams(timeout_s=float(sys.argv[1]))
    )
    print(json.dumps({"ok": verdict.ok, "message": verdict.message,
                      "wall": time.monotonic() - t0}))  # fmt: skip
