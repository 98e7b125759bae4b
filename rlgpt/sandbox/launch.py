"""Start a sandboxed worker under its limits, then become it: `python -I -S -B launch.py PLAN
CMD...` joins the cgroups PLAN names, starts a new session, sets its rlimits and execs CMD
(bubblewrap, or the degraded worker) with exactly PLAN's environment (this interpreter's own,
locale coercion included, never reaches it).

This runs as its own single-threaded process rather than as Popen's `preexec_fn`: code run
between fork and exec in the trusted process (torch's OpenMP threads, JAX's thread pools)
can deadlock on a lock another thread held at the fork, and JAX warns at every such fork.
Standard library only, and nothing of rlgpt: it runs from its file, before anything else.
"""

from __future__ import annotations

import json
import os
import resource
import sys
from typing import Any


def apply(plan: dict[str, Any]) -> None:
    """Join the cgroups (by writing this pid to each `cgroup.procs`), then set the rlimits
    ([name, soft, hard] each, names of the `resource` module)."""
    os.setsid()
    for path in plan["cgroups"]:
        with open(os.path.join(str(path), "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))
    for name, soft, hard in plan["rlimits"]:
        resource.setrlimit(getattr(resource, str(name)), (int(soft), int(hard)))


def main() -> None:
    plan, cmd = json.loads(sys.argv[1]), sys.argv[2:]
    try:
        apply(plan)
        os.execve(cmd[0], cmd, plan.get("env", {}))
    except OSError as exc:  # the host sees the worker exit before it answers: a crash
        sys.stderr.write(f"rlgpt sandbox launch: {exc}\n")
        os._exit(126)


if __name__ == "__main__":
    main()
