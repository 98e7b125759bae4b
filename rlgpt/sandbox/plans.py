"""Plans: a coded action hands the host several primitive steps at once, each with what it must
bring about, so the host steps them without a round trip to the worker per step.

A coded action yields action names, one per game step, and each costs a call to its sandboxed
worker (a round trip: two wake-ups and the worker's step, docs/sandbox.md). Most steps of a
call walk a path its code already computed, so an action may yield a `Plan` instead (made by
its world's skill API, `plan(view, actions)`): up to MAX_STEPS primitives, each a `Step` with
what it expects. The host (rlgpt/sandbox/stepping.py) takes the steps in turn without waking
the worker; it wakes it after the plan's last step, or right after the first step whose
expectation failed. The action's `yield` then returns how many steps were taken, and its view
has seen every step's state in order, as if each had been yielded alone. A yielded action name
stays a plan of one: nothing written before plans changes.

What a step may expect, checked on the state right after it:
- `at`: the player's cell, relative to its cell when the plan began;
- `facing`: the direction the player faces;
- `free`: a cell next to the player (the next move's) that it could walk onto;
- `holds`: names of conditions the world checks (its skill package's PLAN_CONDITIONS);
- `faces`: the name of what the player faces (the cell in front: a tree, water, a table), for
  the step before an act on it (a walk's last move, or the turn toward it); "!" and a name:
  anything but that (a walk's last move, where its next round would turn toward it).
Whatever a plan says, the world also stops it after a step that lost an item, or a vital
beyond its drift, or that left a hostile within reach (its `PlanChecks`): a worker can add
expectations, never remove one. Budgets, the runtime's unsafe-step check, validation's
judgement and the CPU limits see one primitive step at a time, as before.

A plan may also say that an achievement's rise ends the call (`ends`): for an action's last
act ("do" at a tree, "make_wood_pickaxe"), after which its code would only see the effect and
return. The host ends the call right after the step that raised it, without the round trip
that would only have heard "done"; the action's suspended code is closed (its `finally` run)
at the worker's next request.

Both sides use this module: the worker encodes what its actions yield (`reply`, after
`problem` found nothing wrong), and the host parses a worker's plan as hostile bytes (`parse`):
its length bounded, every field typed and bounded, unknown fields refused, so a plan can make
the host do no more work than the steps it holds. Standard library only (it runs in the
sandbox root).
"""

from __future__ import annotations

import difflib
import itertools
from collections.abc import Callable, Collection, Generator, Iterable, Mapping
from typing import Any, NamedTuple

MAX_STEPS = 64  # steps in one plan: a long path is walked as several plans
MAX_HOLDS = 4  # conditions one step may name
MAX_NAME = 32  # characters of the name a step expects to face
UNITS = frozenset({(-1, 0), (1, 0), (0, -1), (0, 1)})
Cell = tuple[int, int]


class Step(NamedTuple):
    """One primitive of a plan and what it must bring about (None: not checked)."""

    action: str
    at: Cell | None = None
    facing: Cell | None = None
    free: Cell | None = None
    holds: tuple[str, ...] = ()
    faces: str | None = None


class Plan:
    """What a coded action yields to have several steps taken without a round trip per step.

    Made by a world's skill API (`plan(view, actions)`), which predicts each step's
    expectation from the view. Opaque to the action: `len(plan)` is all it reads."""

    __slots__ = ("_ends", "_steps")

    def __init__(self, steps: Iterable[Step], ends: str | None = None) -> None:
        self._steps = tuple(itertools.islice(steps, MAX_STEPS + 1))
        self._ends = ends

    def __len__(self) -> int:
        return len(self._steps)

    def __repr__(self) -> str:
        return f"<plan of {len(self._steps)} steps>"


def steps_of(plan: Plan) -> tuple[Step, ...]:
    """A plan's steps (for the worker; a coded action only sees the plan's length)."""
    return plan._steps


