"""Survival for coded actions in long episodes: drink (water, fountains), eat (cows, snails,
bats: whatever passive mob the floor has), sleep walled in (a pocket mined into stone and
sealed with one stone, or a stretch of corridor sealed with two), and potions."""

from __future__ import annotations

from .navigate import (
    Action,
    Cell,
    approach,
    diggable,
    explore,
    follow_path,
    go_to,
    guard,
    hostiles,
    outfought,
    route,
    stand_on,
    until_defeat,
)
from .view import MOVES, WALKABLE, ObsView

DUSK = 0.6  # daylight below this on the overworld: zombies gather; get under a roof
DAWN = 0.75
POTIONS = ("red", "green", "blue", "pink", "cyan", "yellow")
WATER = ("water", "fountain")


def _room(view: ObsView, limit: int = 3) -> set[Cell] | None:
    """The cells the player can walk to without passing a wall (mobs count as open), or None
    when there are more than `limit` of them."""
    seen, todo = {(0, 0)}, [(0, 0)]
    while todo:
        cur = todo.pop()
        for ox, oy in MOVES:
            nxt = (cur[0] + ox, cur[1] + oy)
            name = view.block_at(*nxt)
            if nxt not in seen and (name in (*WALKABLE, "dark", "none", "darkness")):
                seen.add(nxt)
                todo.append(nxt)
                if len(seen) > limit:
                    return None
    return seen


def sealed(view: ObsView) -> bool:
    """The player stands in a closed room of at most three cells, no monster in it."""
    room = _room(view)
    return room is not None and not any((m[0], m[1]) in room for m in hostiles(view))


_OPEN = (*WALKABLE, "lava", "water", "none", "unknown", "dark", "darkness")


def _pocket_at(view: ObsView, c: Cell, d: Cell) -> bool:
    """Cells c+d and c+2d are stone and every other neighbour of both is closed: mined, they
    make a two-cell room whose only way in is c."""
    a, b = (c[0] + d[0], c[1] + d[1]), (c[0] + 2 * d[0], c[1] + 2 * d[1])
    if view.remembered_at(*a) != "stone" or view.remembered_at(*b) != "stone":
        return False
    walls = {(e[0] + ox, e[1] + oy) for e in (a, b) for ox, oy in MOVES} - {a, b, c}
    return all(view.remembered_at(*w) not in _OPEN for w in walls)


def _corridor_at(view: ObsView, c: Cell, d: Cell) -> bool:
    """c and c-d are walkable, closed on both sides across d, with free ground at c+d and
    c-2d: two stones there make a two-cell room."""
    back, ahead, behind = (
        (c[0] - d[0], c[1] - d[1]),
        (c[0] + d[0], c[1] + d[1]),
        (c[0] - 2 * d[0], c[1] - 2 * d[1]),
    )
    side = (d[1], d[0])
    for cell in (c, back):
        if view.remembered_at(*cell) not in WALKABLE:
            return False
        for s in (side, (-side[0], -side[1])):
            if view.remembered_at(cell[0] + s[0], cell[1] + s[1]) in _OPEN:
                return False
    return all(view.remembered_at(*x) in WALKABLE for x in (ahead, behind))


