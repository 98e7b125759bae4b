"""Host side of the sandboxed worker: start it contained, talk JSON lines, kill on timeout."""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from rlgpt.envs.preconditions import item_sources
from rlgpt.envs.recipes import achievements, actions, game_data, semantic_names
from rlgpt.errors import MacroError, UserError
from rlgpt.messages import CodedAction

__all__ = ["MacroError", "MacroWorker", "SandboxUnavailable", "bwrap_works", "launch_prefix"]

log = logging.getLogger(__name__)
MAX_REPLY_BYTES = 65_536
WORKER_ERRORS = frozenset({"exception", "api_misuse", "invalid_action", "crash"})
_CLEAN_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0"}


def _limits(memory_mib: int, cpu_s: int | None) -> None:  # runs in the child before exec
    os.setsid()
    resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
    resource.setrlimit(resource.RLIMIT_AS, (memory_mib << 20, memory_mib << 20))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if cpu_s is not None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))


class SandboxUnavailable(UserError):
    """No isolation layer works here and degraded mode was not asked for (fail closed)."""


def _bwrap_args() -> list[str]:
    """bubblewrap: every namespace unshared (no network), the filesystem read-only, homes, /tmp
    and the project directory hidden except the Python and rlgpt code it needs, uid nobody
    inside a user namespace, all capabilities dropped, an empty environment."""
    code = Path(__file__).resolve().parents[1]  # the rlgpt package
    keep = sorted({str(Path(p).resolve()) for p in (sys.base_prefix, sys.prefix)} | {str(code)})
    hide = ["/root", "/home", "/tmp", str(code.parent)]
    args = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", "/", "/"]
    for path in hide:
        args += ["--tmpfs", path]
    for path in keep:
        args += ["--ro-bind", path, path]
    args += ["--dev", "/dev", "--tmpfs", "/dev/shm", "--proc", "/proc"]
    args += ["--uid", "65534", "--gid", "65534"]
    return [*args, "--cap-drop", "ALL", "--clearenv", "--chdir", "/tmp"]


@functools.cache
def bwrap_works() -> bool:
    """Probe once: can bubblewrap start a fully unshared, unprivileged process here?"""
    if shutil.which("bwrap") is None:
        return False
    try:
        probe = subprocess.run(
            [*_bwrap_args(), sys.executable, "-I", "-c", "import rlgpt.sandbox.worker"],
            env={}, capture_output=True, timeout=30,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0


def launch_prefix(isolation: str) -> list[str]:
    """The command prefix for the worker: bubblewrap, or nothing in explicit degraded mode."""
    if isolation == "degraded":
        log.warning("sandbox in DEGRADED mode: rlimits and a clean environment only, no bwrap")
        return []
    if not bwrap_works():
        raise SandboxUnavailable(
            "no sandbox: bubblewrap is missing or cannot unshare here; install it "
            "(apt-get install bubblewrap) or set sandbox.isolation: degraded"
        )
    env_args = [a for k, v in _CLEAN_ENV.items() for a in ("--setenv", k, v)]
    return [*_bwrap_args(), *env_args]


class MacroWorker:
    """A long-lived worker process that runs the given coded actions.

    Generated code never runs in this (trusted) process and never sees its environment
    variables: the child gets a clean environment, a scratch cwd and rlimits. Each reply must
    arrive within `timeout_s`, or the whole process group is killed and MacroError raised.
    """

    def __init__(
        self, coded: list[CodedAction], timeout_s: float = 5.0, memory_mib: int = 1024,
        isolation: str = "bwrap", cpu_s: int | None = None,
    ) -> None:  # fmt: skip
        self.timeout_s = timeout_s
        prefix = launch_prefix(isolation)
        self.isolation = "bwrap" if prefix else "degraded"
        self._scratch = tempfile.TemporaryDirectory(prefix="rlgpt-sandbox-")
        req_r, self._req_w = os.pipe()
        self._rep_r, rep_w = os.pipe()
        cmd = [sys.executable, "-I", "-m", "rlgpt.sandbox.worker", str(req_r), str(rep_w)]
        self._proc = subprocess.Popen(
            [*prefix, *cmd],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=self._scratch.name,
            env={} if prefix else _CLEAN_ENV,  # bwrap itself starts with an empty environment
            pass_fds=(req_r, rep_w),
            preexec_fn=lambda: _limits(memory_mib, cpu_s),  # noqa: PLW1509
        )
        os.close(req_r)
        os.close(rep_w)
        self._buf = b""
        self._sent: dict[str, Any] = {}
        self._primitives = frozenset(actions())
        reply = self._call(
            {
                "op": "load",
                "names": list(semantic_names()),
                "items": list(game_data()["items"]),
                "achievements": achievements(),
                "item_sources": item_sources(),
                "primitives": actions(),
                "actions": {c.name: c.source for c in coded},
            },
            timeout_s=max(timeout_s, 30.0),
        )
        self.load_errors: dict[str, str] = dict(reply.get("errors", {}))

    def _call(self, msg: dict[str, Any], timeout_s: float | None = None) -> dict[str, Any]:
        try:
            os.write(self._req_w, (json.dumps(msg) + "\n").encode())
        except (BrokenPipeError, OSError):
            self.close()
            raise MacroError("crash", "the sandboxed worker died") from None
        deadline = timeout_s if timeout_s is not None else self.timeout_s
        while b"\n" not in self._buf:
            ready, _, _ = select.select([self._rep_r], [], [], deadline)
            if not ready:
                self.close()
                raise MacroError("timeout", f"no answer within {deadline:.1f}s (killed)")
            chunk = os.read(self._rep_r, 65_536)
            if not chunk:
                code = self._proc.poll()
                self.close()
                raise MacroError("crash", f"the sandboxed worker exited (code {code})")
            self._buf += chunk
            if len(self._buf) > MAX_REPLY_BYTES:
                self.close()
                raise MacroError("crash", "reply larger than the cap (protocol broken)")
        line, _, self._buf = self._buf.partition(b"\n")
        try:
            reply = json.loads(line)
        except ValueError:
            self.close()
            raise MacroError("crash", "unparsable reply (protocol broken)") from None
        if not isinstance(reply, dict):
            self.close()
            raise MacroError("crash", "reply is not an object (protocol broken)")
        return reply

    def _advance(self, msg: dict[str, Any]) -> str | None:
        reply = self._call(msg)
        if "error" in reply:
            kind = str(reply["error"])
            kind = kind if kind in WORKER_ERRORS else "crash"  # never trust a forged kind
            raise MacroError(kind, str(reply.get("message", ""))[:300])
        if reply.get("done"):
            return None
        action = reply.get("action")
        if action not in self._primitives:
            raise MacroError("invalid_action", f"unknown action {str(action)[:40]!r}")
        return str(action)

    def _delta(self, state: dict[str, Any]) -> dict[str, Any]:
        """Leave out what the worker's view already holds (inventory, achievements, facing)."""
        out = {"local": state["local"]}
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
        self._scratch.cleanup()

    def __del__(self) -> None:
        if getattr(self, "_req_w", -1) != -1:
            with contextlib.suppress(Exception):  # interpreter shutdown
                self.close()
