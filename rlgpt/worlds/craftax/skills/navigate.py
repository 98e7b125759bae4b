"""Navigation on a floor: paths over the lit window and the floor's memory, walking, mining
through what the pickaxe allows, exploring toward unseen cells, standing by stations or on a
ladder; and `guard`, with which every walk fights back."""

from __future__ import annotations

from collections import deque
from collections.abc import Generator
from typing import Any

from rlgpt.sandbox.plans import Plan, walk_stretch

from .plan import plan, walk_steps
from .view import HOSTILE, MOVES, WALKABLE, ObsView

# what a skill yields (an action name, or a plan of several: plan.py); a plan's `yield`
# returns how many of its steps were taken
Action = Generator[str | Plan, int | None, Any]
Cell = tuple[int, int]
# block -> the pickaxe level that mines it into a path (craftax's do_action); trees leave
# ground, take no tool, and a path may run through them too
MINEABLE = {"tree": 0, "fire_tree": 0, "ice_shrub": 0, "stone": 1, "stalagmite": 1, "coal": 1,
            "iron": 2, "diamond": 3, "sapphire": 4, "ruby": 4}  # fmt: skip
PICKAXES = ("wood_pickaxe", "stone_pickaxe", "iron_pickaxe", "diamond_pickaxe")


def diggable(view: ObsView) -> tuple[str, ...]:
    """The blocks a path may be mined through with the pickaxe held (never lava, water, a
    table or a furnace: hitting those destroys them)."""
    level = sum(view.inventory[p] for p in PICKAXES)
    return tuple(b for b, need in MINEABLE.items() if need <= level)


def passable(view: ObsView, dx: int, dy: int) -> bool:
    """Walkable ground, with no mob on it where the window shows one."""
    if view.mob_at(dx, dy) not in ("none", "player"):
        return False
    return view.remembered_at(dx, dy) in WALKABLE


def _walk(view: ObsView, goals: set[Cell]) -> list[Cell] | None:
    """Shortest path (unit steps) over the lit window's free ground onto any goal, or None."""
    r, start = view.radius, (0, 0)
    prev: dict[Cell, Cell | None] = {start: None}
    queue = deque([start])
    while queue:
        cur = queue.popleft()
        if cur in goals:
            steps: list[Cell] = []
            while (p := prev[cur]) is not None:
                steps.append((cur[0] - p[0], cur[1] - p[1]))
                cur = p
            return steps[::-1]
        for ox, oy in MOVES:
            nxt = (cur[0] + ox, cur[1] + oy)
            if nxt not in prev and abs(nxt[0]) <= r and abs(nxt[1]) <= r and passable(view, *nxt):
                prev[nxt] = cur
                queue.append(nxt)
    return None


def path_to(view: ObsView, targets: set[Cell]) -> list[Cell] | None:
    """Shortest walkable path (unit steps; MOVES[step] is the action) from the player to a
    cell next to any of `targets`, over the lit window. A plain function, not a generator."""
    return _walk(view, {(tx + ox, ty + oy) for tx, ty in targets for ox, oy in MOVES})


def route(
    view: ObsView, goals: set[Cell], dig: tuple[str, ...] = (), avoid: frozenset[Cell] = frozenset()
) -> list[Cell] | None:
    """Cheapest path (unit steps) from the player onto any of `goals`, over cells seen on
    this floor (view.remembered_at) but `avoid`: walkable ones cost 1, `dig` blocks 2 (mined
    on the way). None when no goal is reachable. A plain function, not a generator."""
    dig = tuple(d for d in dig if d in MINEABLE)
    dist: dict[Cell, int] = {(0, 0): 0}
    prev: dict[Cell, Cell] = {}
    buckets: list[list[Cell]] = [[(0, 0)]]
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
                if not step or nxt in avoid or dist.get(nxt, 1 << 30) <= cost + step:
                    continue
                dist[nxt], prev[nxt] = cost + step, cur
                while len(buckets) <= cost + step:
                    buckets.append([])
                buckets[cost + step].append(nxt)
        cost += 1
    return None


def hostiles(view: ObsView) -> list[tuple[int, int, str]]:
    """(dx, dy, name) of the monsters in view (melee and ranged), nearest first."""
    return [m for m in view.mobs() if view.kind_of(m[2]) in HOSTILE]


def defeats(view: ObsView) -> int:
    """How many monsters the player has defeated this episode (every `defeat_*` counter)."""
    return sum(n for name, n in view.achievements.items() if name.startswith("defeat_"))


def outfought(view: ObsView) -> bool:
    """Below the overworld, health 5 or less with a monster beside the player and the ladder
    up known: time to break off and climb (survival.rest_upstairs), not to trade blows on."""
    beside = any(view.kind_of(view.mob_at(*d)) in HOSTILE for d in MOVES)
    return (
        view.floor > 0 and view.vitals["health"] <= 5 and beside and (view.ladder("up") is not None)
    )


