"""Plans for coded actions: several steps handed to the host at once (rlgpt/sandbox/plans.py),
each expecting what the map predicts now, so a walk costs one call to the worker, not one a
step. `plan` makes one; `PlanChecks` is the host's judge of its steps (it runs in the trusted
process, on a view of its own fed the same states)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rlgpt.sandbox.plans import (
    MAX_STEPS,
    Plan,
    Step,
    faced,
    free_stretch,
    lost,
    plan_args,
    predict,
    steps_of,
)

from .night import DAWN, DUSK, _sealed
from .view import MOVES, WALKABLE, ObsView, SkillAPIError

_DIRECTIONS = {name: d for d, name in MOVES.items()}
HOSTILE = ("zombie", "skeleton")  # within reach when next to the player: they hit there
# what the checks read of a state (the inventory is read from the state itself); the rest only
# for a step that names conditions
_STATE_KEYS = ("local", "facing", "pos", "daylight")
_ALL_KEYS = (*_STATE_KEYS, "inventory", "achievements")


def plan(
    view: ObsView, actions: list[str], holds: tuple[str, ...] = (), ends: str | None = None
) -> Plan:
    """Several actions (at most 64) that the runtime takes in turn without running this code
    between them: `taken = yield plan(view, ["move_left", "move_left", "move_up"])`. Each
    step expects what the map predicts now: a move onto a free cell (walkable and empty, as seen or
    remembered) takes the player there, and that cell must still be free when the step
    comes; a move toward anything else only turns the player; other actions leave the player
    where it is. `holds` names conditions that must stay true after every step (PLAN_HOLDS).
    The runtime stops after the first step that did not go as predicted, or that lost an item
    or health, or that left a zombie or skeleton next to the player; `taken` is the number of
    steps taken, and the view shows the state after the last. An achievement or an item
    gained does not stop it: plan the steps up to an effect, not past it. Use it for steps
    computed at once (a path: follow_path does), not for steps that react to what happens. With
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
    """The player could walk onto (dx, dy) as far as the map shows or remembers it."""
    return view.remembered_at(dx, dy) in WALKABLE


def facing_plan(view: ObsView, action: str, name: str, n: int, holds: tuple[str, ...] = ()) -> Plan:
    """The plan of up to `n` `action` on the `name` in front of the player, each step
    expecting it still in front after it: what a loop `while view.facing_name == name: yield
    action` checks before each step (an arrow flying over the water, a cow that walked off)."""
    steps = steps_of(plan(view, [action] * min(n, MAX_STEPS), holds))
    return Plan(s._replace(faces=name) for s in steps)


def hits_plan(view: ObsView, name: str, n: int) -> Plan:
    """The plan of up to `n` "do" on the `name` in front of the player, each expecting it still
    in front and no achievement risen (its end: the one that eats it)."""
    return facing_plan(view, "do", name, n, ("no_new_achievement",))


Mark = tuple[int, str]  # a walk's step: the index of its cell in the path, and "turn", "do", "move"


def follow_steps(
    view: ObsView, path: list[tuple[int, int]], dig: tuple[str, ...]
) -> tuple[list[Step], list[Mark]]:
    """The steps a walk of `path` (unit steps from the player) takes as `follow_path` chooses
    them, as far as the map foretells them: a `dig` cell (never lava) is faced (a move toward
    it only turns), mined ("do": the cell must be free after it) and stepped onto; a free
    cell is stepped onto (the step before must leave it free). The first cell is read as
    the player sees it now; it stops before a cell that is neither, and at MAX_STEPS."""
    steps: list[Step] = []
    marks: list[Mark] = []
    x = y = 0
    facing = view.facing
    for j, d in enumerate(path):
        name = view.at(*d) if j == 0 else view.remembered_at(x + d[0], y + d[1])
        if name in dig and name != "lava":
            if len(steps) + 2 + (facing != d) > MAX_STEPS:
                break
            if facing != d:
                steps.append(Step(MOVES[d], (x, y), d))
                marks.append((j, "turn"))
            steps.append(Step("do", (x, y), d, d))
            marks.append((j, "do"))
        elif name in WALKABLE and len(steps) < MAX_STEPS:
            if steps:
                steps[-1] = steps[-1]._replace(free=d)
        else:
            break
        x, y, facing = x + d[0], y + d[1], d
        steps.append(Step(MOVES[d], (x, y), d))
        marks.append((j, "move"))
    return steps, marks


def cell_at(start: tuple[int, int], steps: list[tuple[int, int]]) -> tuple[int, int]:
    """The cell `steps` (unit steps) lead to from `start`."""
    x, y = start
    for dx, dy in steps:
        x, y = x + dx, y + dy
    return x, y


def plan_taken(
    view: ObsView, start: tuple[int, int], path: list[tuple[int, int]], marks: list[Mark]
) -> int:
    """How many steps of a walk's plan a player now at its position took (the last move
    onto a cell of the path where it stands; 1 when it stands on none)."""
    taken = 1
    for n, (j, kind) in enumerate(marks, 1):
        if kind == "move" and view.position == cell_at(start, path[: j + 1]):
            taken = n
    return taken


def _open(view: ObsView, dx: int, dy: int) -> bool:
    """Free as far as the map shows, or never seen: a cell a straight walk may go on into,
    as the step before it checks that it is free once it is in view."""
    return view.remembered_at(dx, dy) in (*WALKABLE, "unknown")


def ahead_plan(view: ObsView, moves: list[str]) -> Plan:
    """The plan of a straight walk (`moves`, all one way) into cells free or never seen: each
    step expects the player to move, and the next cell to be free."""
    return predict(moves, view.facing, _DIRECTIONS, lambda x, y: _open(view, x, y))


