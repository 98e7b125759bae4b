"""Moving between floors and seeing on them: ladders (a floor's ladder down opens once enough
of its monsters are killed; its ladder up is always open), and torches, without which the
dark floors (the gnomish mines, the troll mines, the ice realm, the graveyard) show nothing
beyond the light of lava and of the ladder up."""

from __future__ import annotations

from .combat import clear_floor, fight
from .navigate import Action, diggable, explore, follow_path, hostiles, route, stand_on
from .survival import drink_up, eat, keep_alive, restore
from .view import MOVES, WALKABLE, ObsView

PLACEABLE = ("grass", "sand", "path", "fire_grass", "ice_grass")  # where a torch may go


def dark_around(view: ObsView, reach: int = 3) -> int:
    """How many cells within `reach` of the player are dark (not lit)."""
    return sum(
        view.block_at(x, y) == "dark"
        for x in range(-reach, reach + 1)
        for y in range(-reach, reach + 1)
    )


def light(view: ObsView, below: int = 12) -> Action:
    """Place a torch (one held) on a free ground cell beside the player when more than
    `below` cells within 3 are dark and no torch is within 3. Returns True if it placed one.
    A generator: `yield from light(view)`."""
    if view.inventory["torch"] < 1 or dark_around(view) <= below:
        return False
    if any(abs(x) + abs(y) <= 3 for x, y in view.cells("torch")):
        return False
    before = view.achievements["place_torch"]
    for d in MOVES:
        free = view.block_at(*d) in PLACEABLE and view.item_at(*d) == "none"
        if free and view.mob_at(*d) == "none" and view.facing == d:
            yield "place_torch"
            return view.achievements["place_torch"] > before
    ahead = view.facing
    for d, move in MOVES.items():  # face a free ground cell: step so that one lies ahead
        beyond = (2 * d[0], 2 * d[1])
        if view.block_at(*d) in WALKABLE and view.block_at(*beyond) in PLACEABLE and d != ahead:
            yield move
            if view.block_at(*view.facing) in PLACEABLE and view.item_at(*view.facing) == "none":
                yield "place_torch"
            return view.achievements["place_torch"] > before
    return False


def explore_dark(view: ObsView, steps: int = 8, dig: tuple[str, ...] = ()) -> Action:
    """Explore as `explore` does, lighting the way with torches where it is dark (a torch
    lights about 4 cells around it, and those cells stay seen). A generator:
    `yield from explore_dark(view, 8, diggable(view))`."""
    for _ in range(max(1, steps // 2)):
        if (yield from light(view)):
            continue
        yield from explore(view, 2, dig)


def find_ladder(
    view: ObsView, direction: str = "down", dig: tuple[str, ...] = (), steps: int = 60
) -> Action:
    """Explore this floor until its ladder `direction` ('down' or 'up') has been seen
    (preferring paths on the overworld, where the ladder down lies in the mountains' tunnels;
    lighting dark floors). Returns True when it is known. A generator:
    `found = yield from find_ladder(view, "down", diggable(view))`."""
    for _ in range(steps):
        if view.ladder(direction) is not None:
            return True
        if (yield from keep_alive(view, dig)):
            continue
        if hostiles(view):
            yield from fight(view, steps=20)
        elif view.floor == 0:
            yield from explore(view, 8, dig, ("path",))
        else:
            yield from explore_dark(view, 8, dig)
    return view.ladder(direction) is not None


def descend(view: ObsView, dig: tuple[str, ...] | None = None, steps: int = 200) -> Action:
    """Go down one floor: find this floor's ladder down, clear the floor first when its
    ladder is closed (fight until enough monsters are killed), walk onto the ladder and
    descend. Returns True once on the floor below. A generator:
    `below = yield from descend(view)`."""
    start = view.floor
    dig = diggable(view) if dig is None else dig
    for _ in range(steps):
        if view.floor != start:
            return view.floor > start
        if (yield from keep_alive(view, dig)):
            continue
        if view.standing_on() in ("ladder_down", "ladder_down_blocked") and view.cleared:
            if (yield from prepare(view, dig)):
                continue  # rested, drank or ate first: back onto the ladder
            yield "descend"
        elif not view.cleared:
            yield from clear_floor(view, dig, steps=20)
        elif view.ladder("down") is None:
            yield from find_ladder(view, "down", dig, steps=4)
        elif not (yield from stand_on(view, "ladder_down", dig)):
            yield from _toward(view, view.ladder("down"), dig)
    return view.floor > start


def prepare(view: ObsView, dig: tuple[str, ...] = ()) -> Action:
    """Before going down: drink up (water or a fountain seen on this floor), eat a passive mob
    in view, and sleep walled in when energy is below 6 or health below 7. Returns True if it
    did any of these (the player may have left the ladder)."""
    acted = (yield from drink_up(view, 7, dig)) or False
    acted = (yield from eat(view, 7)) or acted
    if view.vitals["energy"] < 6 or view.vitals["health"] < 7:
        yield from restore(view, dig, health=7)
        acted = True
    return acted


def ascend(view: ObsView, dig: tuple[str, ...] | None = None, steps: int = 200) -> Action:
    """Go up one floor: walk onto this floor's ladder up (it is where the player arrived)
    and ascend. Returns True once on the floor above. A generator:
    `up = yield from ascend(view)`."""
    start = view.floor
    dig = diggable(view) if dig is None else dig
    for _ in range(steps):
        if view.floor != start or start == 0:
            return view.floor < start
        if (yield from keep_alive(view, dig)):
            continue
        if view.standing_on() == "ladder_up":
            yield "ascend"
        elif view.ladder("up") is None:
            yield from find_ladder(view, "up", dig, steps=4)
        elif not (yield from stand_on(view, "ladder_up", dig)):
            yield from _toward(view, view.ladder("up"), dig)
    return view.floor < start


def _toward(view: ObsView, target: tuple[int, int] | None, dig: tuple[str, ...]) -> Action:
    """A few steps toward `target` when no known way leads there (through the dark)."""
    if target is None:
        yield "noop"
        return
    goals = {(target[0] + ox, target[1] + oy) for ox, oy in MOVES} | {target}
    path = route(view, goals, dig)
    if path and (yield from follow_path(view, path[:6], dig)):
        return
    dx, dy = target
    step = (((dx > 0) - (dx < 0)), 0) if abs(dx) >= abs(dy) else (0, (dy > 0) - (dy < 0))
    if view.block_at(*step) in dig:
        yield MOVES[step] if view.facing != step else "do"
    else:
        yield MOVES[step]