def guard(view: ObsView) -> Action:
    """If a monster (melee or ranged) is next to the player, face it and hit it until it is
    gone; it returns right after a monster is defeated (the kill may be what the caller is
    after), and when the player is outfought (it hits at least once: the caller climbs away).
    Returns True if it fought. A generator: `if (yield from guard(view)): continue`."""
    fought, start = False, defeats(view)
    for _ in range(40):
        foes = [d for d in MOVES if view.kind_of(view.mob_at(*d)) in HOSTILE]
        if not foes or defeats(view) > start or (fought and outfought(view)):
            break
        fought = True
        yield "do" if view.facing == foes[0] else MOVES[foes[0]]
    return fought


def until_defeat(view: ObsView, action: Action) -> Action:
    """Drive `action` (a skill's generator) and stop it right after the player defeats a
    monster: the kill may be what the caller is after, and it looks again. Returns True when
    it stopped so; else what `action` returned, but False when it took no step (so a loop
    that goes round while a skill answers True cannot spin without acting)."""
    start, stepped, sent = defeats(view), False, None
    while True:
        try:
            step = action.send(sent)  # what a plan's `yield` returned reaches the skill
        except StopIteration as done:
            return done.value if stepped else False
        sent = yield step
        stepped = True
        if defeats(view) > start:  # a plan stops at a defeat: this is right after it
            action.close()
            return True


def follow_path(
    view: ObsView, path: list[Cell], dig: tuple[str, ...] = (), *, flee: bool = False
) -> Action:
    """Walk a path of unit steps (as `route` returns), mining `dig` blocks in the way and
    fighting what attacks (with `flee`, walking on: a melee monster, slower than the player,
    falls behind); returns True at its end, False when something blocks it. A generator:
    `arrived = yield from follow_path(view, route(view, {(3, 0)}))`."""
    i = 0
    while i < len(path):
        step = path[i]
        if not flee and (yield from guard(view)):
            return False  # it fought: the way may have changed
        before = view.position
        for _ in range(12):  # a block in the way is mined (a few hits for nothing else)
            if view.block_at(*step) not in dig or view.mob_at(*step) != "none":
                break
            yield MOVES[step] if view.facing != step else "do"
        mob = view.mob_at(*step)
        if mob != "none":  # a cow or a snail in the way: eat through it, fleeing or not (a
            # monster is routed round when fleeing: returning without a step would only find
            # the same way again, and wait on it for good)
            if not flee or view.kind_of(mob) not in HOSTILE:
                yield MOVES[step] if view.facing != step else "do"
            return False
        if view.block_at(*step) not in WALKABLE and view.block_at(*step) != "dark":
            return False
        # free ground seen ahead goes as one plan: the host stops it where a step at a time
        # would look again, and the walk goes on from there as it would have
        stretch = path[i : i + max(1, walk_steps(view, path[i:]))]
        taken, there = yield from walk_stretch(
            lambda moves: plan(view, moves), stretch, MOVES, before, lambda: view.position
        )
        i += taken
        if not there:  # a mob stepped in, or the dark hid a wall
            return False
    return True


def go_to(view: ObsView, name: str, dig: tuple[str, ...] = ()) -> Action:
    """Walk next to the nearest `name` (a block such as "table" or "water", or a mob) seen
    on this floor, in view or remembered, and face it, mining through `dig` blocks. Returns
    True when facing it, False when none was seen or none is reachable. A generator:
    `ok = yield from go_to(view, "table", diggable(view))`."""
    for _ in range(6):  # re-plans when a mob or a change blocks the way
        if view.facing_name == name:
            return True
        adjacent = [d for d in MOVES if view.at(*d) == name]
        if adjacent:
            yield MOVES[adjacent[0]]  # a block or a mob: this only turns the player
            continue
        targets = view.cells(name) or view.remembered(name)
        goals = {(tx + ox, ty + oy) for tx, ty in targets[:64] for ox, oy in MOVES}
        path = route(view, goals, dig)
        if not path:
            return False
        yield from follow_path(view, path, dig)
    return view.facing_name == name


def stand_on(view: ObsView, name: str, dig: tuple[str, ...] = (), *, flee: bool = False) -> Action:
    """Walk onto the nearest cell holding item `name` ("ladder_down", "ladder_up", "torch")
    seen on this floor, mining through `dig` (with `flee`, not stopping to fight). Returns
    True when standing on it. A generator:
    `there = yield from stand_on(view, "ladder_down", diggable(view))`."""
    for _ in range(6):
        if view.standing_on() in (name, f"{name}_blocked"):
            return True
        targets = view.cells(name) or view.remembered(name)
        if name == "ladder_down":
            targets = targets or view.cells("ladder_down_blocked")
        foes = frozenset((m[0], m[1]) for m in hostiles(view)) if flee else frozenset()
        path = route(view, set(targets[:64]), dig, foes)  # fleeing: round the monsters
        if not path:
            return False
        yield from follow_path(view, path, dig, flee=flee)
    return view.standing_on() in (name, f"{name}_blocked")


