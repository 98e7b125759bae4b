"""Navigation for coded actions: paths over the view and its memory, walking, mining through
what the pickaxe allows, exploring toward unseen cells, standing by stations; and `guard`, which
every walk uses to fight back."""

from __future__ import annotations

from collections import deque
from collections.abc import Generator
from typing import Any

from rlgpt.sandbox.plans import Plan, walk_stretch

from .known import UNSUITED, edge_known, route_known
from .plan import STILL, Act, ahead_plan, ahead_steps, cell_at, follow_steps, plan, plan_taken
from .view import MOVES, WALKABLE, ObsView

# what a skill yields (an action name, or a plan of several: plan.py); a plan's `yield`
# returns how many of its steps were taken
Action = Generator[str | Plan, int | None, Any]
MINING_HITS = 3  # hits on a cell in the way that does not break before the walk gives up


def _walk(view: ObsView, goals: set[tuple[int, int]]) -> list[tuple[int, int]] | None:
    """Shortest walkable path (unit steps) from the player onto any of `goals`, or None."""
    r = view.radius
    start = (0, 0)
    prev: dict[tuple[int, int], tuple[int, int] | None] = {start: None}
    queue = deque([start])
    while queue:
        cur = queue.popleft()
        if cur in goals:
            steps: list[tuple[int, int]] = []
            while prev[cur] is not None:
                p = prev[cur]
                assert p is not None
                steps.append((cur[0] - p[0], cur[1] - p[1]))
                cur = p
            return steps[::-1]
        for ox, oy in MOVES:
            nxt = (cur[0] + ox, cur[1] + oy)
            if nxt in prev or abs(nxt[0]) > r or abs(nxt[1]) > r:
                continue
            if view.at(*nxt) in WALKABLE:
                prev[nxt] = cur
                queue.append(nxt)
    return None


def path_to(view: ObsView, targets: set[tuple[int, int]]) -> list[tuple[int, int]] | None:
    """Shortest walkable path (a list of unit steps (dx, dy); MOVES[step] is the action) from
    the player to a cell next to any of `targets`, or None. A plain function, not a generator."""
    return _walk(view, {(tx + ox, ty + oy) for tx, ty in targets for ox, oy in MOVES})


def approach(view: ObsView, name: str) -> Action:
    """Walk next to the nearest reachable `name` (a material or creature) and face it; returns
    True when facing it, False when none is visible or reachable. A generator: use it as
    `reached = yield from approach(view, "tree")`."""
    while view.facing_name != name:
        targets = set(view.cells(name))
        if not targets:
            return False
        adjacent = [t for t in targets if abs(t[0]) + abs(t[1]) == 1]
        if adjacent:
            yield MOVES[adjacent[0]]  # blocked target: this only turns the player
            continue
        path = path_to(view, targets)
        if not path:
            return False
        if name not in ("zombie", "skeleton") and (yield from guard(view)):
            continue
        yield MOVES[path[0]]
    return True


def route(
    view: ObsView, goals: set[tuple[int, int]], dig: tuple[str, ...] = ()
) -> list[tuple[int, int]] | None:
    """Cheapest path (unit steps (dx, dy)) from the player onto any of `goals`, over cells seen
    this episode (view.remembered_at): walkable ones, and `dig` materials (e.g. ("stone",) with
    a pickaxe), which cost 2 as they are mined on the way. Never through lava. None when no
    goal is reachable. A plain function, not a generator."""
    dig = tuple(d for d in dig if d != "lava")
    fast = route_known(view, goals, dig)
    if fast is not UNSUITED:
        return fast
    dist: dict[tuple[int, int], int] = {(0, 0): 0}
    prev: dict[tuple[int, int], tuple[int, int]] = {}
    buckets: list[list[tuple[int, int]]] = [[(0, 0)]]
    cost = 0
    while cost < len(buckets):
        for cur in buckets[cost]:
            if dist[cur] != cost:
                continue
            if cur in goals:
                steps = []
                while cur in prev:
                    p = prev[cur]
                    steps.append((cur[0] - p[0], cur[1] - p[1]))
                    cur = p
                return steps[::-1]
            for ox, oy in MOVES:
                nxt = (cur[0] + ox, cur[1] + oy)
                name = view.remembered_at(*nxt)
                step = 1 if name in WALKABLE else 2 if name in dig else 0
                if not step or dist.get(nxt, 1 << 30) <= cost + step:
                    continue
                dist[nxt], prev[nxt] = cost + step, cur
                while len(buckets) <= cost + step:
                    buckets.append([])
                buckets[cost + step].append(nxt)
        cost += 1
    return None


