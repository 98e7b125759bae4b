"""Host side of the sandboxed worker: start it contained, talk JSON lines, kill on timeout."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import select
import signal
import subprocess
import tempfile
import time
from typing import Any

from rlgpt.errors import MacroError, UserError
from rlgpt.messages import CodedAction
from rlgpt.sandbox.boundary import CLEAN_ENV, bwrap_command, bwrap_works, degraded_command
from rlgpt.sandbox.limits import Limits
from rlgpt.sandbox.seccomp import filter_fd
from rlgpt.worlds.base import SkillPackage

__all__ = ["MacroError", "MacroWorker", "SandboxUnavailable", "bwrap_works"]

log = logging.getLogger(__name__)
MAX_REPLY_BYTES = 65_536
WORKER_ERRORS = frozenset({"exception", "api_misuse", "invalid_action", "crash"})


class SandboxUnavailable(UserError):
    """No isolation layer works here and degraded mode was not asked for (fail closed)."""


def _check_isolation(isolation: str) -> None:
    if isolation == "degraded":
        log.warning("sandbox in DEGRADED mode: rlimits and a clean environment only, no bwrap")
    elif not bwrap_works():
        raise SandboxUnavailable(
            "no sandbox: bubblewrap or libseccomp is missing, or cannot unshare here; install "
            "them (apt-get install bubblewrap libseccomp2) or set sandbox.isolation: degraded"
        )


class MacroWorker:
    """A long-lived worker process that runs the given coded actions.

    Generated code never runs in this (trusted) process and never sees its environment
    variables: the child runs inside the OS boundary (rlgpt/sandbox/boundary.py: bubblewrap
    over a minimal root, uid 65534, seccomp) with cgroup and rlimit limits
    (rlgpt/sandbox/limits.py). Each reply must arrive within `timeout_s` in all (and before
    `deadline`), or the whole process group is killed and MacroError raised. `gate=False`
    (tests of the OS layer alone) runs the code unchecked with the real builtins.
    """

    def __init__(
        self, coded: list[CodedAction], skills: SkillPackage, timeout_s: float = 5.0,
        memory_mib: int = 1024, isolation: str = "bwrap", cpu_s: int | None = None,
        deadline: float | None = None, gate: bool = True,
    ) -> None:  # fmt: skip
        self.timeout_s = timeout_s
        self.deadline = deadline  # time.monotonic() past which no wait may go
        _check_isolation(isolation)
        self.isolation = isolation
        self._scratch = tempfile.TemporaryDirectory(prefix="rlgpt-sandbox-")
        self._limits = Limits(memory_mib, cpu_s)
        req_r, self._req_w = os.pipe()
        self._rep_r, rep_w = os.pipe()
        fds = [req_r, rep_w]
        if isolation == "degraded":
            cmd, env = degraded_command(), dict(CLEAN_ENV, PATH="/usr/bin:/bin")
        else:
            fds.append(filter_fd())
            cmd, env = bwrap_command(fds[-1], skills.package), {}  # bwrap starts with no env
        try:
            self._proc = subprocess.Popen(
                [*cmd, str(req_r), str(rep_w)],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                cwd=self._scratch.name, env=env, pass_fds=tuple(fds),
                preexec_fn=self._limits.enter,  # noqa: PLW1509
            )  # fmt: skip
        finally:
            for fd in fds[2:]:
                os.close(fd)
        os.close(req_r)
        os.close(rep_w)
        self._buf = b""
        self._sent: dict[str, Any] = {}
        self._primitives = frozenset(skills.primitives)
        reply = self._call(
            {
                "op": "load",
                "api": skills.api,
                "view": skills.view,
                "primitives": list(skills.primitives),
                "actions": {c.name: c.source for c in coded},
                "gate": gate,
            },
            timeout_s=max(timeout_s, 30.0),
        )
        errors = reply.get("errors", {})
        if not isinstance(errors, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in errors.items()
        ):
            raise self._fail("crash", "forged load reply (protocol broken)")
        self.load_errors: dict[str, str] = {k: v[:300] for k, v in errors.items()}

    def _fail(self, kind: str, message: str) -> MacroError:
        self.close()
        return MacroError(kind, message)

    def _call(self, msg: dict[str, Any], timeout_s: float | None = None) -> dict[str, Any]:
        """Send one request; the reply object. The wait has one total deadline (a worker that
        drips bytes is cut off like a silent one), never longer than `self.deadline`, and any
        trouble with the reply's bytes is a MacroError, never another exception."""
        try:
            os.write(self._req_w, (json.dumps(msg) + "\n").encode())
        except OSError:
            raise self._fail("crash", "the sandboxed worker died") from None
        limit = timeout_s if timeout_s is not None else self.timeout_s
        end = time.monotonic() + limit
        if self.deadline is not None:
            end = min(end, self.deadline)
        while b"\n" not in self._buf:
            left = end - time.monotonic()
            ready = select.select([self._rep_r], [], [], left)[0] if left > 0 else []
            if not ready:
                raise self._fail("timeout", f"no complete answer within {limit:.1f}s (killed)")
            chunk = os.read(self._rep_r, 65_536)
            if not chunk:
                code = self._proc.poll()
                raise self._fail("crash", f"the sandboxed worker exited (code {code})")
            self._buf += chunk
            if len(self._buf) > MAX_REPLY_BYTES:
                raise self._fail("crash", "reply larger than the cap (protocol broken)")
        line, _, self._buf = self._buf.partition(b"\n")
        try:
            reply = json.loads(line)
        except Exception as exc:  # noqa: BLE001 - ValueError, RecursionError, MemoryError, ...
            raise self._fail("crash", f"unparsable reply: {type(exc).__name__}") from None
        if not isinstance(reply, dict):
            raise self._fail("crash", "reply is not an object (protocol broken)")
        return reply

    def _advance(self, msg: dict[str, Any]) -> str | None:
        reply = self._call(msg)
        if "error" in reply:
            kind, message = reply["error"], reply.get("message", "")
            if not isinstance(kind, str) or kind not in WORKER_ERRORS:
                raise self._fail("crash", "forged error kind (protocol broken)")
            text = message if isinstance(message, str) else "(no message)"
            raise MacroError(kind, text[:300])
        if reply.get("done") is True:
            return None
        action = reply.get("action")
        if not isinstance(action, str) or action not in self._primitives:
            raise MacroError("invalid_action", f"unknown action {repr(action)[:40]}")
        return action

    def _delta(self, state: dict[str, Any]) -> dict[str, Any]:
        """Leave out what the worker's view already holds (inventory, achievements, facing)."""
        out: dict[str, Any] = {
            k: state[k] for k in ("local", "pos", "daylight", "memory", "area") if k in state
        }
        for key in ("inventory", "achievements", "facing"):
            if key in state and self._sent.get(key) != state[key]:
                out[key] = self._sent[key] = state[key]
        return out

    def start(self, name: str, state: dict[str, Any]) -> str | None:
        """Start coded action `name`; its first primitive action, or None if it finished."""
        return self._advance({"op": "start", "name": name, "state": self._delta(state)})

    def next(self, state: dict[str, Any]) -> str | None:
        """The next primitive action of the running coded action, or None when done."""
        return self._advance({"op": "next", "state": self._delta(state)})

    def stop(self) -> None:
        """Close the running coded action (its `finally` runs now, under the time limit)."""
        self._advance({"op": "stop"})

    @property
    def alive(self) -> bool:
        return self._proc.poll() is None

    def close(self) -> None:
        """Kill the worker's whole process group and release the pipes."""
        if self._proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self._proc.pid, signal.SIGKILL)
        self._proc.wait()
        for fd in (self._req_w, self._rep_r):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._req_w = self._rep_r = -1
        self._limits.close()
        self._scratch.cleanup()

    def __del__(self) -> None:
        if getattr(self, "_req_w", -1) != -1:
            with contextlib.suppress(Exception):  # interpreter shutdown
                self.close()
