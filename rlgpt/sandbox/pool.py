"""Coded actions in training: one sandboxed worker per action, restarted when it fails.

No two coded actions share a process, so none can reach another's namespace, modules or view.
A worker that hangs (no answer in time) or dies is killed and started again before the error
goes up; the runtime then counts the call as a failed one (rlgpt/rl/runtime.py), and
training goes on. A worker that costs too much CPU (per step, judged from its first step
against what its validation measured: `step_cpu_limit`; or between calls: a process it left
running) is killed and not started again: its action is out for the rest of the training,
and the runtime disables it with the reason. Between calls, the pool looks at every idle
worker's CPU at most every IDLE_SWEEP_S, so a burner is stopped even while its action is not
called.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from rlgpt.errors import MacroError
from rlgpt.messages import CodedAction
from rlgpt.sandbox.client import MacroWorker
from rlgpt.sandbox.package import SkillPackage
from rlgpt.sandbox.pipes import Waits, drive, in_turns

log = logging.getLogger(__name__)
IDLE_SWEEP_S = 0.5
# CPU per step an action may use here, against what its validation measured: FAR_OVER times
# it, never under FLOOR_MS (the reference skills' windows of 50 steps in training ran at most
# about 3 times their validation's mean, 2.2 ms on Craftax) nor over sandbox.step_cpu_ms
FAR_OVER = 10.0
FLOOR_MS = 5.0


def step_cpu_limit(limit_ms: float | None, validated_ms: float | None) -> tuple[float | None, str]:
    """The CPU per step (ms) an action may use in training, and where the figure comes from:
    `limit_ms` (sandbox.step_cpu_ms), lowered to FAR_OVER times what its validation measured."""
    if limit_ms is None or validated_ms is None:
        return limit_ms, "sandbox.step_cpu_ms"
    relative = max(FLOOR_MS, FAR_OVER * validated_ms)
    if relative >= limit_ms:
        return limit_ms, "sandbox.step_cpu_ms"
    return relative, (
        f"{FAR_OVER:g} times the {validated_ms:.2f} ms per step its validation "
        f"measured, at least {FLOOR_MS:g}"
    )


class MacroPool:
    """A MacroRunner over one MacroWorker per coded action; closes them all in `close()`."""

    def __init__(
        self, coded: list[CodedAction], skills: SkillPackage, isolation: str,
        timeout_s: float = 5.0, gate: bool = True, *, step_cpu_ms: float | None = None,
        run_memory_mib: int = 0,
    ) -> None:  # fmt: skip
        self._coded = {c.name: c for c in coded}
        self._skills = skills
        self._gate = gate
        self._isolation = isolation
        self._timeout_s = timeout_s
        self._step_cpu_ms = step_cpu_ms
        self._run_memory_mib = run_memory_mib
        self._workers: dict[str, MacroWorker] = {}
        self._out: dict[str, str] = {}  # action -> why its worker is gone for good
        self._current: str | None = None
        self._swept = time.monotonic()
        self.restarts = 0
        try:  # every worker starts, then all load in turns: their start-ups share the cores
            for name in self._coded:
                self._workers[name] = self._spawn(name, loaded=False)
            in_turns([w.load_waits() for w in self._workers.values()])
        except BaseException:
            self.close()
            raise

    @property
    def names(self) -> frozenset[str]:
        """The coded actions it runs (a worker stopped for good included: it answers why)."""
        return frozenset(self._coded)

    def _spawn(self, name: str, loaded: bool = True) -> MacroWorker:
        coded = self._coded[name]
        limit, why = step_cpu_limit(self._step_cpu_ms, coded.validated_cpu_ms)
        return MacroWorker(
            [coded], self._skills, timeout_s=self._timeout_s, isolation=self._isolation,
            gate=self._gate, step_cpu_ms=limit, step_cpu_why=why,
            run_memory_mib=self._run_memory_mib, loaded=loaded,
        )  # fmt: skip

    def _restart(self, name: str) -> None:
        self._workers[name].close()
        self.restarts += 1
        log.warning("coded action %s: its worker hung or died; restarted", name)
        self._workers[name] = self._spawn(name)

    def _retire(self, name: str, exc: MacroError) -> None:
        self._workers.pop(name).close()
        self._out[name] = exc.message
        log.warning("coded action %s: its worker is stopped for good: %s", name, exc.message)

    def _sweep_idle(self, busy: str) -> None:
        """Every IDLE_SWEEP_S at most: stop idle workers that use CPU (not `busy`'s)."""
        now = time.monotonic()
        if now - self._swept < IDLE_SWEEP_S:
            return
        self._swept = now
        for name, worker in list(self._workers.items()):
            if name != busy:
                try:
                    worker.check_idle()
                except MacroError as exc:
                    self._retire(name, exc)

    def _ask(self, name: str, op: str, state: dict[str, Any]) -> Waits[str | None]:
        self._sweep_idle(name)
        if name in self._out:
            raise MacroError("cpu", self._out[name])
        worker = self._workers[name]
        try:
            if op == "stop":
                yield from worker.stop_waits()
                return None
            if op == "start":
                return (yield from worker.start_waits(name, state))
            return (yield from worker.next_waits(state))
        except MacroError as exc:
            if exc.kind == "cpu":
                self._retire(name, exc)
            elif exc.kind in ("timeout", "crash"):
                self._restart(name)
            raise

    def start_waits(self, name: str, state: dict[str, Any]) -> Waits[str | None]:
        """start(), yielding the reply pipe it waits on (rlgpt/sandbox/pipes.py, Waits)."""
        self._current = name
        return (yield from self._ask(name, "start", state))

    def next_waits(self, state: dict[str, Any]) -> Waits[str | None]:
        if self._current is None:
            raise MacroError("crash", "no coded action is running")
        return (yield from self._ask(self._current, "next", state))

    def start(self, name: str, state: dict[str, Any]) -> str | None:
        return drive(self.start_waits(name, state))

    def next(self, state: dict[str, Any]) -> str | None:
        return drive(self.next_waits(state))

    def ended(self, state: Callable[[], dict[str, Any]], achievements: dict[str, int]) -> bool:
        """Whether the running call, cut short by the runtime, had ended anyway (its plan's
        end rose with the step just taken: MacroWorker.ended): it needs no stop."""
        worker = self._workers.get(self._current) if self._current is not None else None
        return worker is not None and worker.ended(state, achievements)

    def stop_waits(self) -> Waits[None]:
        """stop(), yielding the reply pipe it waits on (the other envs step meanwhile)."""
        if self._current is not None:
            yield from self._ask(self._current, "stop", {})

    def stop(self) -> None:
        drive(self.stop_waits())

    def close(self) -> None:
        for worker in self._workers.values():
            worker.close()
        self._workers = {}
