"""Validation of coded actions: prove what each one does before it trains.

Layers, each giving the model a classified, specific error:
1. the static gate (syntax, gate, signature) and the lint (invalid_action, api_misuse);
2. a sandboxed worker runs the action on scenarios the trusted process built on real Crafter
   worlds (rlgpt/envs/scenarios.py): where its precondition holds, its expected effect (the
   achievement it is named after rises) must happen within its step budget in at least
   `sandbox.min_effect_share` of them, and it must act at all (no_action); where one required
   item is short, it must end by itself within `sandbox.unmet_steps` (unmet_precondition).
   Anywhere, an action name that is not one (invalid_action), an exception, a reply slower than
   `sandbox.reply_timeout_s` (timeout) or a dead worker (crash) fails it at once.
Each failure carries a trace of the failing scenario (rlgpt/sandbox/feedback.py).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

from rlgpt.config import SandboxParams
from rlgpt.envs.crafter_env import CrafterEnv
from rlgpt.envs.preconditions import requirement
from rlgpt.envs.recipes import achievements, actions
from rlgpt.envs.scenarios import plan_scenarios, stage
from rlgpt.messages import (
    ActionValidation,
    CodedAction,
    Scenario,
    ScenarioOutcome,
    TaskSpec,
    ValidationReport,
)  # fmt: skip
from rlgpt.sandbox.client import MacroError, MacroWorker, SandboxUnavailable
from rlgpt.sandbox.feedback import render_trace, source_line
from rlgpt.sandbox.gate import GateError, gate
from rlgpt.sandbox.lint import lint
from rlgpt.skills.runtime import view_state

log = logging.getLogger(__name__)
SCENARIO_SEED_BASE = 10_000
FATAL = ("invalid_action", "exception", "api_misuse", "timeout", "crash")


@dataclass
class _Run:
    """What happened in one scenario."""

    spec: Scenario
    taken: list[str] = field(default_factory=list)
    ended: bool = False
    effect: bool = False
    died: bool = False
    error: MacroError | None = None
    trace: str = ""


def _env_for(ach: str | None, radius: int) -> CrafterEnv:
    """An env whose episodes go on after the effect: code that runs after it is checked too."""
    goal = ach if ach in achievements() else "collect_diamond"
    spec = TaskSpec(name=f"validate:{goal}", achievement=goal, description="validation",
                    max_episode_steps=10_000)  # fmt: skip
    return CrafterEnv(spec, "symbolic", view_radius=radius, end_on_success=False)


def _play(
    worker: MacroWorker, env: CrafterEnv, action: CodedAction, spec: Scenario,
    ach: str | None, deadline: float,
) -> _Run:  # fmt: skip
    """Run the action from the arranged state until it returns or its steps are spent."""
    index = {a: i for i, a in enumerate(actions())}
    info = stage(env, spec)
    before = int(info["achievements"].get(ach, 0)) if ach else 0
    run = _Run(spec)
    prim: str | None = None
    try:
        prim = worker.start(action.name, view_state(env, info, True))
        while prim is not None and len(run.taken) < spec.max_steps:
            if time.monotonic() > deadline:
                raise MacroError("timeout", "validation ran past its wall limit")
            run.taken.append(prim)
            _, _, term, trunc, info = env.step(index[prim])
            if ach and int(info["achievements"].get(ach, 0)) > before:
                run.effect = True
            if term or trunc:
                run.died = info["inventory"]["health"] <= 0
                break
            prim = worker.next(view_state(env, info))
        run.ended = prim is None and not run.died
        if prim is not None:  # cut short, as training would: its `finally` runs now
            worker.stop()
    except MacroError as exc:  # too much CPU is a timeout to the model: it is too slow
        run.error = MacroError("timeout", exc.message) if exc.kind == "cpu" else exc
    error = f"{run.error.kind}: {run.error.message}" if run.error else ""
    run.trace = render_trace(
        scenario=spec, taken=run.taken, window=env.local_window(), info=env.last_info,
        achievement=ach, before=before, error=error,
        code_line=source_line(action.source, run.error.message) if run.error else "",
    )  # fmt: skip
    return run


def _judge(run: _Run, ach: str | None, unmet_steps: int) -> tuple[str | None, str]:
    """(error kind or None, message) of one scenario."""
    spec, n = run.spec, len(run.taken)
    where = f"in {spec.name}"
    if run.error is not None:
        slow = run.error.kind == "timeout" and "of CPU" not in run.error.message
        hint = " (a loop that never yields?)" if slow else ""
        return run.error.kind, f"{run.error.message}{hint} ({where}, after {n} steps)"
    if spec.precondition == "unmet":
        if run.ended:
            return None, f"ended after {n} steps without {spec.missing}"
        return "unmet_precondition", (
            f"kept acting for {n} steps {where}, where it lacks {spec.missing}; check the "
            f"precondition first and return at once when it does not hold"
        )
    if spec.precondition == "unknown" or run.effect:
        return None, "effect reached" if run.effect else f"ran {n} steps"
    if run.ended and n == 0:
        return "no_action", f"returned without acting {where}, although its precondition held"
    if run.died:
        how = f"the player died after {n} steps"
    elif run.ended:
        how = f"returned after {n} steps"
    else:
        how = f"still running after {n} steps (its step budget)"
    return "no_effect", f"'{ach}' did not rise {where}: {how}"


def _outcome(run: _Run, kind: str | None, message: str) -> ScenarioOutcome:
    return ScenarioOutcome(
        scenario=run.spec.name, spec=run.spec, ok=kind is None, steps=len(run.taken),
        effect=run.effect if run.spec.precondition == "met" else None, ended=run.ended,
        error_kind=kind, actions=run.taken[:12], message=message,  # type: ignore[arg-type]
        trace="" if kind is None else run.trace,
    )  # fmt: skip


def _verdict(
    name: str, outcomes: list[ScenarioOutcome], required: int, expected: str
) -> ActionValidation:
    """One verdict from the scenario outcomes: fatal errors, no_action, no_effect, unmet."""
    met = [o for o in outcomes if o.spec is not None and o.spec.precondition == "met"]
    failed = [o for o in outcomes if not o.ok]
    first = next((o for o in failed if o.error_kind in FATAL or o.error_kind == "no_action"), None)
    effects = sum(1 for o in met if o.effect)
    if first is None and met and effects < required:
        first = next(o for o in met if not o.effect)
        detail = "; ".join(o.message for o in met if not o.effect)
        message = (f"its effect happened in {effects} of {len(met)} scenarios where its "
                   f"precondition held, needs {required}: {detail}")  # fmt: skip
        return ActionValidation(
            name=name, ok=False, error_kind="no_effect", message=message, trace=first.trace,
            expected_effect=expected, scenarios=outcomes,
        )  # fmt: skip
    tolerated = {id(o) for o in met if o.error_kind == "no_effect"}  # within the share
    first = first or next((o for o in failed if id(o) not in tolerated), None)
    if first is None:
        return ActionValidation(name=name, ok=True, expected_effect=expected, scenarios=outcomes)
    return ActionValidation(
        name=name, ok=False, error_kind=first.error_kind, message=first.message,
        trace=first.trace, expected_effect=expected, scenarios=outcomes,
    )  # fmt: skip


def _expected(ach: str | None, budget: int, required: int, count: int) -> str:
    req = requirement(ach) if ach else None
    if req is None:
        return "unknown (not named after an achievement): checked for safety only"
    return (f"achievement '{ach}' rises within {budget} steps in {required} of {count} states "
            f"where its precondition holds ({req.describe()})")  # fmt: skip


def validate_action(
    action: CodedAction, *, sandbox: SandboxParams, view_radius: int = 4, lint_code: bool = True,
    gate_code: bool = True,
) -> ActionValidation:  # fmt: skip
    """Gate and lint, then run in a fresh sandboxed worker on arranged Crafter states. The
    verdict depends only on the code and the settings (no timings), so replays match. A
    verdict always comes back: whatever the worker does, it is a failure of this action, never
    of the caller. `gate_code=False` skips the gate and lint here and in the worker (tests of
    the OS layer alone)."""
    try:
        return _validate(action, sandbox, view_radius, lint_code, gate_code, time.monotonic())
    except SandboxUnavailable:  # no sandbox is the run's failure, not this action's
        raise
    except MacroError as exc:
        return ActionValidation(
            name=action.name, ok=False, message=exc.message,
            error_kind="timeout" if exc.kind == "cpu" else "crash",
        )  # fmt: skip
    except Exception as exc:  # noqa: BLE001 - one hostile file never aborts a whole check
        log.warning("validation of %s failed: %s", action.name, exc, exc_info=True)
        message = f"validation could not complete: {type(exc).__name__}: {exc}"[:300]
        return ActionValidation(name=action.name, ok=False, error_kind="crash", message=message)


def _validate(
    action: CodedAction, sandbox: SandboxParams, view_radius: int, lint_code: bool,
    gate_code: bool, t0: float,
) -> ActionValidation:  # fmt: skip
    rejected = gate(action.name, action.source) if gate_code else None
    if rejected is not None:
        return rejected
    if lint_code and gate_code:
        try:
            lint(action.source)
        except GateError as exc:
            return _static_failure(action, exc)
    ach = action.name if requirement(action.name) is not None else None
    specs = plan_scenarios(
        action.name, count=sandbox.scenarios, seed_base=SCENARIO_SEED_BASE,
        budget=action.step_budget, radius=view_radius, unmet_steps=sandbox.unmet_steps,
        unknown_steps=sandbox.scenario_steps,
    )  # fmt: skip
    required = sandbox.required_effects(sandbox.scenarios)
    expected = _expected(ach, action.step_budget, required, sandbox.scenarios)
    try:
        worker = MacroWorker(
            [action], timeout_s=min(sandbox.reply_timeout_s, sandbox.timeout_s),
            isolation=sandbox.isolation, cpu_s=int(sandbox.timeout_s) + 5,
            deadline=t0 + sandbox.timeout_s, gate=gate_code, step_cpu_ms=sandbox.step_cpu_ms,
            run_memory_mib=sandbox.run_memory_mib,
        )  # fmt: skip
    except MacroError as exc:
        return ActionValidation(
            name=action.name, ok=False, message=exc.message,
            error_kind="timeout" if exc.kind == "cpu" else "crash",
        )  # fmt: skip
    try:
        if action.name in worker.load_errors:
            msg = worker.load_errors[action.name]
            return ActionValidation(
                name=action.name, ok=False, error_kind="exception", message=msg,
                trace=source_line(action.source, msg), expected_effect=expected,
            )  # fmt: skip
        env = _env_for(ach, view_radius)
        outcomes = []
        for spec in specs:
            run = _play(worker, env, action, spec, ach, t0 + sandbox.timeout_s)
            kind, message = _judge(run, ach, sandbox.unmet_steps)
            outcomes.append(_outcome(run, kind, message))
            if kind in FATAL or kind == "no_action":
                break  # a fatal error fails the action: no need to look further
        return _verdict(action.name, outcomes, required, expected)
    finally:
        worker.close()


def _static_failure(action: CodedAction, exc: GateError) -> ActionValidation:
    return ActionValidation(
        name=action.name, ok=False, error_kind=exc.kind, message=exc.message,  # type: ignore[arg-type]
        trace=source_line(action.source, exc.message),
    )  # fmt: skip


def validate_all(
    coded: list[CodedAction], *, sandbox: SandboxParams, view_radius: int = 4,
) -> ValidationReport:  # fmt: skip
    """Validate every coded action; each gets its own fresh worker."""
    report = ValidationReport(
        actions=[validate_action(c, sandbox=sandbox, view_radius=view_radius) for c in coded]
    )
    for v in report.failed():
        log.info("validation: %s failed (%s): %s", v.name, v.error_kind, v.message)
    return report
