"""Growing a plant for coded actions: a sapling ripens only after about 300 steps near the
player, and a zombie, skeleton or cow next to it kills it. So it grows in a pen (where and how
is pen.py): a straight corridor of four cells, entrance e, room cells q and a, and
the plant's grass cell p at the end, every other neighbour of q, a and p walled (trees, water
and stone as they are; placed stones or tables where there are none). The sapling is sown on
p first (`sow`), and the plant's own walls go up before the rest. crafter has no turn action
(a move toward an open cell steps onto it), so the player walks e -> q -> a, back to q (now
facing e), walls e, steps to a (facing p) and plants if nothing grows there yet: it ends sealed
in a two-cell room, facing the plant, where nothing can reach either.
"""

from __future__ import annotations

from collections.abc import Callable

from .navigate import Action, approach, explore, face_free, follow_path, guard, route
from .night import DUSK, _sealed
from .pen import OPEN, Cell, add, pen_cells, pen_site, site_cost, wall_order, wall_rank
from .survival import drink_up, eat_cow_in_view, keep_alive
from .view import MOVES, WALKABLE, ObsView


def _material(view: ObsView) -> str | None:
    if view.inventory["stone"] > 0:
        return "place_stone"
    return "place_table" if view.inventory["wood"] >= 2 else None


def _rel(view: ObsView, world: Cell) -> Cell:
    return world[0] - view.position[0], world[1] - view.position[1]


def _wall(view: ObsView, x: Cell) -> Action:
    """Place a stone or table on cell x (relative; walkable now): step onto a neighbour y of x
    from the cell z beyond it, so the player faces x, and place. False when no such y and z
    can be reached (nothing was done), else True (placed, or interrupted on the way)."""
    x_world = add(view.position, x)
    options = []
    for m in MOVES:
        y, z = add(x, m), add(x, m, 2)
        if view.remembered_at(*y) in WALKABLE and view.remembered_at(*z) in WALKABLE:
            options.append((abs(z[0]) + abs(z[1]), m, add(view.position, z)))
    for _, m, z_world in sorted(options):
        z = _rel(view, z_world)
        path = [] if z == (0, 0) else route(view, {z})
        if path is None:
            continue
        if not (yield from follow_path(view, path)):
            yield "noop"  # blocked on the way (a creature may have moved nothing yet): wait
            return True
        yield MOVES[(-m[0], -m[1])]  # from z onto y: facing x
        action = _material(view)
        if view.facing == _rel(view, x_world) and view.position == add(x_world, m):
            yield action or "noop"
        return True
    return False


def _harvest(view: ObsView, name: str, keep: set[Cell], enough: Callable[[], bool]) -> Action:
    """Collect from the nearest `name` (tree or stone) seen this episode that is not in `keep`
    (world cells: the pen's own walls) until `enough()`. False when none can be reached."""
    for _ in range(24):
        if enough():
            return True
        seen = view.remembered(name) or view.cells(name)
        targets = [c for c in seen if add(view.position, c) not in keep][:64]
        if not targets:
            return False
        beside = [c for c in targets if abs(c[0]) + abs(c[1]) == 1]
        if beside:
            if view.facing != beside[0]:
                yield MOVES[beside[0]]  # no floor: this only turns
            if not (yield from guard(view)):
                yield "do"  # a tree leaves grass, a stone a path
            continue
        path = route(view, {add(t, m) for t in targets for m in MOVES})
        if not path:
            return False
        if not (yield from follow_path(view, path)):
            yield "noop"  # blocked on the way: let the world move on
    return enough()


def _gather(view: ObsView, walls: int, keep: set[Cell]) -> Action:
    """Something to build a wall with, stone first: a skeleton's arrow breaks a table (it
    leaves a path). With nothing for a wall held, enough for `walls` walls (at most what the
    inventory holds): stone with a pickaxe, else wood, 2 a table. False when neither can be
    reached and nothing for a wall is held."""

    pickaxe = view.inventory["wood_pickaxe"] > 0

    def stones() -> bool:
        return view.inventory["stone"] >= min(walls, 9)

    def wood() -> bool:  # or stone came into view: mined, it makes walls no arrow breaks
        found = pickaxe and bool(view.cells("stone"))
        return found or view.inventory["wood"] >= min(2 * (walls - view.inventory["stone"]), 8)

    if view.inventory["stone"] > 0:
        return True  # build with what is held; gather for all the rest once it runs out
    if pickaxe and (yield from _harvest(view, "stone", keep, stones)):
        return True
    if view.inventory["stone"] > 0 or view.inventory["wood"] >= 2:
        return True
    if (yield from _harvest(view, "tree", keep, wood)) and pickaxe:
        yield from _harvest(view, "stone", keep, stones)
    return _material(view) is not None


