"""Plans for coded actions on full Craftax: several steps handed to the host at once
(rlgpt/sandbox/plans.py), each expecting what the floor predicts now, so a walk costs one call
to the worker, not one a step. `plan` makes one; `PlanChecks` is the host's judge of its steps
(it runs in the trusted process, on a view of its own fed the same states)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rlgpt.sandbox.plans import Plan, Step, faced, free_stretch, lost, plan_args, predict

from .view import HOSTILE, MOVES, WALKABLE, ObsView, SkillAPIError

_DIRECTIONS = {name: d for d, name in MOVES.items()}
# the window, the player and the floor: what the checks read (not the floor's memory)
_STATE_KEYS = ("blocks", "items", "mobs", "facing", "pos", "floor", "kills", "daylight", "sleeping")
_ALL_KEYS = (*_STATE_KEYS, "inventory", "achievements")

# What a plan step may require to hold after it (`holds`), read on the host's view; the
# inventory and achievements when the plan began are the second argument.
Begun = dict[str, dict[str, int]]
PLAN_CONDITIONS: dict[str, Callable[[ObsView, Begun], bool]] = {
    "unhurt": lambda view, begun: view.vitals["health"] >= begun["inventory"]["health"],
    "no_new_achievement": lambda view, begun: view.achievements == begun["achievements"],
}
PLAN_HOLDS = tuple(PLAN_CONDITIONS)


def plan(
    view: ObsView, actions: list[str], holds: tuple[str, ...] = (), ends: str | None = None
) -> Plan:
    """Several actions (at most 64) that the runtime takes in turn without running this code
    between them: `taken = yield plan(view, ["move_left", "move_left", "move_up"])`. Each
    step expects what the floor predicts now: a move onto free ground (walkable, no mob, as seen or
    remembered) takes the player there, and that cell must still be free when the step
    comes; a move toward anything else only turns the player; other actions leave the player
    where it is. `holds` names conditions that must stay true after every step (PLAN_HOLDS).
    The runtime stops after the first step that did not go as predicted, or that lost an item
    or health, or that left a monster next to the player, or that defeated one, or that
    changed floor; `taken` is the number of steps taken, and the view shows the state after
    the last. An item gained does not stop it: plan the steps up to an effect, not past it.
    Use it for steps computed at once (a path: follow_path does), not to react. With
    `ends` (an achievement), the call ends right after the step that raises it, and this code
    does not run again: for an action's last act, after which it would return (`yield
    plan(view, ["do"], ends="collect_wood")`)."""
    try:
        names = plan_args(holds, ends, PLAN_CONDITIONS)
    except ValueError as exc:
        raise SkillAPIError(str(exc)) from None
    if ends is not None:
        view.achievements[ends]  # an unknown name raises, saying which there are
    free = lambda x, y: _free(view, x, y)  # noqa: E731
    return predict(actions, view.facing, _DIRECTIONS, free, names, ends)


def _free(view: ObsView, dx: int, dy: int) -> bool:
    """Free ground at (dx, dy) as far as the floor shows or remembers it (no mob in view)."""
    return view.remembered_at(dx, dy) in WALKABLE and view.mob_at(dx, dy) == "none"


def walk_steps(view: ObsView, path: list[tuple[int, int]]) -> int:
    """How many steps of `path` (unit steps), from its start, cross free ground as seen or
    remembered now, at most 64: the part of a walk one plan can take."""
    return free_stretch(path, lambda x, y: _free(view, x, y))


def _defeats(achievements: dict[str, int]) -> int:
    return sum(n for name, n in achievements.items() if name.startswith("defeat_"))


class PlanChecks:
    """Full Craftax's judge of a plan's steps on the host (rlgpt/sandbox/stepping.py): a view
    of its own, fed the states the worker's view gets (its window, not the floor's memory),
    and the same code reading it. A step must meet its `at`, `facing`, `free` (no mob on it,
    walkable or dark ground, as follow_path walks on), `faces` and `holds`; whatever it expects, it
    must leave no monster next to the player (where `guard` fights), stay on its floor,
    defeat no monster (`until_defeat` stops there) and lose no item, nor a vital by more
    than 1."""

    def __init__(self, **view: Any) -> None:
        self._view = ObsView(**view)
        self._origin, self._floor, self._defeats = (0, 0), 0, 0
        self._before: dict[str, int] = {}
        self._begun: Begun = {"inventory": {}, "achievements": {}}

    def _take(self, state: dict[str, Any], keys: tuple[str, ...] = _STATE_KEYS) -> None:
        self._view.update({k: state[k] for k in keys if k in state})

    def begin(self, state: dict[str, Any]) -> None:
        self._take(state, _ALL_KEYS)
        view = self._view
        self._origin, self._floor = view.position, view.floor
        self._defeats = _defeats(state.get("achievements", {}))
        self._before = dict(view.inventory)
        self._begun = {"inventory": self._before, "achievements": dict(view.achievements)}

    def met(self, step: Step, state: dict[str, Any]) -> bool:
        self._take(state, _ALL_KEYS if step.holds else _STATE_KEYS)
        view, before = self._view, self._before
        self._before = after = state.get("inventory", before)
        x, y = view.position
        if view.floor != self._floor or _defeats(state.get("achievements", {})) != self._defeats:
            return False
        if step.at is not None and (x - self._origin[0], y - self._origin[1]) != step.at:
            return False
        if step.facing is not None and view.facing != step.facing:
            return False
        if step.free is not None and not (
            view.mob_at(*step.free) == "none" and view.block_at(*step.free) in (*WALKABLE, "dark")
        ):
            return False
        if step.faces is not None and not faced(view.facing_name, step.faces):
            return False
        if any(view.kind_of(view.mob_at(*d)) in HOSTILE for d in MOVES):
            return False
        if lost(before, after, view.vitals):
            return False
        return all(PLAN_CONDITIONS[name](view, self._begun) for name in step.holds)
