"""Host side of the sandboxed worker: start it contained, talk to it over pipes (requests as
marshal frames, replies as JSON lines: rlgpt/sandbox/wire.py) with a total deadline on every
write and read, kill it on a timeout or when it costs more CPU than it may."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rlgpt.errors import MacroError
from rlgpt.messages import CodedAction
from rlgpt.sandbox.boundary import (
    CLEAN_ENV,
    SandboxUnavailable,
    bwrap_command,
    bwrap_works,
    check_isolation,
    degraded_command,
)
from rlgpt.sandbox.limits import Limits
from rlgpt.sandbox.package import SkillPackage
from rlgpt.sandbox.patience import Patience
from rlgpt.sandbox.pipes import (
    PipeClosed,
    PipeTimeout,
    Waits,
    drive,
    nonblocking,
    read_line,
    write_all,
)
from rlgpt.sandbox.plans import BadPlan
from rlgpt.sandbox.seccomp import filter_fd
from rlgpt.sandbox.stepping import PlanStepper
from rlgpt.sandbox.wire import Replies, request, state_delta
from rlgpt.textsafe import printable

__all__ = [
    "MacroError",
    "MacroWorker",
    "SandboxUnavailable",
    "bwrap_works",
    "check_isolation",
    "state_delta",
]

MAX_REPLY_BYTES = 65_536
WORKER_ERRORS = frozenset({"exception", "api_misuse", "invalid_action", "crash"})
LAUNCHER = Path(__file__).with_name("launch.py")  # limits applied before exec, not in a fork
IDLE_CPU_NS = 100_000_000  # CPU a worker may use between calls, when it should be blocked
CPUS = os.cpu_count() or 1024  # what a worker's processes may run on at once, at most
# CPU a worker may spend at once beyond its per-step allowance (a first call's set-up, a rare
# long search), judged from its first step: past it, the steps since it last kept within its
# allowance cost too much, and it is killed
BURST_CPU_NS = 400_000_000


def _text(value: Any) -> str:
    """Text from the worker as rlgpt keeps it: one escaped line of at most 300 characters."""
    return printable(value, 300) if isinstance(value, str) else "(no message)"


class MacroWorker:
    """A long-lived worker process that runs the given coded actions.

    Generated code never runs in this (trusted) process and never sees its environment
    variables: the child runs inside the OS boundary (rlgpt/sandbox/boundary.py: bubblewrap
    over a minimal root, uid 65534, seccomp) with cgroup and rlimit limits
    (rlgpt/sandbox/limits.py). Each request must be taken and its reply arrive within
    `timeout_s` (before `deadline`), or, unless the worker was starved rather than spinning or
    asleep (rlgpt/sandbox/patience.py), the whole process group is killed and MacroError
    raised. Where its CPU is measured (its cgroup, else its process tree: rlgpt/sandbox/
    limits.py), a worker that uses CPU between calls (a process it left running) or more than
    `step_cpu_ms` per step, from its first step on and beyond a one-off BURST_CPU_NS, is
    killed with a MacroError of kind "cpu" (a plan's steps count as steps). `gate=False`
    (tests of the OS layer alone) runs the code unchecked with the real builtins.

    A coded action may answer with a plan of several steps (rlgpt/sandbox/plans.py): `next`
    then hands out its steps without a round trip while each meets its expectation
    (rlgpt/sandbox/stepping.py). `round_trips` counts the calls (start, next, stop) and
    `planned` the steps handed out without one. A call the runtime cut short right after the
    step that raised its plan's `ends` needs no stop (`ended`): its code is closed at the next
    start, as after any call a plan ended.
    """

    def __init__(
        self, coded: list[CodedAction], skills: SkillPackage, timeout_s: float = 5.0,
        memory_mib: int = 1024, isolation: str = "bwrap", cpu_s: int | None = None,
        *, deadline: float | None = None, gate: bool = True, run_memory_mib: int = 0,
        step_cpu_ms: float | None = None, loaded: bool = True,
        step_cpu_why: str = "sandbox.step_cpu_ms",
    ) -> None:  # fmt: skip
        self.timeout_s = timeout_s
        self.deadline = deadline  # time.monotonic() past which no wait may go
        check_isolation(isolation)
        self.isolation = isolation
        self.step_cpu_ms = step_cpu_ms
        self.step_cpu_why = step_cpu_why
        self.steps = 0
        self._over = [0, 0, 0]  # CPU beyond the allowance (ns), and the steps and CPU since 0
        self.cpu_ns = 0  # CPU of its calls so far (0 where not measured)
        self.reply_s = 0.0  # wall time from each request (but the load) to its reply
        self.round_trips = 0  # start, next and stop calls
        self._plans = PlanStepper(skills)
        self._ended: list[dict[str, Any]] | None = None  # a plan ended the last call: its
        # states, for the view of its code, which waits to be closed (the last is sent)
        self._scratch = tempfile.TemporaryDirectory(prefix="rlgpt-sandbox-")
        self._limits = Limits(memory_mib, cpu_s, run_memory_mib)
        req_r, self._req_w = os.pipe()
        self._rep_r, rep_w = os.pipe()
        nonblocking(self._req_w)  # a worker that stops reading cannot hold a write
        nonblocking(self._rep_r)  # a reply already there is read without a poll first
        fds = [req_r, rep_w]
        if isolation == "degraded":
            cmd, env = degraded_command(), dict(CLEAN_ENV, PATH="/usr/bin:/bin")
        else:
            fds.append(filter_fd())
            cmd, env = bwrap_command(fds[-1], skills.package), {}  # bwrap starts with no env
        exe = shutil.which(cmd[0]) or cmd[0]  # the launcher execs it with no PATH to search
        plan = json.dumps({**self._limits.plan(), "env": env})
        launch = [sys.executable, "-I", "-S", "-B", str(LAUNCHER), plan]
        try:
            self._proc = subprocess.Popen(
                [*launch, exe, *cmd[1:], str(req_r), str(rep_w)],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                cwd=self._scratch.name, env=env, pass_fds=tuple(fds),
            )  # fmt: skip
        finally:
            for fd in fds[2:]:
                os.close(fd)
        self._limits.root = self._proc.pid
        os.close(req_r)
        os.close(rep_w)
        self._buf = bytearray()
        self._cpu_mark: int | None = None  # CPU at its last reply (None: none yet, not measured)
        self._mark_t = 0.0  # time.monotonic() when `_cpu_mark` was read
        self._sent: dict[str, Any] = {}  # what the worker's view holds of sent_when_changed
        self._kept = skills.sent_when_changed
        self._primitives = frozenset(skills.primitives)
        self._replies = Replies(self._primitives)
        self.load_errors: dict[str, str] = {}
        self._load = {"op": "load", "api": skills.api, "view": skills.view,
                      "primitives": list(skills.primitives),
                      "actions": {c.name: c.source for c in coded}, "gate": gate}  # fmt: skip
        if loaded:
            drive(self.load_waits())

    def load_waits(self) -> Waits[None]:
        """The worker's first request: load the coded actions (their errors: `load_errors`).
        The constructor runs it unless `loaded=False`: then the caller does, e.g. the loads of
        many workers in turns (rlgpt/sandbox/pool.py), so that they start up on every core at
        once rather than one after another."""
        reply = yield from self._call_waits(self._load, timeout_s=max(self.timeout_s, 30.0))
        errors = reply.get("errors", {})
        if not isinstance(errors, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in errors.items()
        ):
            raise self._fail("crash", "forged load reply (protocol broken)")
        self.load_errors = {k: _text(v) for k, v in errors.items()}

    def _fail(self, kind: str, message: str) -> MacroError:
        self.close()
        return MacroError(kind, message)

    def _call(self, msg: dict[str, Any], timeout_s: float | None = None) -> dict[str, Any]:
        return drive(self._call_waits(msg, timeout_s))

    def _call_waits(
        self, msg: dict[str, Any], timeout_s: float | None = None
    ) -> Waits[dict[str, Any]]:
        """Send one request; the reply object. Once the request is written, yields the reply
        pipe's descriptor: the caller may step other envs until it is readable, then resumes
        this (rlgpt/rl/interleave.py). Writing the request and reading the reply share one
        total deadline (a worker that stops reading, or drips bytes, is cut off like a
        silent one), never later than `self.deadline`; when it passes, what the worker did
        decides (rlgpt/sandbox/patience.py): a loop that burned the limit in CPU or a worker
        asleep or blocked is killed, a starved one is waited for. A reply that came in time
        is taken however late the caller comes back for it. Any trouble with the reply's
        bytes is a MacroError, never another exception."""
        if msg["op"] != "load":  # starting up costs CPU; after that, between calls, none
            self.check_idle()
            self.round_trips += 1
        limit = timeout_s if timeout_s is not None else self.timeout_s
        start = time.monotonic()
        end = start + limit if self.deadline is None else min(start + limit, self.deadline)
        pending = bytearray(request(msg))
        patience: Patience | None = None  # made at the first expiry only: none on the fast path
        handed = False
        while True:
            try:
                write_all(self._req_w, pending, end)
                if not handed:
                    handed = True
                    yield self._rep_r
                line = read_line(self._rep_r, self._buf, end, MAX_REPLY_BYTES)
                break
            except PipeTimeout:
                if patience is None:
                    patience = Patience(start, limit, self.deadline, self._call_cpu_s,
                                        self._limits.pids, self._limits.throttled_ns)  # fmt: skip
                later, why = patience.after(time.monotonic())
                if later is None:
                    raise self._fail("timeout", why) from None
                end = later
            except PipeClosed:
                code = self._proc.poll()
                raise self._fail("crash", f"the sandboxed worker exited (code {code})") from None
            except ValueError:
                raise self._fail("crash", "reply larger than the cap (protocol broken)") from None
            except OSError:
                raise self._fail("crash", "the sandboxed worker died") from None
        if msg["op"] != "load":
            self.reply_s += time.monotonic() - start
        self._count_cpu(msg["op"])
        try:
            reply = self._replies.parse(line)
        except Exception as exc:  # noqa: BLE001 - ValueError, RecursionError, MemoryError, ...
            raise self._fail("crash", f"unparsable reply: {type(exc).__name__}") from None
        if not isinstance(reply, dict):
            raise self._fail("crash", "reply is not an object (protocol broken)")
        return reply

    def _call_cpu_s(self) -> float | None:
        """CPU the worker used since its last reply, or since it started (None: not measured)."""
        now = self._limits.cpu_ns()
        return None if now is None else (now - (self._cpu_mark or 0)) / 1e9

    def pids(self) -> list[int]:
        """The worker's processes (its cgroup's; else the one the host started)."""
        return self._limits.pids() or [self._proc.pid]

    def check_idle(self) -> None:
        """Kill the worker if it used CPU since its last reply, when it should be blocked
        reading its next request (a process it left running). Its counter is read only when
        enough time passed for IDLE_CPU_NS to be used on every CPU of the machine: before that
        it cannot have been, and what it used is charged to the call's steps instead."""
        if (time.monotonic() - self._mark_t) * 1e9 * CPUS <= IDLE_CPU_NS:
            return
        now = self._limits.cpu_ns()
        if now is None or self._cpu_mark is None:
            return
        if now - self._cpu_mark > IDLE_CPU_NS:
            spent = (now - self._cpu_mark) / 1e9
            raise self._fail(
                "cpu",
                f"used {spent:.2f} s of CPU between calls, when it should "
                "be idle (a process left running?); killed",
            )
        self._cpu_mark, self._mark_t = now, time.monotonic()

    def _count_cpu(self, op: str) -> None:
        """Charge the call's CPU to its steps (a stop's, its `finally`, too; not the load's).
        From the worker's first step, CPU beyond `step_cpu_ms` a step accrues (and cheaper
        steps pay it back, down to nothing: no credit is saved up); past BURST_CPU_NS, the
        worker is killed, with the CPU per step of the steps that ran it up."""
        before, self._cpu_mark = self._cpu_mark, self._limits.cpu_ns()
        self._mark_t = time.monotonic()
        if before is None or self._cpu_mark is None or op == "load":
            return
        used = self._cpu_mark - before
        step = int(op != "stop")
        self.cpu_ns += used
        self.steps += step
        if self.step_cpu_ms is None:
            return
        over = self._over[0] + used - int(step * self.step_cpu_ms * 1e6)
        self._over = [over, self._over[1] + step, self._over[2] + used] if over > 0 else [0, 0, 0]
        if over > BURST_CPU_NS:
            steps = max(self._over[1], 1)
            per_step = self._over[2] / steps / 1e6
            raise self._fail(
                "cpu",
                f"costs {per_step:.1f} ms of CPU per step over {steps} "
                f"steps, more than the {self.step_cpu_ms:g} ms allowed "
                f"({self.step_cpu_why}; beyond a one-off "
                f"{BURST_CPU_NS / 1e9:g} s); killed",
            )

    def _planned_step(self) -> None:
        """A plan's step handed out without a round trip: a step, whose allowance pays back
        CPU the call that made the plan used beyond its own."""
        self.steps += 1
        if self.step_cpu_ms is None or self._over[0] <= 0:
            return
        over = self._over[0] - int(self.step_cpu_ms * 1e6)
        self._over = [over, self._over[1] + 1, self._over[2]] if over > 0 else [0, 0, 0]

    @property
    def planned(self) -> int:
        """Steps of plans handed out without a round trip."""
        return self._plans.planned

    def _advance(
        self, msg: dict[str, Any], state: dict[str, Any] | None = None
    ) -> Waits[str | None]:
        """Send `msg` (whose view state is `state`); the action, None when done. A plan's
        first action, when the answer is a plan: the others come from `next`."""
        reply = yield from self._call_waits(msg)
        if "error" in reply:
            kind, message = reply["error"], reply.get("message", "")
            if not isinstance(kind, str) or kind not in WORKER_ERRORS:
                raise self._fail("crash", "forged error kind (protocol broken)")
            raise MacroError(kind, _text(message))
        if reply.get("done") is True:
            return None
        if "plan" in reply and state is not None:
            try:
                return self._plans.begin(reply["plan"], state, reply.get("ends"))
            except BadPlan as exc:
                if exc.kind == "invalid_action":
                    raise MacroError("invalid_action", exc.message) from None
                raise self._fail("crash", f"{exc.message} (protocol broken)") from None
        action = reply.get("action")
        if not isinstance(action, str) or action not in self._primitives:
            raise MacroError("invalid_action", f"unknown action {_text(repr(action))[:40]}")
        return action

    def start_waits(self, name: str, state: dict[str, Any]) -> Waits[str | None]:
        """Start coded action `name`; its first primitive action, or None if it finished. The
        code of a call a plan ended is closed first."""
        self._plans.clear()
        msg: dict[str, Any] = {"op": "start", "name": name}
        if self._ended is not None:  # the plan's last state, for its code's `finally`: the
            # code takes no step more, and what the steps before showed is in the start's state
            msg["close"] = [state_delta(self._ended[-1], self._sent, self._kept)]
            self._ended = None
        msg["state"] = state_delta(state, self._sent, self._kept)
        return (yield from self._advance(msg, state))

    def next_waits(self, state: dict[str, Any]) -> Waits[str | None]:
        """The next primitive action of the running coded action, or None when done: the next
        step of its plan without a round trip when the last one went as expected."""
        msg: dict[str, Any] = {"op": "next"}
        if self._plans.active:
            action = self._plans.after(state)
            if action is not None:
                self._planned_step()  # its CPU is charged per primitive step
                return action
            ended = self._plans.ended  # the action said this effect ends it: no "done" to hear
            seen, msg["taken"] = self._plans.report()
            if ended:
                self._ended = seen
                return None
            msg["before"] = [state_delta(s, self._sent, self._kept) for s in seen[:-1]]
        msg["state"] = state_delta(state, self._sent, self._kept)
        return (yield from self._advance(msg, state))

    def start(self, name: str, state: dict[str, Any]) -> str | None:
        return drive(self.start_waits(name, state))

    def next(self, state: dict[str, Any]) -> str | None:
        return drive(self.next_waits(state))

    def ended(self, state: Callable[[], dict[str, Any]], achievements: dict[str, int]) -> bool:
        """Whether the call the runtime cut short (its budget or the episode ended) had ended
        anyway: its plan's `ends` rose with the step just taken (`achievements`: those after
        it; `state()`: its view state). Then no stop is needed: the code is closed at the
        worker's next start, as after any call a plan ended."""
        if not self._plans.active or not self._plans.ends_with(state, achievements):
            return False
        self._ended, _ = self._plans.report()
        return True

    def stop_waits(self) -> Waits[None]:
        """Close the running coded action (its `finally` runs now, under the time limit),
        yielding the reply pipe it waits on, as a start or a next does."""
        self._plans.clear()
        self._ended = None  # a stop closes whatever code waits
        yield from self._advance({"op": "stop"})

    def stop(self) -> None:
        drive(self.stop_waits())

    @property
    def alive(self) -> bool:
        return self._proc.poll() is None

    def close(self) -> None:
        """Kill the worker's whole process group and release the pipes. The process itself
        too: right after its start (a pool whose start failed closes it at once) the launcher
        may not lead its group yet, and a group kill alone would miss it, and wait for good."""
        if self._proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self._proc.pid, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError):
                self._proc.kill()
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