def shelter(view: ObsView, dig: tuple[str, ...] = ()) -> Action:
    """Wall the player in: mine a two-cell room into a stone face seen on this floor and seal
    the way in with a stone (needs a pickaxe and a stone), or, with two stones, seal a
    stretch of one-cell-wide corridor at both ends. Returns True when the player is walled in
    (already, or now). A generator: `safe = yield from shelter(view, diggable(view))`."""
    if sealed(view):
        return True
    stones, pick = view.inventory["stone"], view.inventory["wood_pickaxe"]
    reach = 3 * view.radius
    spots: dict[Cell, tuple[str, Cell]] = {}
    for x in range(-reach, reach + 1):
        for y in range(-reach, reach + 1):
            if view.remembered_at(x, y) not in WALKABLE:
                continue
            for d in MOVES:
                if pick and _pocket_at(view, (x, y), d):  # mining it gives the stone
                    spots[(x, y)] = ("pocket", d)
                elif stones >= 2 and _corridor_at(view, (x, y), d):
                    spots[(x, y)] = ("corridor", d)
    path = route(view, set(spots), dig) if spots else None
    if path is None or not (yield from follow_path(view, path, dig)):
        return False
    kind, d = spots.get((0, 0), ("", (0, 0)))
    back = (-d[0], -d[1])
    if kind == "pocket":  # mine the first cell, step in, mine the second, step in, step back
        for _ in range(2):
            while view.block_at(*d) == "stone":
                yield MOVES[d] if view.facing != d else "do"
            yield MOVES[d]
        yield MOVES[back]
        yield from _place_stone(view, back)
    elif kind == "corridor":  # face on along the corridor, seal ahead, step back, seal behind
        if view.facing != d:
            yield MOVES[back]  # into the cell behind, then forward again: now facing d
            yield MOVES[d]
        yield from _place_stone(view, d)
        yield MOVES[back]
        yield from _place_stone(view, back)
    return sealed(view)


def _place_stone(view: ObsView, d: Cell) -> Action:
    """Place a stone on the free cell the player faces (in direction d), fighting a monster
    that stands there first."""
    for _ in range(12):
        if view.facing != d or view.block_at(*d) not in WALKABLE or view.inventory["stone"] < 1:
            return
        if view.mob_at(*d) != "none":
            yield from guard(view)
        else:
            yield "place_stone"


def sleep(view: ObsView, dig: tuple[str, ...] = ()) -> Action:
    """Wall the player in (shelter), then sleep until rested (energy full) or woken (hurt):
    never in the open, where a monster's blow on a sleeper does 3.5 times its damage.
    Returns True if it slept. A generator: `yield from sleep(view, dig)`."""
    if not view.sleeping and view.vitals["energy"] >= _max_energy(view):
        return False
    if not view.sleeping and not (yield from shelter(view, dig)):
        return False
    health, slept = view.vitals["health"], False
    for _ in range(400):
        if view.vitals["energy"] >= _max_energy(view) and not view.sleeping:
            break
        if view.vitals["health"] < health - 1 and not view.sleeping:
            break  # woken by a hit
        if _starving(view):
            break  # health drains on: eat or drink first
        yield "sleep"
        slept = True
    return slept


def _starving(view: ObsView) -> bool:
    return min(view.vitals["food"], view.vitals["drink"]) == 0


def _parched(view: ObsView) -> bool:
    """Food or drink at 1 or less: a rest would not outlast it (see to them first)."""
    return min(view.vitals["food"], view.vitals["drink"]) <= 1


def _max_energy(view: ObsView) -> int:
    return 7 + 2 * view.inventory["dexterity"]


def drink_up(view: ObsView, below: int, dig: tuple[str, ...] = ()) -> Action:
    """Below `below` drink, with water or a fountain seen on this floor: walk there (mining
    through `dig`) and drink to full. True if it drank."""
    if view.vitals["drink"] >= below:
        return False
    source = min(WATER, key=lambda w: _distance(view.cells(w) or view.remembered(w)))
    if not (view.cells(source) or view.remembered(source)):
        return False
    if not (yield from go_to(view, source, dig)):
        return False
    drank, full = False, 7 + 2 * view.inventory["dexterity"]
    while view.vitals["drink"] < full and view.facing_name == source:
        yield "do"
        drank = True
    return drank


def _distance(cells: list[Cell]) -> int:
    return abs(cells[0][0]) + abs(cells[0][1]) if cells else 1 << 20


def eat(view: ObsView, below: int = 6) -> Action:
    """Below `below` food, with a passive mob (cow, snail, bat) in view: walk up to it and
    hit it until it is eaten. True if it hit."""
    meals = view.mobs("passive")
    if view.vitals["food"] >= below or not meals:
        return False
    name, food, hit = meals[0][2], view.vitals["food"], False
    for _ in range(40):
        if view.vitals["food"] > food or not (yield from approach(view, name)):
            break
        yield "do"
        hit = True
    return hit