def predict(
    actions: Iterable[Any], facing: Cell, moves: Mapping[str, Cell],
    free: Callable[[int, int], bool], holds: tuple[str, ...] = (), ends: str | None = None,
) -> Plan:  # fmt: skip
    """The plan of `actions` (at most MAX_STEPS + 1 are read) expecting what a map predicts
    now: a move (`moves`: its name -> its direction) onto a cell where `free(dx, dy)` (cells
    relative to the player's at the start) takes the player there and faces it that way, and
    the step before it must leave that cell free; a move elsewhere only turns the player; any
    other action leaves the player where it is. Every step requires `holds`; the call ends
    after the step that raises achievement `ends`, if one does."""
    x, y = 0, 0
    steps: list[Step] = []
    for action in itertools.islice(actions, MAX_STEPS + 1):
        d = moves.get(action) if isinstance(action, str) else None
        if d is not None:
            facing = d
            if free(x + d[0], y + d[1]):
                if steps:
                    steps[-1] = steps[-1]._replace(free=d)
                x, y = x + d[0], y + d[1]
        steps.append(Step(action, (x, y), facing, None, holds))
    return Plan(steps, ends)


def plan_args(holds: Any, ends: Any, conditions: Collection[str]) -> tuple[str, ...]:
    """The condition names a skill API's `plan` was given in `holds` (a tuple of at most
    MAX_HOLDS of `conditions`), with `ends` an achievement's name or None (the world checks
    it is one); ValueError saying what to write otherwise."""
    names = tuple(itertools.islice(holds, MAX_HOLDS + 1)) if not isinstance(holds, str) else ()
    if (
        len(names) > MAX_HOLDS
        or isinstance(holds, str)
        or not all(isinstance(h, str) and h in conditions for h in names)
    ):
        raise ValueError(
            f"holds takes a tuple of at most {MAX_HOLDS} of these names: " + ", ".join(conditions)
        )
    if ends is not None and not isinstance(ends, str):
        raise ValueError("ends takes the name of an achievement, e.g. 'collect_wood'")
    return names


def walk_stretch(
    plan_of: Callable[[list[str]], Plan],
    stretch: list[Cell],
    moves: Mapping[Cell, str],
    start: Cell,
    position: Callable[[], Cell],
) -> Generator[Any, Any, tuple[int, bool]]:
    """Walk `stretch` (unit steps seen to be free, from `start`): one move alone, more as one
    plan (`plan_of` makes it from the moves' names). Returns how many steps were taken and
    whether the player (`position()`) stands where they lead; a walk goes on from there as
    one step at a time would have. A generator: `taken, there = yield from walk_stretch(...)`."""
    taken = 1
    if len(stretch) == 1:
        yield moves[stretch[0]]
    else:
        sent = yield plan_of([moves[s] for s in stretch])
        # None: driven by a loop that dropped what `yield` returned; the position tells
        taken = sent if isinstance(sent, int) else walked(position(), start, stretch)
    x, y = start
    for dx, dy in stretch[:taken]:
        x, y = x + dx, y + dy
    return taken, position() == (x, y)


def free_stretch(path: list[Cell], free: Callable[[int, int], bool]) -> int:
    """How many steps of `path` (unit steps from the player's cell), from its start, go onto
    cells where `free(dx, dy)`, at most MAX_STEPS: what one plan of a walk can take."""
    x = y = n = 0
    for dx, dy in path[:MAX_STEPS]:
        x, y = x + dx, y + dy
        if not free(x, y):
            break
        n += 1
    return n


def walked(position: Cell, start: Cell, path: list[Cell]) -> int:
    """How many steps of `path` a player now at `position` has walked from `start` (1 when
    it is on none of their cells: the first did not move it). For a walk whose `yield` got
    None (a loop in between dropped it)."""
    x, y = start
    taken = 1
    for n, (dx, dy) in enumerate(path, 1):
        x, y = x + dx, y + dy
        if position == (x, y):
            taken = n
    return taken


def faced(name: str, faces: str) -> bool:
    """Whether the player, facing `name`, faces what a step's `faces` expects."""
    return name != faces[1:] if faces.startswith("!") else name == faces


def problem(plan: Plan, primitives: frozenset[str]) -> str | None:
    """Why the worker must refuse `plan` (an `invalid_action`), or None: empty, too long, or a
    step whose action is not one of the game's."""
    steps = steps_of(plan)
    if not steps:
        return "yielded an empty plan: a plan takes at least one action"
    if len(steps) > MAX_STEPS:
        return (
            f"yielded a plan of more than {MAX_STEPS} steps: walk a long path as several "
            "plans (follow_path does)"
        )
    for i, step in enumerate(steps):
        action = step.action
        faces = step.faces
        if faces is not None and (not isinstance(faces, str) or not 0 < len(faces) <= MAX_NAME):
            return f"yielded a plan whose step {i + 1} faces {repr(faces)[:60]}, not a name"
        if isinstance(action, str) and action in primitives:
            continue
        shown = repr(action)[:60]
        if not isinstance(action, str):
            return (
                f"yielded a plan whose step {i + 1} is {shown} "
                f"({type(action).__name__}), not an action name (a str)"
            )
        near = difflib.get_close_matches(action[:60], sorted(primitives), n=1)
        hint = f"; did you mean {near[0]!r}?" if near else ""
        return f"yielded a plan whose step {i + 1} is {shown}, which is not an action{hint}"
    return None


