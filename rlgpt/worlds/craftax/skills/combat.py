"""Fighting for coded actions: monsters by kind (melee ones walk up and hit; ranged ones keep
4-5 cells away and shoot along a row or a column), arrows and spells along a clear line,
stepping out of a projectile's line, and clearing a floor (enough kills open its ladder down)."""

from __future__ import annotations

from .navigate import (
    Action,
    Cell,
    explore,
    follow_path,
    go_to,
    guard,
    hostiles,
    passable,
    path_to,
    route,
)
from .survival import hurt, keep_alive
from .view import MOVES, WALKABLE, ObsView

# what a projectile flies over (craftax stops arrows and spells at solid blocks, not water)
OPEN_AIR = (*WALKABLE, "water", "lava", "darkness")


def line_to(view: ObsView, target: Cell, reach: int = 6) -> Cell | None:
    """The direction (a unit step) along which `target` lies on the player's row or column
    within `reach`, with nothing solid or alive between; None otherwise."""
    dx, dy = target
    if (dx and dy) or not (0 < abs(dx) + abs(dy) <= reach):
        return None
    step = ((dx > 0) - (dx < 0), (dy > 0) - (dy < 0))
    for k in range(1, abs(dx) + abs(dy)):
        cell = (step[0] * k, step[1] * k)
        if view.block_at(*cell) not in OPEN_AIR or view.mob_at(*cell) != "none":
            return None
    return step


def _missile(view: ObsView) -> str | None:
    """The ranged attack the player can make now: an arrow, else a spell, else None."""
    inv = view.inventory
    if inv["bow"] and inv["arrow"]:
        return "shoot_arrow"
    if inv["mana"] >= 2:
        for spell in ("fireball", "iceball"):
            if inv[spell]:
                return f"cast_{spell}"
    return None


def shoot(view: ObsView, target: Cell, reach: int = 6) -> Action:
    """Face `target` (a cell on the player's row or column, nothing in between) and loose an
    arrow (with a bow and arrows) or a spell (a learned one, mana >= 2). Returns True when it
    shot. A generator: `shot = yield from shoot(view, (0, -4))`."""
    step, attack = line_to(view, target, reach), _missile(view)
    if step is None or attack is None:
        return False
    if view.facing != step:
        yield MOVES[step]  # toward a free cell it steps (still in line), else only turns
        if view.facing != step:
            return False
    yield attack
    return True


def dodge(view: ObsView) -> Action:
    """If a monster's projectile is within 3 cells on the player's row or column with a
    clear line, flying at the player (or its way unknown), step off that line (to a free side
    cell). Returns True if it stepped."""
    for dx, dy, _ in view.mobs("projectile"):
        step = line_to(view, (dx, dy), 3)
        way = view._heading(dx, dy)
        if step is None or way not in (None, (-step[0], -step[1])):
            continue  # off the line, or flying past (beside the player, along its way)
        for side in ((step[1], step[0]), (-step[1], -step[0])):
            if passable(view, *side):
                yield MOVES[side]
                return True
    return False


def exposed(view: ObsView, cell: Cell = (0, 0)) -> bool:
    """Whether standing on `cell` puts the player on the row or column of a ranged monster
    2-5 cells away (where it shoots from)."""
    for dx, dy, _ in view.mobs("ranged"):
        rx, ry = dx - cell[0], dy - cell[1]
        if (rx == 0 or ry == 0) and 2 <= abs(rx) + abs(ry) <= 5:
            return True
    return False


def _toward(view: ObsView, target: Cell) -> str | None:
    """The first move of a walk up to `target`, off the ranged monsters' lines when a move
    as good is (None when no way leads there)."""
    path = path_to(view, {target})
    if not path:
        return None
    first = path[0]
    if exposed(view, first):
        gap = abs(target[0] - first[0]) + abs(target[1] - first[1])
        safe = [d for d in MOVES if passable(view, *d) and not exposed(view, d)
                and abs(target[0] - d[0]) + abs(target[1] - d[1]) <= gap]  # fmt: skip
        first = safe[0] if safe else first
    return MOVES[first]


def fight(view: ObsView, name: str | None = None, steps: int = 60) -> Action:
    """Hunt monsters in view (only those called `name` when given, and then until one is
    killed): hit one beside the player, step out of a projectile's line, shoot one in line
    when a bow and arrows or a spell allow, else walk up to the nearest (melee ones first),
    keeping off the lines of ranged ones where it can. Ranged monsters flee to 4-5 cells: they
    are caught against walls or shot. It stops early when wounded (health 5 or less, or
    exhausted; hunger and thirst wait) below the overworld with a ladder up known (the caller
    rests upstairs: keep_alive), and always takes at least one
    step, so a loop round it cannot spin. Returns how many it killed (this floor's kills
    rose). A generator: `killed = yield from fight(view)`."""
    start, stepped = view.kills, False
    for _ in range(steps):
        foes = [m for m in hostiles(view) if name in (None, m[2])]
        if not foes or (_wounded(view) and view.ladder("up") is not None):
            break
        if name is not None and view.kills > start:
            break  # the one it was sent for
        stepped = True
        if (yield from guard(view)):
            continue
        if (yield from dodge(view)):
            continue
        shot = False
        for dx, dy, _ in foes[:2]:
            shot = shot or (yield from shoot(view, (dx, dy)))
        if shot:
            continue
        near = [m for m in foes if view.kind_of(m[2]) == "melee" and abs(m[0]) + abs(m[1]) <= 3]
        dx, dy, _ = (near or foes)[0]
        yield _toward(view, (dx, dy)) or _cover(view)
    if not stepped:
        yield _cover(view)
    return view.kills - start


def _wounded(view: ObsView) -> bool:
    """Hurt (survival.hurt) by blows, not by hunger or thirst alone: those wait for the end of
    a fight (walking away from a monster to eat costs more blows)."""
    return hurt(view) and (view.vitals["health"] <= 5 or view.vitals["energy"] < 2)


def _cover(view: ObsView) -> str:
    """A move off the ranged monsters' lines when the player stands on one, else a noop."""
    if exposed(view):
        for d, move in MOVES.items():
            if passable(view, *d) and not exposed(view, d):
                return move
    return "noop"


def clear_floor(view: ObsView, dig: tuple[str, ...] = (), steps: int = 400) -> Action:
    """Fight this floor's monsters until its ladder down opens (view.cleared: 8 kills below
    the overworld), keeping alive (resting walled in when hurt), opening chests in view when
    no monster is (loot: a bow, arrows, potions, torches), exploring when there is nothing
    else: monsters spawn 10-13 cells away, three times as often while the floor is not
    cleared, and the melee ones walk up. Returns view.cleared. A generator:
    `opened = yield from clear_floor(view, diggable(view))`."""
    waited = 0
    for _ in range(steps):  # each round takes at least one step
        if view.cleared:
            break
        if (yield from keep_alive(view, dig)):
            continue
        chests = [c for c in view.cells("chest") if abs(c[0]) + abs(c[1]) <= 6]
        up = view.ladder("up")
        if hostiles(view):
            yield from fight(view, steps=30)
        elif chests and (yield from go_to(view, "chest", dig)):
            yield "do"
        elif up is not None and abs(up[0]) + abs(up[1]) > 6:
            path = route(view, {up}, dig)  # hold near the way up: monsters come, rest is near
            if not path or not (yield from follow_path(view, path[:4], dig)):
                yield from explore(view, 4, dig)
        else:
            waited += 1
            yield from explore(view, 4, dig) if waited % 12 == 0 else _wait(view)
    return view.cleared


def _wait(view: ObsView) -> Action:
    yield _cover(view)
