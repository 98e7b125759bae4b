"""Fighting for coded actions: monsters by kind (melee ones walk up and hit; ranged ones keep
4-5 cells away and shoot along a row or a column), arrows and spells along a clear line,
stepping out of a projectile's line, and clearing a floor (enough kills open its ladder down)."""

from __future__ import annotations

from .navigate import Action, Cell, explore, guard, hostiles, passable, path_to
from .survival import keep_alive
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
    clear line, step off that line (to a free side cell). Returns True if it stepped."""
    for dx, dy, _ in view.mobs("projectile"):
        step = line_to(view, (dx, dy), 3)
        if step is None:
            continue
        for side in ((step[1], step[0]), (-step[1], -step[0])):
            if passable(view, *side):
                yield MOVES[side]
                return True
    return False


def fight(view: ObsView, name: str | None = None, steps: int = 60) -> Action:
    """Hunt monsters in view (only those called `name` when given): hit one beside the
    player, shoot one in line when a bow and arrows or a spell allow, step out of a
    projectile's line, else walk up to the nearest. Ranged monsters flee to 4-5 cells: they
    are caught against walls or shot. Returns how many it killed (this floor's kills rose).
    A generator: `killed = yield from fight(view)`."""
    start = view.kills
    for _ in range(steps):
        foes = [m for m in hostiles(view) if name in (None, m[2])]
        if not foes:
            break
        if (yield from guard(view)):
            continue
        if (yield from dodge(view)):
            continue
        dx, dy, _ = foes[0]
        if (yield from shoot(view, (dx, dy))):
            continue
        path = path_to(view, {(dx, dy)})
        yield MOVES[path[0]] if path else "noop"
    return view.kills - start


def clear_floor(view: ObsView, dig: tuple[str, ...] = (), steps: int = 400) -> Action:
    """Fight this floor's monsters until its ladder down opens (view.cleared: 8 kills below
    the overworld), exploring when none is in view: monsters spawn 10-13 cells away, three
    times as often while the floor is not cleared, and the melee ones walk up. Returns
    view.cleared. A generator: `opened = yield from clear_floor(view, diggable(view))`."""
    for _ in range(steps):  # each round takes at least one step
        if view.cleared:
            break
        if (yield from keep_alive(view, dig)):
            continue
        if hostiles(view):
            yield from fight(view, steps=30)
        else:
            yield from explore(view, 4, dig)
    return view.cleared