def approach(view: ObsView, name: str) -> Action:
    """Walk next to the nearest `name` in the lit window (a mob, or a block) and face it;
    returns True when facing it, False when none is seen or reachable. A generator:
    `reached = yield from approach(view, "cow")`."""
    for _ in range(60):
        if view.facing_name == name:
            return True
        targets = set(view.cells(name))
        if not targets:
            return False
        adjacent = [t for t in targets if abs(t[0]) + abs(t[1]) == 1]
        if adjacent:
            yield MOVES[adjacent[0]]  # a block or a mob: this only turns the player
            continue
        path = path_to(view, targets)
        if not path:
            return False
        if view.kind_of(name) not in HOSTILE and (yield from guard(view)):
            continue
        yield MOVES[path[0]]
    return view.facing_name == name


def _frontier(view: ObsView, dig: tuple[str, ...], prefer: tuple[str, ...]) -> list[Cell] | None:
    """A path to the nearest seen walkable cell that borders an unseen one; with `prefer`, to
    such a cell of those blocks or next to one, when there is any."""
    reach = 24
    grid = view._grid(reach + 1)  # remembered_at, read once per cell
    open_ = (*WALKABLE, *dig)
    edge = {
        (x, y)
        for (x, y), name in grid.items()
        if 1 < max(abs(x), abs(y)) <= reach
        and name in open_
        and any(grid[(x + ox, y + oy)] == "unknown" for ox, oy in MOVES)
    }
    if prefer:
        liked = {
            c
            for c in edge
            if any(grid[(c[0] + ox, c[1] + oy)] in prefer for ox, oy in ((0, 0), *MOVES))
        }
        edge = liked or edge
    return route(view, edge, dig) if edge else None


def explore(
    view: ObsView, steps: int = 8, dig: tuple[str, ...] = (), prefer: tuple[str, ...] = ()
) -> Action:
    """Walk up to `steps` cells toward the nearest place not yet seen on this floor (through
    `dig` blocks, mining them); with `prefer` (e.g. ("stone", "path") to search the
    mountains), toward unseen places beside those blocks when there are any. Where nothing
    unseen can be reached (or all around is dark), straight on, turning to the open side.
    Always yields at least one action when steps > 0. A generator: `yield from explore(view)`."""
    path = _frontier(view, dig, prefer)
    if path and (yield from follow_path(view, path[:steps], dig)):
        return None
    for _ in range(steps if not path else 1):
        ahead = view.facing
        if view.block_at(*ahead) in (*WALKABLE, "dark") and view.mob_at(*ahead) == "none":
            before = view.position
            yield MOVES[ahead]
            if view.position != before:
                continue
        options = [d for d in MOVES if d != ahead and passable(view, *d)]
        back = (-ahead[0], -ahead[1])
        sides = [d for d in options if d != back] or options or [(ahead[1], -ahead[0])]
        yield MOVES[sides[(view.position[0] + view.position[1]) % len(sides)]]
    return None


def _within_one(cell: Cell, spots: list[Cell]) -> bool:
    return any(max(abs(cell[0] - x), abs(cell[1] - y)) <= 1 for x, y in spots)


def stand_near(view: ObsView, names: tuple[str, ...], dig: tuple[str, ...] = ()) -> Action:
    """Walk to a cell within one cell (diagonals count) of one of each of `names`, as making
    an item needs (e.g. ("table", "furnace")); one seen earlier on this floor is walked back
    to (mining through `dig`). Returns True when there, False when one was never seen or no
    such cell is reachable. A generator: `near = yield from stand_near(view, ("table",))`."""
    for _ in range(len(names) + 2):
        missing = [n for n in names if not view.cells(n)]
        if not missing:
            break
        if not (yield from go_to(view, missing[0], dig)):
            return False
    for _ in range(30):
        groups = [view.cells(n) for n in names]
        if not all(groups):
            return False
        if all(_within_one((0, 0), g) for g in groups):
            return True
        r = view.radius
        spots = {
            (x, y)
            for x in range(-r, r + 1)
            for y in range(-r, r + 1)
            if passable(view, x, y) and all(_within_one((x, y), g) for g in groups)
        }
        path = _walk(view, spots)
        if not path:
            return False
        if not (yield from guard(view)):
            yield MOVES[path[0]]
    return False


def face_free(
    view: ObsView, kinds: tuple[str, ...] = WALKABLE, near: tuple[str, ...] = ()
) -> Action:
    """Face an adjacent cell whose block is one of `kinds` and that holds no item or mob
    (moving toward a walkable one steps onto it, so the player then faces the cell beyond);
    with `near` (e.g. ("table",)), prefers a step that keeps the player within one cell of
    each of them. Explores 2 steps when none is adjacent. Returns True when it found one. A
    generator: `ok = yield from face_free(view, ("grass", "sand", "path"))`."""
    groups = [view.cells(n) for n in near]
    fallback = None
    for d, move in MOVES.items():
        free = view.block_at(*d) in kinds and view.item_at(*d) == "none"
        if not free or view.mob_at(*d) != "none":
            continue
        if view.facing == d:
            return True
        if view.block_at(*d) in WALKABLE and not all(_within_one(d, g) for g in groups):
            fallback = fallback or move  # stepping there leaves the stations behind
            continue
        yield move
        return True
    if fallback is not None:
        yield fallback
        return True
    yield from explore(view, 2)
    return False
