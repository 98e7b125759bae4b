"""Validation of coded actions: prove what each one does before it trains.

Layers, each giving the model a classified, specific error:
1. the static gate (syntax, gate, signature) and the lint (invalid_action, api_misuse);
2. a sandboxed worker runs the action on scenarios the trusted process built on real states of
   the game (the world's `scenarios` and `stage`): where its precondition holds, on the plain
   layout and in states from later in an episode (dusk, night, low vitals, a hostile near, a
   hazard on the way, the target or a ladder out of view, a closed ladder, a monster near a
   sleeper), and where one requirement of the world's recipe data is withheld. Each run is
   judged whole (rlgpt/validation/judge.py): its effect, how it ends after it, the player's
   life, its progress, every step it took. Anywhere, an action name that is not one
   (invalid_action), an exception, a reply slower than `sandbox.reply_timeout_s` (timeout) or
   a dead worker (crash) fails it at once.
Each failure carries a trace of the failing scenario (rlgpt/validation/feedback.py). The clock
(`sandbox.timeout_s`) is the action's: the process's cold start comes before it, and the
game's own time is reported, not charged (Budget).
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Mapping
from typing import Any

from rlgpt.config import SandboxParams
from rlgpt.messages import ActionValidation, CodedAction, ErrorKind, Scenario, ValidationReport
from rlgpt.sandbox.client import MacroError, MacroWorker, SandboxUnavailable
from rlgpt.sandbox.gate import GateError, gate
from rlgpt.sandbox.patience import WALL_SLACK, queued_ns
from rlgpt.validation.feedback import render_trace, source_line
from rlgpt.validation.judge import Rules, Run, judge, outcome, tolerated, verdict
from rlgpt.validation.lint import lint
from rlgpt.worlds import DEFAULT_WORLD, get_world
from rlgpt.worlds.base import World, WorldEnv

log = logging.getLogger(__name__)
SCENARIO_SEED_BASE = 10_000


class Budget:
    """sandbox.timeout_s for validating one action, charged with the action's time only: the
    wall time its worker took to answer (rlgpt/sandbox/client.py, `reply_s`), less the time
    the worker's processes sat in the run queue (a busy machine, not the action). The clock
    starts once the process is warm (`cold_s`: imports, compilation, the worker's start,
    before the first state) and the game's own time (staging, steps, views: the trusted
    process's, bounded by each state's step limit) is reported, not charged. The wall clock
    caps a starved run at WALL_SLACK times the limit (as for one reply:
    rlgpt/sandbox/patience.py)."""

    def __init__(self, limit_s: float, t0: float, cold_s: float = 0.0) -> None:
        self.limit_s, self.t0, self.cold_s = limit_s, t0, cold_s
        self.host0 = queued_ns()
        self._reply0: float | None = None
        self._queued0 = 0

    @property
    def wall_end(self) -> float:
        return self.t0 + self.limit_s * WALL_SLACK

    def start(self, worker: MacroWorker) -> None:
        """The clock starts now for `worker` (what it answered before, it answered cold)."""
        self._reply0, self._queued0 = worker.reply_s, queued_ns(worker.pids())
        worker.deadline = self.wall_end

    def check(self, worker: MacroWorker) -> None:
        """Raise a timeout once the charged time, or the wall cap, is spent."""
        wall = time.monotonic() - self.t0
        replies = worker.reply_s - (self._reply0 or 0.0)
        if replies <= self.limit_s and wall <= self.limit_s * WALL_SLACK:
            return  # within the limit however it is counted: nothing to read
        queued = max(0, queued_ns(worker.pids()) - self._queued0) / 1e9
        if wall > self.limit_s * WALL_SLACK:
            raise MacroError(
                "timeout",
                f"validation ran past {WALL_SLACK:g} times its "
                f"{self.limit_s:g} s limit in wall time: "
                f"{self.where(worker, wall, queued)}",
            )
        if replies - queued > self.limit_s:
            raise MacroError(
                "timeout",
                f"the action took {replies - queued:.1f} s to answer, "
                f"over the {self.limit_s:g} s allowed (sandbox.timeout_s): "
                f"{self.where(worker, wall, queued)}",
            )

    def where(self, worker: MacroWorker, wall: float, queued: float) -> str:
        """Where the time went, for a timeout's message."""
        replies = worker.reply_s - (self._reply0 or 0.0)
        cpu = f", {worker.cpu_ns / 1e9:.1f} s of its CPU" if worker.cpu_ns else ""
        host = max(0, queued_ns() - self.host0) / 1e9
        game = max(0.0, wall - replies - host)
        return (
            f"its replies took {replies:.1f} s{cpu} over {worker.steps} steps "
            f"({queued:.1f} s of it waiting for a busy CPU, not charged); the game's "
            f"staging and steps {game:.1f} s (not charged); before the first state, the "
            f"cold start (imports, compilation, the worker's start) {self.cold_s:.1f} s "
            "(not charged)"
        )


