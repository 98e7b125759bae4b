"""Start a command that dies with the process that started it, even when that one is SIGKILLed:
`python -I -S -B pdeathsig.py PARENT_PID CMD...` sets Linux's PR_SET_PDEATHSIG (SIGKILL), then
becomes CMD (execvp: the same pid, environment, working directory and session).

This was Popen's `preexec_fn`: Python code run between fork and exec in the calling process,
which is multithreaded (Prefect, MLflow, torch's and JAX's thread pools) and can deadlock on a
lock another thread held at the fork; JAX warns at every such fork ("os.fork() was called ...
JAX is multithreaded"). Popen without `preexec_fn` runs no Python in the child, and calls no
at-fork handlers, so the prctl is made here, in a fresh single-threaded interpreter instead.
Standard library only, nothing of rlgpt: it runs from its file.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from pathlib import Path

PR_SET_PDEATHSIG = 1


def command(cmd: list[str]) -> list[str]:
    """`cmd`, to be killed when this process (the thread that starts it) ends; give it to Popen
    with `start_new_session=True` (its own session: a terminal's Ctrl-C reaches only us)."""
    here = str(Path(__file__).resolve())
    return [sys.executable, "-I", "-S", "-B", here, str(os.getpid()), *cmd]


def main() -> None:
    parent, cmd = int(sys.argv[1]), sys.argv[2:]
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # it ended before the prctl, which then never fires
        os.kill(os.getpid(), signal.SIGKILL)
    try:
        os.execvp(cmd[0], cmd)
    except OSError as exc:
        sys.stderr.write(f"rlgpt: cannot start {cmd[0]}: {exc}\n")
        os._exit(127)


if __name__ == "__main__":
    main()