def _top_up(view: ObsView) -> Action:
    """Before the player walls itself in for ~300 steps: below 8, drink to full at water seen
    this episode; below 7 food, eat a cow in view. True when it did nothing (ready to seal)."""
    drank = yield from drink_up(view, 8)
    ate = yield from eat_cow_in_view(view)
    return not (drank or ate)


def _patch(view: ObsView, plant: Cell) -> Action:
    """At a in a pen with the plant's walls standing, beside the plant, the room open (an
    arrow turns a table wall into a path): wall it again from inside. An open entrance e is
    walled from q. A gap b beside a is stepped into and the cell beyond it walled: the room
    becomes a, q and b. With a gap beside q, a creature that comes in is fought in q; the
    player then faces q and walls it: the room is a alone. False when this is no such pen,
    or a gap beside q with nothing in q (nothing done)."""
    d = (-plant[0], -plant[1])  # from the plant toward the entrance: q = d, e = 2d
    sides = ((d[1], d[0]), (-d[1], -d[0]))
    action = _material(view)
    shut = [add(plant, m) for m in MOVES if add(plant, m) != (0, 0)]
    if action is None or view.at(*d) not in OPEN or any(view.at(*c) in OPEN for c in shut):
        return False
    gaps_a = [m for m in sides if view.at(*m) in OPEN]
    gaps_q = [m for m in (*sides, d) if view.at(*add(d, m)) in OPEN]
    if not gaps_a and not gaps_q:
        return False  # sealed
    if (yield from guard(view)):
        return True  # it fought: in q, it now faces q
    if not gaps_a and view.facing == d and view.at(*d) in WALKABLE:
        yield action  # the room is a alone now
        return True
    if len(gaps_a) + len(gaps_q) != 1 or gaps_q not in ([], [d]) or view.at(*d) not in WALKABLE:
        return False
    if gaps_q:
        yield MOVES[d]  # onto q, facing e
        yield action
        yield MOVES[plant]  # back onto a, facing the plant
        return True
    m = gaps_a[0]
    floor = (*WALKABLE, "water") if action == "place_stone" else WALKABLE
    if view.at(*add(m, m)) not in floor:
        return False  # nothing to wall beyond the gap
    yield MOVES[m]  # onto b, facing the cell beyond it
    yield action
    yield MOVES[(-m[0], -m[1])]  # back onto a
    yield MOVES[plant]  # the plant is no floor: this only turns
    return True


def _wait(view: ObsView) -> Action:
    """Sealed in, facing the plant: sleep when tired (safe here, and thirst and hunger slow
    down), drink from water beside the player, else hit the plant (eaten once ripe)."""
    water = [m for m in MOVES if view.at(*m) == "water"]
    if view.inventory["drink"] < 6 and water:
        yield MOVES[water[0]]  # water is no floor: this only turns
        while view.facing_name == "water" and view.inventory["drink"] < 9:
            yield "do"
        return
    if view.inventory["energy"] < 9:
        yield "sleep"
    else:
        yield "do"


def _shoo(view: ObsView, plant: Cell, near: int = 3) -> Action:
    """A cow beside a plant kills it, and cows wander: hit every cow in view within `near` of
    the plant cell (relative) until it is eaten (food for the wait, too), following one it hit
    3 cells farther. True if it hit."""
    plant_world, hit, chasing = add(view.position, plant), False, False
    eaten = view.achievements["eat_cow"]
    for _ in range(30):
        if view.achievements["eat_cow"] != eaten:  # the one it hit is eaten
            chasing, eaten = False, view.achievements["eat_cow"]
        p, far = _rel(view, plant_world), near + 3 if chasing else near
        cows = [c for c in view.cells("cow") if abs(c[0] - p[0]) + abs(c[1] - p[1]) <= far]
        if not cows:
            break
        if cows[0] in MOVES:
            if view.facing != cows[0]:
                yield MOVES[cows[0]]  # a cow is no floor: this only turns
            yield "do"
            hit = chasing = True
            continue
        path = route(view, {add(cows[0], m) for m in MOVES})
        if not path or not (yield from follow_path(view, path[:1])):
            break
    return hit