def reply(plan: Plan) -> dict[str, Any]:
    """The worker's reply with a plan it checked: {"plan": [[action, at, facing, free, holds,
    faces] a step], and "ends": the achievement that ends the call, if the plan says one}."""
    steps = [
        [s.action, _pair(s.at), _pair(s.facing), _pair(s.free), list(s.holds), s.faces]
        for s in steps_of(plan)
    ]
    return {"plan": steps} if plan._ends is None else {"plan": steps, "ends": plan._ends}


def _pair(cell: Cell | None) -> list[int] | None:
    return None if cell is None else [int(cell[0]), int(cell[1])]


class BadPlan(Exception):
    """A worker's plan the host refuses: `kind` is invalid_action (a step that is not an
    action of the game) or crash (anything else: the protocol is broken)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind, self.message = kind, message


def parse(raw: Any, primitives: frozenset[str], conditions: frozenset[str]) -> tuple[Step, ...]:
    """The steps of a plan as a worker sent it, every field checked (BadPlan otherwise)."""
    if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_STEPS:
        raise BadPlan("crash", f"a plan that is not a list of 1 to {MAX_STEPS} steps")
    return tuple(_step(item, primitives, conditions) for item in raw)


def parse_ends(raw: Any) -> str | None:
    """The achievement whose rise ends the call (None: none), as a worker sent it: a name,
    else BadPlan (one the game does not have never rises)."""
    if raw is None:
        return None
    if not isinstance(raw, str) or len(raw) > 64:
        raise BadPlan("crash", "a plan whose end is not an achievement's name")
    return raw


def _step(item: Any, primitives: frozenset[str], conditions: frozenset[str]) -> Step:
    if not isinstance(item, list) or len(item) != 6:
        raise BadPlan("crash", "a plan step that is not [action, at, facing, free, holds, faces]")
    action, at, facing, free, holds, faces = item
    if not isinstance(action, str) or action not in primitives:
        raise BadPlan("invalid_action", "a plan step whose action is not one of the game's")
    if not isinstance(holds, list) or (
        holds  # most steps hold nothing
        and (
            len(holds) > MAX_HOLDS or not all(isinstance(h, str) and h in conditions for h in holds)
        )
    ):
        raise BadPlan("crash", "a plan step naming a condition the world does not check")
    if faces is not None and (not isinstance(faces, str) or not 0 < len(faces) <= MAX_NAME):
        raise BadPlan("crash", "a plan step whose faced cell is not a short name")
    return Step(action, _cell(at, MAX_STEPS), _cell(facing, 1, units=True),
                _cell(free, 1, units=True), tuple(holds), faces)  # fmt: skip


def _cell(value: Any, bound: int, units: bool = False) -> Cell | None:
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != 2:
        raise BadPlan("crash", "a plan step with a cell that is not two small integers")
    x, y = value  # no generator: a plan's every step has three cells to check
    if (
        type(x) is not int
        or type(y) is not int
        or not (-bound <= x <= bound and -bound <= y <= bound)
    ):
        raise BadPlan("crash", "a plan step with a cell that is not two small integers")
    cell = (x, y)
    if units and cell not in UNITS:
        raise BadPlan("crash", "a plan step whose direction is not a unit step")
    return cell


def lost(
    before: Mapping[str, int], after: Mapping[str, int], vitals: Iterable[str], drift: int = 1
) -> bool:
    """Whether a step lost something a plan must not walk on past: an item (not a vital) that
    went down, or a vital that fell by more than its `drift` in one step (a hit, not hunger)."""
    if before == after:  # most steps: nothing changed
        return False
    keep = frozenset(vitals)
    for name, was in before.items():
        now = after.get(name, 0)
        if now < was - (drift if name in keep else 0):
            return True
    return False
