"""The host's side of plans (rlgpt/sandbox/plans.py): hand out a worker's plan one step at a
time, checking each step's expectation, and say when the worker must be woken.

A runner (rlgpt/sandbox/client.py, or any other that answers as a worker does) is asked for the
next primitive after every game step, with the view state of that step, exactly as without
plans: the runtime, validation, budgets and the unsafe-step check see no difference. While a
plan is under way, `after` decides from that state alone whether its next step may be taken
without a round trip: it may when the step just taken met everything it expected (the world's
`PlanChecks` judge it on a view of their own, the same code the worker's view runs) and steps
remain. Otherwise the runner wakes the worker with `report()`: the states of the plan's
steps, to reach the action's view in order, and how many steps were taken, which the action's
`yield` returns.

A plan that names an achievement as its end (`ends`) ends the call right after the step that
raised it (`ended`): the runner answers "done" without waking the worker, and closes the
action's suspended code at its next request, its view given the plan's last state. So it
does when the runtime cuts the call right after that step (the episode ended with it):
`ends_with`, instead of a stop's round trip.

A world's skill package that has no `PlanChecks` is a world that checks nothing: its plans are
cut after their first step, so they cost what single actions cost and are never trusted
blindly.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, Protocol

from rlgpt.sandbox.package import SkillPackage
from rlgpt.sandbox.plans import Step, parse, parse_ends

State = dict[str, Any]


class PlanChecks(Protocol):
    """A world's judge of plan steps (its skill package's `api.PlanChecks`, built with the
    package's view arguments): what the world can check cheaply."""

    def begin(self, state: State) -> None:
        """A plan begins from `state`, the one its action saw when it yielded it."""
        ...

    def met(self, step: Step, state: State) -> bool:
        """Whether `step` brought about what it expected and the world saw nothing that
        must stop a plan (a hostile within reach, an item or a vital lost) in `state`, the
        view state right after it."""
        ...


class PlanStepper:
    """One worker's plan under way: parses it, hands out its steps, counts them."""

    def __init__(self, skills: SkillPackage) -> None:
        api = importlib.import_module(skills.api)
        factory = getattr(api, "PlanChecks", None)
        self._checks: PlanChecks | None = factory(**skills.view) if factory else None
        self._conditions = frozenset(getattr(api, "PLAN_CONDITIONS", ()))
        self._primitives = frozenset(skills.primitives)
        self._steps: tuple[Step, ...] = ()
        self._taken = 0
        self._seen: list[State] = []
        self._ends: str | None = None  # the achievement whose rise ends the call
        self._base = 0  # its count when the plan began
        self.ended = False  # the plan ended the call: no worker to wake
        self.planned = 0  # steps handed out without waking the worker (for benchmarks)

    @property
    def active(self) -> bool:
        """A plan is under way: the worker waits for how it went."""
        return bool(self._steps)

    def begin(self, raw: Any, state: State, ends: Any = None) -> str:
        """A worker answered with plan `raw` (untrusted), ending the call when achievement
        `ends` rises, to `state`: its first action. Raises rlgpt.sandbox.plans.BadPlan when the
        plan is not one."""
        self.clear()
        achievements = state.get("achievements", {})
        self._steps = parse(raw, self._primitives, self._conditions)
        self._ends = parse_ends(ends)
        self._base = achievements.get(self._ends, 0) if self._ends is not None else 0
        self._taken = 1
        if self._checks is not None and len(self._steps) > 1:
            self._checks.begin(state)
        return self._steps[0].action

    def after(self, state: State) -> str | None:
        """`state`: the view state right after the plan's latest step. The plan's next action,
        or None when the worker must be woken (`report()` says with what), or when the call
        ended (`ended`)."""
        self._seen.append(state)
        if self._ends is not None and state.get("achievements", {}).get(self._ends, 0) > self._base:
            self.ended = True
            return None
        step = self._steps[self._taken - 1]
        if self._taken >= len(self._steps) or self._checks is None:
            return None
        if not self._checks.met(step, state):
            return None
        self._taken += 1
        self.planned += 1
        return self._steps[self._taken - 1].action

    def ends_with(self, state: Callable[[], State], achievements: dict[str, int]) -> bool:
        """Whether the plan's latest step raised the achievement that ends its call
        (`achievements`: those after it), when the runtime stopped stepping the call there (its
        budget or the episode ended). Then the call ended as the plan said it would: the
        plan's states, `state()` the last, wait for the action's code to be closed."""
        if self._ends is None or achievements.get(self._ends, 0) <= self._base:
            return False
        self._seen.append(state())
        self.ended = True
        return True

    def report(self) -> tuple[list[State], int]:
        """What the woken worker gets, and the plan ends: the states of the steps taken, in
        order (the last is the state the request carries), and how many were taken."""
        seen, taken = self._seen, self._taken
        self.clear()
        return seen, taken

    def clear(self) -> None:
        """No plan under way (a call starts, ends, or is stopped)."""
        self._steps, self._taken, self._seen = (), 0, []
        self._ends, self.ended = None, False