def sow(view: ObsView) -> Action:
    """Plant the sapling held on p of the pen site `grow_plant` would wall next (`pen_site`,
    away from any plant known), from a, facing p: the plant starts with as many walls as the
    ground gives, and its pen is the one built next. True once planted or interrupted on the
    way; False with no sapling or no site in reach (nothing done). A generator."""
    if view.inventory["sapling"] < 1:
        return False
    known = view.remembered("plant") + view.cells("plant")
    site = pen_site(view, banned=frozenset(add(view.position, c) for c in known))
    if site is None:
        return False
    p, d = site
    p_world, q = add(view.position, p), add(p, d, 2)
    path = [] if q == (0, 0) else route(view, {q})
    if path is None:
        return False
    if (yield from _shoo(view, p)):
        return True  # where it stood has changed: look again
    if not (yield from follow_path(view, path)):
        yield "noop"  # blocked on the way: let the world move on (True means it acted)
        return True
    yield MOVES[(-d[0], -d[1])]  # q -> a, facing p
    if view.facing == _rel(view, p_world) and view.facing_name == "grass":
        yield "place_plant"
    return True


def grow_plant(view: ObsView) -> Action:
    """Eat a plant ripe: hit each plant in view once (one may be ripe); with none growing,
    sow the sapling it holds (`sow`); then wall a pen (see the module's doc) around the plant
    (or around grass, planted at the seal), and stay sealed in with it, sleeping, drinking and
    hitting it, until it is eaten. Gathers wood for tables when there are too few stones.
    Returns True once eaten; False when it cannot go on (no sapling and no plant, no pen site
    or no tree seen: get a sapling or explore, then call it again). A generator:
    `ok = yield from grow_plant(view)`. In a game whose plants no creature harms
    (view.rules), no pen: see `_tend`."""
    if not view.rules["plant_hurt_by"]:
        return (yield from _tend(view))
    start = view.achievements["eat_plant"]
    tried: set[Cell] = set()  # plants in view hit once: one may be ripe already
    fed: list[bool] = []
    chosen: list[tuple[Cell, Cell]] = []  # the pen site (world p, d): kept while it can be built
    banned: set[Cell] = set()  # world p of sites whose walls cannot all be placed
    while view.achievements["eat_plant"] == start:
        plants = [m for m in MOVES if view.at(*m) == "plant"]
        if plants and _sealed(view):
            if view.facing in plants:
                yield from _wait(view)
            else:
                yield MOVES[plants[0]]  # the plant is no floor: this only turns
            continue
        if plants and (yield from _patch(view, plants[0])):
            continue
        if _sealed(view) and view.facing_name == "grass" and view.inventory["sapling"] > 0:
            yield "place_plant"
            continue
        untried = [c for c in view.cells("plant") if add(view.position, c) not in tried]
        if untried:
            tried.add(add(view.position, untried[0]))
            if (yield from approach(view, "plant")):
                yield "do"
            continue
        if (yield from drink_up(view, 4)) or (yield from eat_cow_in_view(view, 4)):
            continue  # low while building: a pen takes ~100 steps, the wait in it ~200 more
        growing = view.cells("plant") or view.remembered("plant")
        if not growing and view.inventory["sapling"] > 0 and (yield from sow(view)):
            continue  # none grows (the first died): sow now, not at the seal, and build round it
        stale = not chosen or chosen[-1][0] in banned
        if stale or site_cost(view, *_site_rel(view, chosen[-1])) is None:
            site = pen_site(view, banned=frozenset(banned))
            if site is None:
                return False
            chosen.append((add(view.position, site[0]), site[1]))
        p = _rel(view, chosen[-1][0])
        if view.remembered_at(*p) == "plant" and (yield from _shoo(view, p)):
            continue
        built = yield from _build(view, *_site_rel(view, chosen[-1]), fed)
        if built is None:
            banned.add(chosen[-1][0])
        elif not built:
            return False
    return True