def _follow(
    view: ObsView, path: list[tuple[int, int]], dig: tuple[str, ...], then: Act | None = None
) -> Action:
    """Walk `path`, mining `dig` cells in the way; returns True when at its end, False when
    something unexpected blocks it (a creature, a changed cell). One step at a time, it
    fights what is next to the player (guard) before each cell, faces a cell to mine and hits
    it until it is free (after MINING_HITS hits that left it standing, no tool breaks it: the
    way is blocked), and steps onto a free cell. What the map foretells of that goes as
    one plan (follow_steps): the host stops it where a step at a time would look again (a
    foe next to the player, a cell not free when the next move comes, a step that did not
    move), and the walk goes on from there as it would have, so it takes the same steps
    either way. With `then`, a plan that reaches the path's end and mines nothing goes on
    with its act (`then.taken` says how far)."""
    i, fight, hits = 0, True, 0
    while i < len(path):
        if fight and (yield from guard(view)):
            return False  # it fought: the way may have changed
        fight = True
        start = view.position
        steps, marks = follow_steps(view, path[i:], dig)
        if not steps:
            return False  # neither free nor to be mined
        act = None
        if (
            then is not None
            and marks[-1] == (len(path) - i - 1, "move")
            and all(kind != "do" for _, kind in marks)  # (a mined ore may raise its end)
        ):
            act = then.steps(view, steps)
        if act is not None and then is not None:
            sent = yield Plan(act, then.ends)
            taken = sent if isinstance(sent, int) else 0
            then.taken = max(0, taken - len(steps))
            if then.taken:
                return True  # at the path's end (its last step met what it expected)
        elif len(steps) == 1:
            yield steps[0].action
            taken = 1
        else:
            sent = yield Plan(steps)
            taken = sent if isinstance(sent, int) else 0
        if not taken:  # driven by a loop that dropped what `yield` returned: as far as it got
            taken = plan_taken(view, start, path[i:], marks)
        j, kind = marks[min(taken, len(steps)) - 1]
        if kind != "move":  # in the middle of mining cell j: no fight before it goes on
            hits = hits + 1 if (kind == "do" and j == 0) else int(kind == "do")
            if hits > MINING_HITS:  # it does not break (no tool for it): the way is blocked
                return False
            i, fight = i + j, False
            continue
        hits = 0
        i += j + 1
        if view.position != cell_at(start, path[i - j - 1 : i]):
            return False  # a creature stepped in, or the view has no position
    return True


def follow_path(view: ObsView, path: list[tuple[int, int]], dig: tuple[str, ...] = ()) -> Action:
    """Walk a path of unit steps (as `route` returns), mining `dig` cells in the way and
    fighting what attacks; returns True at its end, False when something blocks it. A
    generator: `arrived = yield from follow_path(view, route(view, {(3, 0)}))`."""
    return (yield from _follow(view, path, dig))


def go_to(view: ObsView, name: str, dig: tuple[str, ...] = ()) -> Action:
    """Walk next to the nearest `name` seen this episode (in view or remembered: a table left
    behind, water passed on the way) and face it, mining through `dig` materials (e.g.
    ("stone",) once a wood pickaxe is held). Returns True when facing it, False when none was
    seen or none is reachable. A generator: `ok = yield from go_to(view, "table", ("stone",))`."""
    facing, _ = yield from _go_to(view, name, dig)
    return facing