@functools.cache
def _warm(world: str, radius: int) -> None:
    """Pay the process's one-off costs of a world once (its imports, compiling its jitted
    game, its first staging and step) on an env of its own, before any validation's clock."""
    game = get_world(world)
    ach = next(iter(game.tasks().values())).achievement
    spec = game.scenarios(ach, count=1, seed_base=SCENARIO_SEED_BASE, budget=1, radius=radius,
                          unmet_steps=1, unknown_steps=1, episode=False)[0]  # fmt: skip
    env = game.validation_env(ach, radius)
    try:
        game.stage(env, spec)
        env.step(game.primitives().index("noop"))
    finally:
        env.close()


def _play(
    worker: MacroWorker, world: World, env: WorldEnv, action: CodedAction, spec: Scenario,
    ach: str | None, *, budget: Budget, end_steps: int,
) -> Run:  # fmt: skip
    """Run the action from the arranged state until it returns, its steps are spent, or what
    it does next cannot change its verdict."""
    index = {a: i for i, a in enumerate(world.primitives())}
    info: Mapping[str, Any] = world.stage(env, spec)
    before = int(info["achievements"].get(ach, 0)) if ach else 0
    run = Run(spec)
    prim: str | None = None
    try:
        prim = worker.start(action.name, env.view_state(info, True))
        while prim is not None and len(run.taken) < spec.max_steps:
            budget.check(worker)
            if run.seen_enough(end_steps):
                break
            hazard = env.unsafe_move(prim)
            if hazard is not None:  # the runtime would turn it into a noop: here it fails
                run.unsafe = f"{prim} into {hazard}"
                break
            run.taken.append(prim)
            _, _, term, trunc, info = env.step(index[prim])
            run.note(info)
            if ach:
                run.count(int(info["achievements"].get(ach, 0)) - before)
            if term or trunc:  # episodes go on after the effect: an end is a death,
                won = bool(info.get("won"))  # unless the game itself was won (nothing follows)
                run.died, run.ended = bool(term) and not won, won
                break
            prim = worker.next(env.view_state(info))
        run.ended = run.ended or (prim is None and not run.died)
        if prim is not None:  # cut short, as training would: its `finally` runs now
            worker.stop()
    except MacroError as exc:  # too much CPU is a timeout to the model: it is too slow
        run.error = MacroError("timeout", exc.message) if exc.kind == "cpu" else exc
    run.trace = _trace(world, env, action, run, ach, before)
    return run


def _trace(
    world: World, env: WorldEnv, action: CodedAction, run: Run, ach: str | None, before: int
) -> str:
    error = f"{run.error.kind}: {run.error.message}" if run.error else ""
    if run.unsafe:
        error = f"refused: {run.unsafe} (its next step)"
    info = env.last_info
    return render_trace(
        scenario=run.spec, taken=run.taken, info=info,
        map_text=world.render_map(env.local_window(), info["facing"]),
        achievement=ach, before=before, error=error,
        code_line=source_line(action.source, run.error.message) if run.error else "",
    )  # fmt: skip


def _expected(world: World, ach: str | None, budget: int, required: int, count: int) -> str:
    req = world.requirement_text(ach) if ach else None
    if req is None:
        return "unknown (not named after an achievement): checked for safety only"
    return (
        f"achievement '{ach}' rises within {budget} steps in {required} of {count} states "
        f"where its precondition holds ({req}); there and in harder states from later in an "
        f"episode it raises it once, ends soon after, keeps the player alive and never "
        f"steps into danger, and where it cannot succeed it ends at once"
    )


def validate_action(
    action: CodedAction, *, sandbox: SandboxParams, view_radius: int = 4, lint_code: bool = True,
    gate_code: bool = True, world: str = DEFAULT_WORLD,
) -> ActionValidation:  # fmt: skip
    """Gate and lint, then run in a fresh sandboxed worker on arranged states of `world`. The
    verdict depends only on the code and the settings (no timings), so replays match. A
    verdict always comes back: whatever the worker does, it is a failure of this action, never
    of the caller. `gate_code=False` skips the gate and lint here and in the worker (tests of
    the OS layer alone)."""
    try:
        game = get_world(world)
        return _validate(
            action, game, sandbox, view_radius, lint_code, gate_code, t0=time.monotonic(),
        )  # fmt: skip
    except SandboxUnavailable:  # no sandbox is the run's failure, not this action's
        raise
    except MacroError as exc:
        return _worker_failure(action, exc)
    except Exception as exc:  # noqa: BLE001 - one hostile file never aborts a whole check
        log.warning("validation of %s failed: %s", action.name, exc, exc_info=True)
        message = f"validation could not complete: {type(exc).__name__}: {exc}"[:300]
        return ActionValidation(name=action.name, ok=False, error_kind="crash", message=message)