def ahead_steps(view: ObsView, path: list[tuple[int, int]]) -> int:
    """How many steps of a straight `path` go onto cells free or never seen (ahead_plan)."""
    return free_stretch(path, lambda x, y: _open(view, x, y))


class Act:
    """What a walk to `name` goes on with in the same plan, where the map foretells it: the turn
    toward `name` that go_to's next round would take, and `action` on it (act_at). `taken`:
    how many of those steps were taken."""

    def __init__(self, name: str, act: tuple[str, str | None, int | None], may_turn: bool) -> None:
        # act: the action, the achievement that ends the call, its count when act_at began
        self.name, (self.action, self.ends, self._base) = name, act
        self.may_turn = may_turn
        self.taken = self.length = 0  # steps of the act taken, and planned (the turn, the act)

    def steps(self, view: ObsView, walk: list[Step]) -> list[Step] | None:
        """`walk` (a plan's steps onto the path's last cell) and then the act, or None when
        what the player will face there is not foretold (creatures, unseen cells)."""
        end = walk[-1].at
        facing = walk[-1].facing
        if self.name not in STILL or end is None or facing is None or len(walk) + 2 > MAX_STEPS:
            return None
        if self.ends is not None and view.achievements[self.ends] != self._base:
            return None  # it rose on the way (an ore mined): act_at does not act
        around = {d: view.remembered_at(end[0] + d[0], end[1] + d[1]) for d in MOVES}
        if around[facing] == self.name:  # it faces it on arrival
            self.length = 1
            return [*walk[:-1], walk[-1]._replace(faces=self.name), Step(self.action, end, facing)]
        # go_to turns to the first neighbour (in MOVES' order) that is it: every one before it
        # must be known not to be it; the one faced on arrival, unseen now, is checked then
        turn = next((d for d in MOVES if d != facing and around[d] in (self.name, "unknown")), None)
        if turn is None or around[turn] != self.name or not self.may_turn:
            return None
        self.length = 2  # a move toward it only turns the player (go_to's "adjacent" branch)
        last = walk[-1]._replace(faces="!" + self.name) if around[facing] == "unknown" else walk[-1]
        return [*walk[:-1], last, *self._turn_steps(end, turn)]

    def turn(self, d: tuple[int, int]) -> Plan:
        """The plan of the turn toward `name` next to the player (at `d`), then the act."""
        return Plan(self._turn_steps((0, 0), d), self.ends)

    def _turn_steps(self, at: tuple[int, int], d: tuple[int, int]) -> list[Step]:
        return [Step(MOVES[d], at, d, None, (), self.name), Step(self.action, at, d)]


# what only the player changes and nothing brings about (not a table or furnace: an arrow
# breaks them), so the map foretells which neighbour go_to turns to
STILL = frozenset({"tree", "water", "stone", "coal", "iron", "diamond"})


Begun = dict[str, dict[str, int]]  # the inventory and achievements when the plan began
# What a plan step may require to hold after it (`holds`), read on the host's view.
PLAN_CONDITIONS: dict[str, Callable[[ObsView, Begun], bool]] = {
    "walled_in": lambda view, begun: bool(_sealed(view)),
    "before_dawn": lambda view, begun: view.daylight < DAWN,
    "before_dusk": lambda view, begun: view.daylight >= DUSK,
    "after_dusk": lambda view, begun: view.daylight < DUSK,
    "tired": lambda view, begun: view.inventory["energy"] < 9,
    "rested": lambda view, begun: view.inventory["energy"] >= 9,
    "unhurt": lambda view, begun: view.inventory["health"] >= begun["inventory"]["health"],
    "no_new_achievement": lambda view, begun: view.achievements == begun["achievements"],
    "no_zombie_in_view": lambda view, begun: not view.cells("zombie"),
}
PLAN_HOLDS = tuple(PLAN_CONDITIONS)


class PlanChecks:
    """Crafter's judge of a plan's steps on the host (rlgpt/sandbox/stepping.py): a view of
    its own, fed the states the worker's view gets (its window, not its memory), and the
    same code reading it. A step must meet its `at`, `facing`, `free`, `faces` and `holds`; and
    whatever it expects, it must leave no zombie or skeleton next to the player (where they
    hit, and where `guard` would fight) and lose no item, nor a vital by more than 1 (a hit,
    not hunger)."""

    def __init__(self, **view: Any) -> None:
        self._view = ObsView(**view)
        self._origin = (0, 0)
        self._before: dict[str, int] = {}
        self._begun: Begun = {"inventory": {}, "achievements": {}}

    def _take(self, state: dict[str, Any], keys: tuple[str, ...] = _STATE_KEYS) -> None:
        self._view.update({k: state[k] for k in keys if k in state})

    def begin(self, state: dict[str, Any]) -> None:
        self._take(state, _ALL_KEYS)
        self._origin = self._view.position
        self._before = dict(self._view.inventory)
        self._begun = {"inventory": self._before, "achievements": dict(self._view.achievements)}

    def met(self, step: Step, state: dict[str, Any]) -> bool:
        self._take(state, _ALL_KEYS if step.holds else _STATE_KEYS)
        view, before = self._view, self._before
        self._before = after = state.get("inventory", before)
        x, y = view.position
        if step.at is not None and (x - self._origin[0], y - self._origin[1]) != step.at:
            return False
        if step.facing is not None and view.facing != step.facing:
            return False
        if step.free is not None and view.at(*step.free) not in WALKABLE:
            return False
        if step.faces is not None and not faced(view.facing_name, step.faces):
            return False
        if any(view.at(*d) in HOSTILE for d in MOVES) or lost(before, after, view.vitals):
            return False
        return all(PLAN_CONDITIONS[name](view, self._begun) for name in step.holds)