def _go_to(
    view: ObsView,
    name: str,
    dig: tuple[str, ...],
    act: tuple[str, str | None, int | None] | None = None,
) -> Generator[str | Plan, int | None, tuple[bool, bool]]:
    """go_to; with `act` (an action, the achievement that ends the call and its count when
    act_at began), its last walk goes on with the turn and the action in the same plan where
    the map foretells them, unless that achievement rose on the way (mining through an ore:
    act_at then does not act). Returns (facing it, acted)."""
    rounds = 0
    while rounds < 4:  # re-plans when a creature or a change blocks the way
        rounds += 1
        if view.facing_name == name:
            return True, False
        adjacent = [d for d in MOVES if view.at(*d) == name]
        if act is not None and _risen(view, act[1], act[2]):
            act = None
        if adjacent and act is not None and name in STILL:  # the turn, then the action
            sent = yield Act(name, act, True).turn(adjacent[0])
            if isinstance(sent, int) and sent > 1:
                return True, True
            continue
        if adjacent:
            yield MOVES[adjacent[0]]  # a blocked target: this only turns
            continue
        targets = view.cells(name) or view.remembered(name)
        goals = {(tx + ox, ty + oy) for tx, ty in targets[:64] for ox, oy in MOVES}
        path = route(view, goals, dig)
        if not path:
            return False, False
        # the turn would come in the next round, the action after this loop's checks
        then = None if act is None else Act(name, act, rounds <= 3)
        yield from _follow(view, path, dig, then)
        if then is not None and then.taken:
            if then.taken >= then.length:
                return True, True  # it acted, as the action after this loop would have
            rounds += 1  # it turned, as the next round would have
    return view.facing_name == name, False


def act_at(
    view: ObsView, name: str, action: str = "do", dig: tuple[str, ...] = (), ends: str | None = None
) -> Action:
    """go_to `name`, then (unless `guard` fought) take `action` on it: `yield from
    go_to(...)` and `yield plan(view, [action], ends=ends)` in one, the walk, the turn and the
    action taken as one plan where the map shows what the player will face (a tree, water,
    stone, an ore: never a creature, nor a table an arrow may break). With `ends` (an
    achievement), the call ends right after the step that raises it, as with `plan`, and no
    action is taken when it rose on the way (an ore mined). Returns True when it acted,
    fought or saw `ends` rise, False when none was seen or none is reachable. A generator:
    `if not (yield from act_at(view, "tree", "do", ends="collect_wood")): yield from
    explore(view)`."""
    plan(view, [action], ends=ends)  # its arguments checked before any step
    base = None if ends is None else view.achievements[ends]
    facing, acted = yield from _go_to(view, name, dig, (action, ends, base))
    if acted or not facing:
        return facing
    if _risen(view, ends, base):
        return True  # mining on the way raised it: the caller's loop ends
    if not (yield from guard(view)):
        yield plan(view, [action], ends=ends)
    return True


def _risen(view: ObsView, ends: str | None, base: int | None) -> bool:
    return ends is not None and view.achievements[ends] != base


def explore(
    view: ObsView, steps: int = 8, dig: tuple[str, ...] = (), prefer: tuple[str, ...] = ()
) -> Action:
    """Walk up to `steps` cells toward the nearest place not yet seen this episode (through
    `dig` materials too, mining them); with `prefer` (e.g. ("stone", "path") to search the
    mountains, where coal, iron and diamonds lie and zombies do not spawn), toward unseen
    places beside those materials when there are any. Without a memory, straight ahead,
    turning to the open direction that leads farthest when blocked. Always yields at least one
    action when steps > 0. A generator: use it as `yield from explore(view, 8)`."""
    frontier = _frontier(view, dig, prefer)
    if frontier:
        done = yield from _follow(view, frontier[:steps], dig)
        if done:
            return None
    left = steps if not frontier else 1
    while left > 0:
        # straight on while the way is open, else onto the open way that leads farthest
        # (and on that way after it, as the next round would): one plan
        way = view.facing if view.at(*view.facing) in WALKABLE else _farthest(view)
        if way is None:  # only the way back is open, or nothing: turn (always yield)
            left -= 1
            back = (-view.facing[0], -view.facing[1])
            yield MOVES[back if view.at(*back) in WALKABLE else (view.facing[1], -view.facing[0])]
            continue
        ahead = [way] * left  # on into unseen cells: each step checks the next
        ahead = ahead[: max(1, ahead_steps(view, ahead))]
        taken, _ = yield from walk_stretch(
            lambda moves: ahead_plan(view, moves), ahead, MOVES, view.position,
            lambda: view.position,
        )  # fmt: skip
        left -= taken
    return None


def _farthest(view: ObsView) -> tuple[int, int] | None:
    """The open direction (not back) that leads farthest in view, None when there is none."""
    best, reach = None, 0
    for d in MOVES:
        n = 0
        while n < view.radius and view.at(d[0] * (n + 1), d[1] * (n + 1)) in WALKABLE:
            n += 1
        if n > reach and d != (-view.facing[0], -view.facing[1]):
            best, reach = d, n
    return best