def keep_alive(view: ObsView, dig: tuple[str, ...] | None = None) -> Action:
    """Fight a monster beside the player (step up to a melee one two cells away); drink when
    drink < 5 and water or a fountain was seen on this floor (searching for some when drink
    < 4); eat a passive mob in view when food < 6 (searching for one when food < 4: every
    floor has its cows, snails or bats); on the overworld at dusk, drink up, wall in and
    sleep until it is light; anywhere, sleep walled in when energy < 3; below the overworld,
    hurt, rest upstairs. Returns True if it did any of these; it returns right after a fight
    beside the player and right after any monster is defeated on the way (the kill may be
    what the caller is after: it looks again). A generator: `yield from keep_alive(view)` at
    the start of a long action. It returns True only when it took a step: a loop that goes
    round on its answer cannot spin without one."""
    return (yield from until_defeat(view, _keep_alive(view, dig)))


def _keep_alive(view: ObsView, dig: tuple[str, ...] | None) -> Action:
    dig = diggable(view) if dig is None else dig
    if outfought(view) and (yield from rest_upstairs(view, dig)):
        return True  # broke off a fight it was losing
    if (yield from guard(view)):
        return True
    if (yield from meet(view)):
        return True
    acted = False
    if view.inventory["xp"] >= 1 and view.inventory["strength"] < 5:
        yield "level_up_strength"  # more health, harder blows
        acted = True
    dusk = view.floor == 0 and view.daylight < DUSK
    acted = (yield from drink_up(view, 8 if dusk else 5, dig)) or acted
    if view.vitals["drink"] < 4 and not any(view.remembered(w) for w in WATER):
        for _ in range(6):  # thirsty, no water seen on this floor: look for some
            yield from explore(view, 6, dig, ("water", "sand", "fountain"))
            acted = True
            if any(view.remembered(w) for w in WATER):
                acted = (yield from drink_up(view, 5, dig)) or acted
                break
    if view.vitals["food"] < 4 and not view.mobs("passive"):  # every floor has a meal
        for _ in range(6):  # at dusk too: hunger kills through a night's sleep
            yield from explore(view, 6, dig, ("grass",) if view.floor == 0 else ())
            acted = True
            if view.mobs("passive"):
                break
    acted = (yield from eat(view, 8 if dusk else 6)) or acted
    if dusk and not hostiles(view) and (yield from shelter(view, dig)):
        while sealed(view) and view.daylight < DAWN and not _starving(view):
            yield "sleep" if view.vitals["energy"] < _max_energy(view) else "noop"
            acted = True
    if view.vitals["energy"] < 3 and not hostiles(view):
        acted = (yield from sleep(view, dig)) or acted
    if hurt(view) and view.ladder("up") is not None:
        acted = (yield from rest_upstairs(view, dig)) or acted
    elif view.vitals["health"] <= 4 and view.floor > 0 and not hostiles(view):
        acted = (yield from recover(view, dig)) or acted
    return acted


def meet(view: ObsView, reach: int = 2) -> Action:
    """A melee monster within `reach` cells comes for the player: step up to it, to face it
    when it arrives (turning away to drink, eat or walk costs a blow from behind). Returns
    True if it stepped."""
    close = [
        m
        for m in hostiles(view)
        if view.kind_of(m[2]) == "melee" and abs(m[0]) + abs(m[1]) <= reach
    ]
    if not close:
        return False
    dx, dy, _ = close[0]
    step = ((dx > 0) - (dx < 0), 0) if abs(dx) >= abs(dy) else (0, (dy > 0) - (dy < 0))
    yield MOVES[step]
    return True


