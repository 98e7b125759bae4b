"""Judging a coded action's runs: one class and message per scenario, then one verdict.

A call is judged whole, not only at the moment of its effect (docs/design.md, Validation):
- anywhere: a step the runtime would refuse (the env's `unsafe_move`, e.g. into lava; the
  runtime turns it into a noop) is `unsafe_step`, and the player's death is `died`;
- where its precondition holds: the achievement it is named after rises at most once per call
  (`repeated_effect`), and after the effect the call ends within `end_steps` steps (`no_end`);
  in a met state of the plain layout the effect must happen in a share of them (`no_action`,
  `no_effect`); in a state from later in an episode it must not return without it
  (`gave_up`), and where that state must show it (a hostile near, a hazard on the way, the
  target remembered), running out its budget without it is `no_effect`; where it may run out
  its budget without it, it must have made progress: searched (SEARCH_CELLS cells visited,
  or anything reached on the way) where the target was never seen, fought (a kill) or gone
  up to rest at a closed ladder;
- where it does not hold: it ends within `unmet_steps` steps and never yields its own craft or
  place action (`unmet_precondition`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rlgpt.errors import MacroError
from rlgpt.messages import ActionValidation, Scenario, ScenarioOutcome

FATAL = ("invalid_action", "exception", "api_misuse", "timeout", "crash")
SEARCH_CELLS = 8  # cells a search must have visited by the end of its steps (fewer: a spin)


@dataclass
class Run:
    """What happened in one scenario."""

    spec: Scenario
    taken: list[str] = field(default_factory=list)
    ended: bool = False
    rises: int = 0  # how often the achievement rose during the call
    effect_at: int | None = None  # steps taken when it first rose
    died: bool = False
    unsafe: str = ""  # 'move_right into lava': a step refused, not taken
    error: MacroError | None = None
    trace: str = ""
    cells: set[tuple[int, int, int]] = field(default_factory=set)  # (floor, x, y) visited
    kills: int = 0  # monsters defeated during the call (every defeat_* count)
    unlocked: int = 0  # achievements reached during the call (any: a sapling, a placed plant)
    went_up_hurt: bool = False  # climbed a floor while below its starting health
    _first: dict[str, int] = field(default_factory=dict)

    def note(self, info: Mapping[str, Any]) -> None:
        """What a step shows of the call's progress: where the player is, what it killed,
        whether it went up a floor to rest."""
        floor, health = int(info.get("floor", 0)), int(info["inventory"].get("health", 0))
        x, y = info["player_pos"]
        counts = info["achievements"]
        kills = sum(int(v) for k, v in counts.items() if k.startswith("defeat_"))
        total = sum(int(v) for v in counts.values())
        if not self._first:
            self._first = {"floor": floor, "health": health, "kills": kills, "total": total}
        self.cells.add((floor, int(x), int(y)))
        self.kills, self.unlocked = kills - self._first["kills"], total - self._first["total"]
        self.went_up_hurt |= floor < self._first["floor"] and health < self._first["health"]

    @property
    def effect(self) -> bool:
        return self.rises > 0

    def count(self, rises: int) -> None:
        """The achievement has risen `rises` times since the call started."""
        if rises > 0 and self.effect_at is None:
            self.effect_at = len(self.taken)
        self.rises = max(self.rises, rises)

    def seen_enough(self, end_steps: int) -> bool:
        """Whether the rest of the call cannot change its verdict: it raised the effect twice,
        or it is still acting `end_steps` steps after it."""
        after = len(self.taken) - self.effect_at if self.effect_at is not None else -1
        return self.rises > 1 or after >= end_steps


@dataclass(frozen=True)
class Rules:
    """The numbers a call is judged by (sandbox.unmet_steps, sandbox.end_steps)."""

    unmet_steps: int
    end_steps: int


def judge(run: Run, ach: str | None, own: str | None, rules: Rules) -> tuple[str | None, str]:
    """(error kind or None, message) of one scenario; `own` is the action's own primitive (a
    craft or place action named like it), if it has one."""
    spec, n = run.spec, len(run.taken)
    where = f"in {spec.name}"
    if run.unsafe:
        return "unsafe_step", (
            f"step {n + 1} ({run.unsafe}) {where} would kill the player: the runtime refuses "
            f"it (it becomes a noop); walk round it (the skills' paths never step on it)"
        )
    if run.error is not None:
        slow = run.error.kind == "timeout" and "no complete answer" in run.error.message
        hint = " (a loop that never yields?)" if slow else ""
        return run.error.kind, f"{run.error.message}{hint} ({where}, after {n} steps)"
    if run.died:
        return "died", (
            f"the player died after {n} steps {where}: an action must leave the player alive "
            f"(fight what attacks; rest only where nothing can reach the player)"
        )
    whole = _whole_call(run, ach, rules.end_steps, where)
    if whole is not None:
        return whole
    if spec.precondition == "unmet":
        return _unmet(run, own, rules.unmet_steps, where)
    if spec.precondition == "unknown":
        return None, f"ran {n} steps"
    return _met(run, ach, where)


def _whole_call(run: Run, ach: str | None, end_steps: int, where: str) -> tuple[str, str] | None:
    """After its effect: the effect once, and an end within `end_steps` steps."""
    if run.rises > 1:
        return "repeated_effect", (
            f"'{ach}' rose again in the same call {where} (at step {len(run.taken)}): one call "
            f"reaches it once and returns (the policy calls it again for more)"
        )
    if run.effect_at is not None and not run.ended:
        after = len(run.taken) - run.effect_at
        if after >= end_steps:
            return "no_end", (
                f"reached '{ach}' at step {run.effect_at} {where} and was still acting {after} "
                f"steps later: return once the effect is reached (within {end_steps} steps)"
            )
    return None


def _unmet(run: Run, own: str | None, unmet_steps: int, where: str) -> tuple[str | None, str]:
    spec, n = run.spec, len(run.taken)
    tried = run.taken.count(own) if own else 0
    if tried:
        return "unmet_precondition", (
            f"yielded '{own}' {tried}x {where}, where it lacks {spec.missing}: that cannot "
            f"succeed; check the precondition first and return at once when it does not hold"
        )
    if run.ended:
        return None, f"ended after {n} steps without {spec.missing}"
    return "unmet_precondition", (
        f"kept acting for {n} steps {where}, where it lacks {spec.missing}; check the "
        f"precondition first and return at once when it does not hold (within {unmet_steps})"
    )


def _met(run: Run, ach: str | None, where: str) -> tuple[str | None, str]:
    spec, n = run.spec, len(run.taken)
    if run.effect:
        return None, "effect reached"
    if spec.state and run.ended:
        return "gave_up", (
            f"returned after {n} steps without '{ach}' {where}, a state from later in an "
            f"episode where its precondition held: keep going (search, walk round, fight, "
            f"shelter and wait) until the effect or the end of its step budget"
        )
    if spec.effect == "optional":
        return _progress(run, ach, where)
    if run.ended and n == 0:
        return "no_action", f"returned without acting {where}, although its precondition held"
    if run.ended:
        how = f"returned after {n} steps"
    else:
        how = f"still running after {n} steps (its step budget)"
    return "no_effect", f"'{ach}' did not rise {where}: {how}"


def _progress(run: Run, ach: str | None, where: str) -> tuple[str | None, str]:
    """A call that ran out its steps without its effect where it may: it must have made
    progress toward it where the state asks for some."""
    n, state = len(run.taken), run.spec.state
    searched = len(run.cells) >= min(SEARCH_CELLS, n // 4 + 1) or run.unlocked > 0
    if state == "unseen" and not searched:
        return "no_effect", (
            f"'{ach}' did not rise {where} (its target never seen) and in {n} steps the player "
            f"stood on {len(run.cells)} cells and reached nothing: search for it (explore), "
            f"do not wait in place"
        )
    if state == "closed_ladder" and run.kills == 0 and not run.went_up_hurt:
        return "no_effect", (
            f"'{ach}' did not rise {where} in {n} steps, and no monster of the floor was "
            f"killed: a closed ladder opens once enough of the floor's monsters are killed "
            f"(fight them; go up to rest when hurt), descending on it does nothing"
        )
    return None, f"still acting after {n} steps (its budget): allowed here"


def outcome(run: Run, kind: str | None, message: str) -> ScenarioOutcome:
    return ScenarioOutcome(
        scenario=run.spec.name, spec=run.spec, ok=kind is None, steps=len(run.taken),
        effect=run.effect if run.spec.precondition == "met" else None, ended=run.ended,
        error_kind=kind, actions=run.taken[:12], message=message,  # type: ignore[arg-type]
        trace="" if kind is None else run.trace,
    )  # fmt: skip


def tolerated(o: ScenarioOutcome) -> bool:
    """A no_effect in a met state of the plain layout: within the share, not a failure alone."""
    return o.error_kind == "no_effect" and o.spec is not None and o.spec.effect == "share"


def verdict(
    name: str, outcomes: list[ScenarioOutcome], required: int, expected: str
) -> ActionValidation:
    """One verdict from the scenario outcomes: fatal errors and no_action first, then the
    share of effects, then any other failure, in scenario order."""
    share = [
        o
        for o in outcomes
        if o.spec is not None and o.spec.precondition == "met" and o.spec.effect == "share"
    ]
    failed = [o for o in outcomes if not o.ok]
    first = next((o for o in failed if o.error_kind in FATAL or o.error_kind == "no_action"), None)
    effects = sum(1 for o in share if o.effect)
    missed = next((o for o in share if not o.effect), None)  # none: cut short before the rest
    if first is None and missed is not None and effects < required:
        first = missed
        detail = "; ".join(o.message for o in share if not o.effect)
        message = (
            f"its effect happened in {effects} of {len(share)} scenarios where its "
            f"precondition held, needs {required}: {detail}"
        )
        return ActionValidation(
            name=name, ok=False, error_kind="no_effect", message=message, trace=first.trace,
            expected_effect=expected, scenarios=outcomes,
        )  # fmt: skip
    first = first or next((o for o in failed if not tolerated(o)), None)
    if first is None:
        return ActionValidation(name=name, ok=True, expected_effect=expected, scenarios=outcomes)
    return ActionValidation(
        name=name, ok=False, error_kind=first.error_kind, message=first.message,
        trace=first.trace, expected_effect=expected, scenarios=outcomes,
    )  # fmt: skip