def _frontier(
    view: ObsView, dig: tuple[str, ...], prefer: tuple[str, ...] = ()
) -> list[tuple[int, int]] | None:
    """A path to the nearest seen cell that borders an unseen one (None without memory); with
    `prefer`, to the nearest such cell of those materials or next to one, if any."""
    r = view.radius
    if all(view.remembered_at(ox * (r + 1), oy * (r + 1)) == "none" for ox, oy in MOVES):
        return None  # no memory (or a world no larger than the view)
    edge = edge_known(view, dig, prefer)
    if edge is not UNSUITED:
        return route(view, edge, dig) if edge else None
    edge = {
        (x, y)
        for x in range(-4 * r, 4 * r + 1)
        for y in range(-4 * r, 4 * r + 1)
        if max(abs(x), abs(y)) > 1
        and view.remembered_at(x, y) in WALKABLE + tuple(dig)
        and any(view.remembered_at(x + ox, y + oy) == "unknown" for ox, oy in MOVES)
    }
    if prefer:
        liked = {
            (x, y)
            for x, y in edge
            if any(view.remembered_at(x + ox, y + oy) in prefer for ox, oy in ((0, 0), *MOVES))
        }
        edge = liked or edge
    return route(view, edge, dig) if edge else None


def face_free(
    view: ObsView, kinds: tuple[str, ...] = WALKABLE, near: tuple[str, ...] = ()
) -> Action:
    """Face an adjacent cell of one of `kinds` (moving toward a walkable one steps onto it, so
    the player then faces the cell beyond); with `near` (e.g. ("table",)), prefers a step that
    keeps the player within one cell of each of them. Explores 2 steps when none is adjacent.
    Returns True when it found one. A generator: `ok = yield from face_free(view, ("grass",))`."""
    groups = [view.cells(n) for n in near]
    fallback = None
    for d, move in MOVES.items():
        if view.at(*d) in kinds and view.at(*d) != "none":
            if view.facing == d:
                return True
            if view.at(*d) in WALKABLE and not all(_within_one(d, g) for g in groups):
                fallback = fallback or move  # stepping there leaves the stations behind
                continue
            yield move  # a walkable cell: the player steps onto it
            return True
    if fallback is not None:
        yield fallback
        return True
    yield from explore(view, 2)
    return False


def _within_one(cell: tuple[int, int], spots: list[tuple[int, int]]) -> bool:
    return any(max(abs(cell[0] - x), abs(cell[1] - y)) <= 1 for x, y in spots)


def stand_near(view: ObsView, names: tuple[str, ...], dig: tuple[str, ...] = ()) -> Action:
    """Walk to a cell within one cell (diagonals count) of one of each of `names`, as making
    an item needs (e.g. ("table", "furnace")); one seen earlier this episode and out of view
    now is walked back to (mining through `dig`). Returns True when there, False when one was
    never seen or no such cell is reachable. A generator: use it as
    `near = yield from stand_near(view, ("table",))`."""
    for _ in range(len(names) + 2):
        groups = [view.cells(name) for name in names]
        missing = [n for n, g in zip(names, groups, strict=True) if not g]
        if not missing:
            break
        if not (yield from go_to(view, missing[0], dig)):
            return False
    while True:
        groups = [view.cells(name) for name in names]
        if not all(groups):
            return False
        if all(_within_one((0, 0), g) for g in groups):
            return True
        r = view.radius
        spots = {
            (x, y)
            for x in range(-r, r + 1)
            for y in range(-r, r + 1)
            if view.at(x, y) in WALKABLE and all(_within_one((x, y), g) for g in groups)
        }
        path = _walk(view, spots)
        if not path:
            return False
        if not (yield from guard(view)):
            yield MOVES[path[0]]


def guard(view: ObsView) -> Action:
    """If a zombie or skeleton is next to the player, face it and hit it until it is gone.
    Returns True if it fought. A generator: `if (yield from guard(view)): continue`."""
    fought = False
    for _ in range(30):
        foes = [d for d in MOVES if view.at(*d) in ("zombie", "skeleton")]
        if not foes:
            break
        fought = True
        yield "do" if view.facing == foes[0] else MOVES[foes[0]]
    return fought