def _worker_failure(action: CodedAction, exc: MacroError) -> ActionValidation:
    """The worker failed outside a scenario: too much CPU is a timeout, anything else a crash."""
    kind: ErrorKind = "timeout" if exc.kind == "cpu" else "crash"
    return ActionValidation(name=action.name, ok=False, error_kind=kind, message=exc.message)


def _validate(
    action: CodedAction, world: World, sandbox: SandboxParams, view_radius: int,
    lint_code: bool, gate_code: bool, *, t0: float,
) -> ActionValidation:  # fmt: skip
    rejected = gate(action.name, action.source) if gate_code else None
    if rejected is not None:
        return rejected
    if lint_code and gate_code:
        try:
            lint(action.source, world.lint_facts())
        except GateError as exc:
            return _static_failure(action, exc)
    ach = action.name if world.requirement_text(action.name) is not None else None
    specs = world.scenarios(
        action.name, count=sandbox.scenarios, seed_base=SCENARIO_SEED_BASE,
        budget=action.step_budget, radius=view_radius, unmet_steps=sandbox.unmet_steps,
        unknown_steps=sandbox.scenario_steps, episode=sandbox.episode_states,
    )  # fmt: skip
    required = sandbox.required_effects(sandbox.scenarios)
    expected = _expected(world, ach, action.step_budget, required, sandbox.scenarios)
    try:  # the worker starts before the clock: its start is the machine's, not the action's
        worker = MacroWorker(
            [action], world.skills(), timeout_s=min(sandbox.reply_timeout_s, sandbox.timeout_s),
            isolation=sandbox.isolation, cpu_s=int(sandbox.timeout_s) + 5, gate=gate_code,
            step_cpu_ms=sandbox.step_cpu_ms, run_memory_mib=sandbox.run_memory_mib,
        )  # fmt: skip
    except MacroError as exc:
        return _worker_failure(action, exc)
    try:
        if action.name in worker.load_errors:
            msg = worker.load_errors[action.name]
            return ActionValidation(
                name=action.name, ok=False, error_kind="exception", message=msg,
                trace=source_line(action.source, msg), expected_effect=expected,
            )  # fmt: skip
        env = world.validation_env(ach or "", view_radius)
        if hasattr(env, "defer_observations"):  # validation never reads the policy's view
            env.defer_observations = True
        _warm(world.name, view_radius)
        now = time.monotonic()
        budget = Budget(sandbox.timeout_s, now, cold_s=now - t0)
        budget.start(worker)
        rules = Rules(unmet_steps=sandbox.unmet_steps, end_steps=sandbox.end_steps)
        own = action.name if ach and action.name in world.primitives() else None
        outcomes = []
        for spec in specs:
            run = _play(
                worker, world, env, action, spec, ach, budget=budget, end_steps=sandbox.end_steps,
            )  # fmt: skip
            outcomes.append(outcome(run, *judge(run, ach, own, rules)))
            if not outcomes[-1].ok and not tolerated(outcomes[-1]):
                break  # it fails the action: no need to look further
        cpu_ms = worker.cpu_ns / worker.steps / 1e6 if worker.steps and worker.cpu_ns else None
        return verdict(action.name, outcomes, required, expected).timed(cpu_ms)
    finally:
        worker.close()


def _static_failure(action: CodedAction, exc: GateError) -> ActionValidation:
    return ActionValidation(
        name=action.name, ok=False, error_kind=exc.kind, message=exc.message,  # type: ignore[arg-type]
        trace=source_line(action.source, exc.message),
    )  # fmt: skip


def validate_all(
    coded: list[CodedAction],
    *,
    sandbox: SandboxParams,
    view_radius: int = 4,
    world: str = DEFAULT_WORLD,
) -> ValidationReport:
    """Validate every coded action of `world`; each gets its own fresh worker."""
    report = ValidationReport(
        actions=[
            validate_action(c, sandbox=sandbox, view_radius=view_radius, world=world) for c in coded
        ]
    )
    for v in report.failed():
        log.info("validation: %s failed (%s): %s", v.name, v.error_kind, v.message)
    return report