def restore(view: ObsView, dig: tuple[str, ...] = (), health: int = 8, tries: int = 6) -> Action:
    """Sleep walled in until health reaches `health` and energy is full (looking for a stone
    face when none is near); in daylight on the overworld with no monster in view, in the
    open when no wall can be made. Returns True when rested."""
    full = _max_energy(view)
    for _ in range(tries):
        if view.vitals["health"] >= health and view.vitals["energy"] >= full - 1:
            return True
        if (yield from guard(view)):
            continue
        walled = yield from shelter(view, dig)
        if not walled and not (view.floor == 0 and view.daylight > DAWN and not hostiles(view)):
            yield from explore(view, 6, dig, ("stone",))
            continue
        for _ in range(300):
            rested = view.vitals["energy"] >= full
            if (walled and not sealed(view)) or (rested and view.vitals["health"] >= health):
                break
            if _parched(view):
                return False  # thirst or hunger would undo the rest: see to them first
            if not walled and hostiles(view):
                break
            yield "noop" if rested else "sleep"
    return view.vitals["health"] >= health and view.vitals["energy"] >= full - 1


def hurt(view: ObsView) -> bool:
    """Below the overworld, health 5 or less (two hits from most monsters there), energy
    below 2, drink 3 or less with nothing to drink seen on this floor, or food 1 or less with
    nothing to eat in sight (at 3, the floor's own snails or bats are searched for first):
    time to rest upstairs."""
    if view.floor == 0:
        return False
    v = view.vitals
    thirsty = v["drink"] <= 3 and not any(view.remembered(w) for w in WATER)
    hungry = v["food"] <= 1 and not view.mobs("passive")
    return v["health"] <= 5 or v["energy"] < 2 or thirsty or hungry


def rest_upstairs(view: ObsView, dig: tuple[str, ...] = ()) -> Action:
    """Hurt or tired below the overworld: walk onto this floor's ladder up (fighting what
    blocks the way), climb, wall in and sleep there until health and energy are back, and
    come down the same ladder again: the monsters of a floor never follow up a ladder, and the
    floor's kills are kept. Returns True once back on the floor it left."""
    floor = view.floor
    for _ in range(8):  # walking on past monsters: they are left behind, and stay below
        if view.floor < floor or (yield from stand_on(view, "ladder_up", dig, flee=True)):
            break
    else:
        return False
    if view.floor == floor:
        yield "ascend"
    if view.floor >= floor:
        return False
    for _ in range(6):
        yield from keep_alive(view, dig)  # drink, eat (searching if need be), fight
        if (yield from restore(view, dig)):
            break
    yield from drink_up(view, 8, dig)
    yield from eat(view, 7)
    for _ in range(8):
        if view.floor == floor:
            return True
        if view.standing_on() == "ladder_down":
            yield "descend"
        elif not (yield from stand_on(view, "ladder_down", dig)):
            yield "noop"
    return view.floor == floor


def recover(view: ObsView, dig: tuple[str, ...] = (), until: int = 8) -> Action:
    """Wall the player in and sleep (health comes back twice as fast) or wait until health
    reaches `until` (or a monster gets in), never while thirst or hunger (1 or less) would
    undo the rest (as `restore`). Returns True if it walled in."""
    if _parched(view) or not (yield from shelter(view, dig)):
        return False
    for _ in range(300):
        if view.vitals["health"] >= until or not sealed(view) or _parched(view):
            break
        tired = view.vitals["energy"] < _max_energy(view)
        yield "sleep" if tired else "noop"
    return True


def drink_a_potion(view: ObsView, color: str | None = None) -> Action:
    """Drink a potion: of `color` (red, green, blue, pink, cyan, yellow) when given, else of
    the colour held most. Each episode maps the colours to effects at random: +8 or -3
    health, mana or energy. Returns True if it drank. A generator:
    `yield from drink_a_potion(view)`."""
    held = {c: view.inventory[f"potion_{c}"] for c in POTIONS}
    pick = color if color is not None else max(held, key=lambda c: held[c])
    if held.get(pick, 0) < 1:
        return False
    before = view.achievements["drink_potion"]
    yield f"drink_potion_{pick}"
    return view.achievements["drink_potion"] > before
