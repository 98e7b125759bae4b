"""Survival for coded actions in long episodes: drink, eat, sleep, and a sealed room for the
night (crafter's zombies come out on grass when it is dark)."""

from __future__ import annotations

from .known import UNSUITED, pockets_known
from .navigate import Action, _follow, approach, explore, go_to, guard, route
from .night import DAWN, DUSK, _sealed
from .plan import facing_plan, hits_plan, plan
from .view import MOVES, WALKABLE, ObsView

WAIT = 32  # steps of one plan of waiting (a condition that fails stops it sooner)


def shelter(view: ObsView, dig: tuple[str, ...] = ()) -> Action:
    """Wall the player in for the night: walk to the nearest stone face seen this episode
    (through `dig` materials), mine a two-cell room into it, step back into its first cell
    and seal the way in with a stone. Needs a wood pickaxe. Returns True when the player is
    walled in (already, or now), False when no stone face was seen. A generator:
    `safe = yield from shelter(view)`."""
    if _sealed(view):
        return True
    if view.inventory["wood_pickaxe"] < 1:
        return False
    for _ in range(3):
        faces = [d for d in MOVES if _pocket_at(view, (0, 0), d)]
        if faces:
            break
        reach = 3 * view.radius
        spots = pockets_known(view, reach, "stone", _OPEN)
        if spots is UNSUITED:  # no memory: cell by cell
            spots = {
                (x, y)
                for x in range(-reach, reach + 1)
                for y in range(-reach, reach + 1)
                if view.remembered_at(x, y) in WALKABLE
                and any(_pocket_at(view, (x, y), d) for d in MOVES)
            }
        path = route(view, spots, dig) if spots else None
        if not path:
            return False
        yield from _follow(view, path, dig)
    else:
        return False
    d = faces[0]
    for _ in range(2):  # mine the first cell, step in, mine the second
        while view.at(*d) == "stone":
            yield MOVES[d] if view.facing != d else "do"
        yield MOVES[d]
    back = (-d[0], -d[1])
    yield MOVES[back]  # steps back into the first cell, facing the way in
    for _ in range(12):
        if view.at(*back) in ("zombie", "skeleton"):
            yield from guard(view)  # one followed into the doorway: fight it first
        elif view.at(*back) in WALKABLE and view.inventory["stone"] > 0:
            yield "place_stone"
        else:
            break
    return _sealed(view)


_OPEN = (*WALKABLE, "lava", "none", "zombie", "skeleton")  # unseen cells count as closed


def _pocket_at(view: ObsView, c: tuple[int, int], d: tuple[int, int]) -> bool:
    """Cells c+d and c+2d are stone and every other neighbour of both is closed: mined, they
    make a two-cell room whose only way in is c."""
    a, b = (c[0] + d[0], c[1] + d[1]), (c[0] + 2 * d[0], c[1] + 2 * d[1])
    if view.remembered_at(*a) != "stone" or view.remembered_at(*b) != "stone":
        return False
    walls = {(e[0] + ox, e[1] + oy) for e in (a, b) for ox, oy in MOVES} - {a, b, c}
    return all(view.remembered_at(*w) not in _OPEN for w in walls)


def keep_alive(view: ObsView, dig: tuple[str, ...] = ()) -> Action:
    """Drink when drink < 4 and water was seen; eat a cow in view when food < 7 (searching
    the grass for one when food < 4); at dusk, first drink up if water was seen, then wall the
    player in (shelter) and sleep or wait there until it is light and no zombie is close;
    sleep when energy < 2 (until rested or hurt). Returns True if it did any of these. A
    generator: `yield from keep_alive(view)` at the start of a long action keeps the player
    alive."""
    acted = False
    dusk = view.daylight < DUSK
    thirst = 7 if dusk else 4  # before a night in a shelter, drink up
    acted = (yield from drink_up(view, thirst, dig)) or acted
    if view.inventory["food"] < 4 and not dusk and not view.cells("cow"):
        for _ in range(8):  # hungry: look for cows on the grass (up to ~50 steps)
            yield from explore(view, 6, dig, ("grass",))
            acted = True
            if view.cells("cow"):
                break
    acted = (yield from eat_cow_in_view(view)) or acted  # a meal worth the few steps
    if dusk and (yield from shelter(view, dig)):  # night: wait, walled in
        while _sealed(view) and (view.daylight < DAWN or _zombie_near(view)):
            tired = view.inventory["energy"] < 9
            if view.daylight < DAWN:  # as one plan, each step as the loop would choose it
                yield plan(
                    view,
                    ["sleep" if tired else "noop"] * WAIT,
                    ("walled_in", "before_dawn", "tired" if tired else "rested"),
                )
            else:
                yield "sleep" if tired else "noop"
            acted = True
    if view.inventory["energy"] < 2 and not view.cells("zombie"):
        health = view.inventory["health"]
        while view.inventory["energy"] < 9 and view.inventory["health"] >= health:
            yield plan(view, ["sleep"] * WAIT, ("tired", "unhurt"))
        acted = True
    return acted


def drink_up(view: ObsView, below: int, dig: tuple[str, ...] = ()) -> Action:
    """Below `below` drink, with water seen this episode: walk to it (mining through `dig`)
    and drink to full. True if it drank."""
    seen = view.cells("water") or view.remembered("water")
    if view.inventory["drink"] >= below or not seen or not (yield from go_to(view, "water", dig)):
        return False
    drank = False
    while view.inventory["drink"] < 9 and view.facing_name == "water":
        # drink rises by one a sip at most: this many sips never go past what the loop drinks;
        # each stops the plan where the loop would stop (no water in front)
        sips = 9 - view.inventory["drink"]
        yield facing_plan(view, "do", "water", sips) if sips > 1 else "do"
        drank = True
    return drank


def eat_cow_in_view(view: ObsView, below: int = 7) -> Action:
    """Below `below` food, with a cow in view: walk up to it and hit it until it is eaten.
    True if it hit."""
    if view.inventory["food"] >= below or not view.cells("cow"):
        return False
    eaten, hit = view.achievements["eat_cow"], False
    hits = 0
    while hits < 40:
        if view.achievements["eat_cow"] != eaten or not (yield from approach(view, "cow")):
            break
        # the hits as one plan: each stops it where this loop would look again (the cow
        # no longer in front, or eaten)
        taken = yield hits_plan(view, "cow", 40 - hits) if hits < 39 else "do"
        hits += taken if isinstance(taken, int) else 1
        hit = True
    return hit


def _zombie_near(view: ObsView) -> bool:
    return any(abs(x) + abs(y) <= 3 for x, y in view.cells("zombie")) and view.daylight < 0.95