def _tend(view: ObsView) -> Action:
    """Where no creature harms a plant, a pen only shuts the player in with its hunger for the
    whole wait (600 steps in Craftax-Classic, more than the food and drink a player carries
    last). So: sow the sapling held when no plant is known, then stay beside the nearest plant
    and hit it (eaten once ripe; an unripe one takes no harm), while `keep_alive` eats, drinks
    and shelters for the night, and come back after. True once eaten; False with no plant
    known and no sapling, or none reachable."""
    start = view.achievements["eat_plant"]
    while view.achievements["eat_plant"] == start:
        dig = ("stone",) if view.inventory["wood_pickaxe"] > 0 else ()  # out of a shelter, too
        if (yield from guard(view)) or (yield from keep_alive(view, dig)):
            continue
        if view.inventory["drink"] < 6 and not view.remembered("water") and view.daylight > DUSK:
            yield from explore(view, 8, dig)  # thirsty, no water seen yet: find some by day
            continue
        beside = [m for m in MOVES if view.at(*m) == "plant"]
        if beside:
            if view.facing != beside[0]:
                yield MOVES[beside[0]]  # the plant is no floor: this only turns
            yield "do"
            continue
        known = view.cells("plant") or view.remembered("plant")
        if not known:
            if view.inventory["sapling"] < 1:
                return False
            if view.facing_name == "grass":
                yield "place_plant"
            elif not (yield from face_free(view, ("grass",))):
                return False
            continue
        path = route(view, {add(c, m) for c in known[:8] for m in MOVES}, dig)
        if not path:
            return False
        if not (yield from follow_path(view, path, dig)):
            yield "noop"  # blocked on the way: let the world move on
    return True


def _site_rel(view: ObsView, site: tuple[Cell, Cell]) -> tuple[Cell, Cell]:
    return _rel(view, site[0]), site[1]


def _build(view: ObsView, p: Cell, d: Cell, fed: list[bool]) -> Action:
    """Wall the pen at (p, d) and step in; True when sealed in at a facing p (or after progress
    worth a new look), False when it cannot go on, None when this site cannot be finished (no
    order places all its walls, or the next cannot be reached). Explores when there is nothing
    to build with and no stone or tree is known. Before sealing, drinks and eats up once
    (`fed` holds True after that)."""
    world = [add(view.position, c) for c in pen_cells(p, d)[0]]
    walls_world = [add(view.position, w) for w in pen_cells(p, d)[1]]
    todo = [w for w in walls_world if view.remembered_at(*_rel(view, w)) in OPEN]
    if wall_order(view, [_rel(view, w) for w in todo]) is None:
        return None
    if not (yield from _gather(view, len(todo) + 1, {*world, *walls_world})):
        yield from explore(view, 8, prefer=("stone",) if view.inventory["wood_pickaxe"] else ())
        return True  # nothing to build with, none known: look farther, then look again
    rank = wall_rank(_rel(view, world[0]), d)  # the plant's walls first, then a's, then q's
    order = wall_order(view, [_rel(view, w) for w in todo], rank)  # from where gathering left it
    if order is None:
        return None
    if order:  # placed or interrupted: look again; the next one unreachable: another site
        return True if (yield from _wall(view, order[0])) else None
    if _material(view) is None:
        return False
    if not fed and not (yield from _top_up(view)):
        fed.append(True)
        return True  # it walked away to drink or eat: look again
    _, a, q, e = world
    inward = (-d[0], -d[1])
    path = [] if _rel(view, e) == (0, 0) else route(view, {_rel(view, e)})
    if path is None or not (yield from follow_path(view, path)):
        return False
    for cell in (q, a):  # e -> q -> a: into the corridor
        yield MOVES[inward]
        if view.position != cell:
            return True
    yield MOVES[d]  # back to q, facing e
    if view.position != q:
        return True
    for _ in range(6):
        if (yield from guard(view)):  # one followed in: fight it in the doorway
            continue
        action = _material(view)
        if view.at(*d) not in OPEN or action is None:
            break
        yield action
    yield MOVES[inward]  # onto a, facing p
    return True
