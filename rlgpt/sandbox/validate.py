"""Validation of coded actions: the static gate, then out-of-process runs on real Crafter states."""

from __future__ import annotations

import logging
import time

from rlgpt.envs.crafter_env import CrafterEnv
from rlgpt.envs.recipes import actions
from rlgpt.messages import (
    ActionValidation,
    CodedAction,
    ScenarioOutcome,
    TaskSpec,
    ValidationReport,
)
from rlgpt.sandbox.client import MacroError, MacroWorker
from rlgpt.sandbox.gate import gate
from rlgpt.skills.runtime import view_state

log = logging.getLogger(__name__)
SCENARIO_SEED_BASE = 10_000


def _run_scenario(
    worker: MacroWorker, env: CrafterEnv, action: CodedAction, seed: int, max_steps: int,
    deadline: float,
) -> ScenarioOutcome:  # fmt: skip
    """Run one coded action from a fresh world (seed) until it finishes or `max_steps`."""
    index = {a: i for i, a in enumerate(actions())}
    _, info = env.reset(seed=seed)
    name = f"seed={seed}"
    taken: list[str] = []
    prim = worker.start(action.name, view_state(env, info))
    while prim is not None and len(taken) < max_steps:
        if time.monotonic() > deadline:
            raise MacroError("timeout", f"validation ran past its wall limit in {name}")
        taken.append(prim)
        _, _, term, trunc, info = env.step(index[prim])
        if term or trunc:
            break
        prim = worker.next(view_state(env, info))
    finished = prim is None
    msg = "finished" if finished else f"still running after {len(taken)} steps"
    return ScenarioOutcome(
        scenario=name, ok=True, steps=len(taken), actions=taken[:12], message=msg
    )


def validate_action(
    action: CodedAction, task: TaskSpec, scenarios: int, scenario_steps: int, timeout_s: float,
    isolation: str = "bwrap",
) -> ActionValidation:  # fmt: skip
    """Gate, then run in a fresh sandboxed worker on `scenarios` real Crafter states."""
    rejected = gate(action.name, action.source)
    if rejected is not None:
        return rejected
    deadline = time.monotonic() + timeout_s
    try:
        worker = MacroWorker(
            [action], timeout_s=min(timeout_s, 10.0), isolation=isolation,
            cpu_s=int(timeout_s) + 5,
        )  # fmt: skip
    except MacroError as exc:
        return ActionValidation(name=action.name, ok=False, error_kind="crash", message=exc.message)
    try:
        if action.name in worker.load_errors:
            msg = worker.load_errors[action.name]
            return ActionValidation(name=action.name, ok=False, error_kind="crash", message=msg)
        env = CrafterEnv(task, "symbolic")
        outcomes = []
        for i in range(scenarios):
            outcomes.append(
                _run_scenario(worker, env, action, SCENARIO_SEED_BASE + i, scenario_steps, deadline)
            )
        return ActionValidation(name=action.name, ok=True, scenarios=outcomes)
    except MacroError as exc:
        kind = exc.kind if exc.kind in ("timeout", "crash", "invalid_output") else "crash"
        return ActionValidation(name=action.name, ok=False, error_kind=kind, message=exc.message)  # type: ignore[arg-type]
    finally:
        worker.close()


def validate_all(
    coded: list[CodedAction], task: TaskSpec, scenarios: int, scenario_steps: int,
    timeout_s: float, isolation: str = "bwrap",
) -> ValidationReport:  # fmt: skip
    return ValidationReport(
        actions=[
            validate_action(c, task, scenarios, scenario_steps, timeout_s, isolation) for c in coded
        ]
    )
