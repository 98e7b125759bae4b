"""grow_plant's pen on real Crafter worlds arranged by hand: where it builds, that it walls the
plant and the player in, and that the plant ripens there and is eaten."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
import pytest
from crafter import objects

from rlgpt.worlds.crafter.recipes import achievements, actions, game_data, semantic_names
from rlgpt.worlds.crafter.skills import pen
from rlgpt.worlds.crafter.skills.farm import _gather, grow_plant, sow
from rlgpt.worlds.crafter.skills.pen import OPEN, pen_cells, pen_site, site_cost, wall_order
from rlgpt.worlds.crafter.skills.view import ObsView
from tests.support.world import drive, grass_plain, one_at_a_time, view_of

CLOSED = ("tree", "water", "stone", "table")


@pytest.fixture
def env():
    return grass_plain(seed=3)


def test_a_pen_is_a_corridor_of_four_cells_and_seven_walls():
    cells, walls = pen_cells((0, 0), (0, 1))  # plant at the origin, the way in below it
    assert cells == [(0, 0), (0, 1), (0, 2), (0, 3)]
    assert sorted(walls) == sorted([(0, -1), (1, 0), (-1, 0), (1, 1), (-1, 1), (1, 2), (-1, 2)])


def test_the_site_with_walls_already_standing_wins(env):
    """On open grass a pen needs 8 placed walls (7 and the entrance); two rows of trees that
    leave a corridor open at one end need only the entrance, so that site is chosen."""
    x, y = (int(v) for v in env.player.pos)
    view = view_of(env)
    assert site_cost(view, (0, -2), (0, 1)) == 8
    for dy in range(-1, 3):  # corridor cells (3, -1)..(3, 2), open at the bottom end (3, 3)
        env.world[(x + 2, y + dy)] = "tree"
        env.world[(x + 4, y + dy)] = "tree"
    env.world[(x + 3, y - 2)] = "tree"
    env.refresh()
    view = view_of(env)
    assert site_cost(view, (3, -1), (0, 1)) == 1
    assert pen_site(view) is None  # no sapling to plant, no plant growing: nothing to pen
    env.player.inventory["sapling"] = 1
    env.refresh()
    view = view_of(env)
    assert pen_site(view) == ((3, -1), (0, 1))


def test_of_two_sites_alike_the_one_without_a_table_among_its_walls_wins(env):
    """A skeleton's arrow turns a table into a path, opening the pen: two nooks the same
    distance away, one closed behind by a tree and one by a table, and the tree's is chosen
    (on a tie the table's would be: it sorts first)."""
    x, y = (int(v) for v in env.player.pos)
    for side, back in ((3, "tree"), (-3, "table")):
        env.world[(x + side - 1, y - 2)] = "tree"
        env.world[(x + side + 1, y - 2)] = "tree"
        env.world[(x + side, y - 3)] = back
    env.player.inventory["sapling"] = 1
    env.refresh()
    view = view_of(env)
    assert site_cost(view, (3, -2), (0, 1)) == site_cost(view, (-3, -2), (0, 1)) == 5
    assert pen_site(view) == ((3, -2), (0, 1))


def test_no_site_is_chosen_whose_walls_no_order_can_place(env):
    """A wall is placed from a neighbour of its cell, stepped onto from the cell beyond. With
    trees around one wall cell of every pen around a growing plant, the last wall could never
    be placed: no site is chosen (it was, and the player tried it again every call)."""
    x, y = (int(v) for v in env.player.pos)
    env.world.add(objects.Plant(env.world, (x + 3, y - 1)))
    env.refresh()
    assert pen_site(view_of(env)) is not None
    for dx, dy in ((5, -1), (4, -2), (4, 1)):
        env.world[(x + dx, y + dy)] = "tree"
    env.refresh()
    view = view_of(env)
    site = ((3, -1), (0, 1))
    walls = [w for w in pen_cells(*site)[1] if view.remembered_at(*w) in OPEN]
    assert site_cost(view, *site) == 7 and wall_order(view, walls) is None
    assert pen_site(view) is None


class _Ground:
    """The map wall_order reads: grass, with `closed` cells (relative) of tree."""

    def __init__(self, closed: set[tuple[int, int]]) -> None:
        self.closed = closed

    def remembered_at(self, dx: int, dy: int) -> str:
        return "tree" if (dx, dy) in self.closed else "grass"


def _works(view, order) -> bool:
    return all(pen.placeable(view, x, set(order[:i])) for i, x in enumerate(order))


def test_wall_order_finds_an_order_exactly_when_one_exists_and_its_work_is_bounded(monkeypatch):
    """Against every permutation, on random layouts: an order is returned exactly when one
    exists, and it works. With no order (every pen site of a crowded memory), the answer
    takes at most n^2 checks: the search that decided it took 2^n and, on Craftax-Classic,
    over 2 s of a worker's CPU in one reply, which killed the call."""
    rng = np.random.default_rng(0)
    for trial in range(300):
        todo = list({(int(a), int(b)) for a, b in rng.integers(-3, 4, size=(6, 2))} - {(0, 0)})
        closed = {
            (int(a), int(b)) for a, b in rng.integers(-5, 6, size=(int(rng.integers(4, 30)), 2))
        }
        view = _Ground(closed - set(todo))
        exists = any(_works(view, list(p)) for p in itertools.permutations(todo))
        order = wall_order(view, todo)
        assert (order is not None) == exists, trial
        if order is not None:
            assert sorted(order) == sorted(todo) and _works(view, order), trial
    calls = [0]
    real = pen.placeable

    def counted(*args):
        calls[0] += 1
        return real(*args)

    monkeypatch.setattr(pen, "placeable", counted)
    # a 5x5 block of walls inside a ring of trees: the last wall would stand among walls
    block = [(x, y) for x in range(-2, 3) for y in range(-2, 3)]
    ring = {(x, y) for x in range(-3, 4) for y in range(-3, 4) if max(abs(x), abs(y)) == 3}
    assert wall_order(_Ground(ring), block) is None
    assert calls[0] <= len(block) ** 2


def test_grow_plant_walls_a_pen_plants_and_eats_the_plant_ripe(env):
    """With a sapling and a wood pickaxe on open grass, stone and water in view: it sows the
    sapling first (a plant grows from then on), mines stone, walls a pen around it, seals
    itself in with the plant, waits out the ~300 steps and eats it."""
    x, y = (int(v) for v in env.player.pos)
    for dx in range(2, 5):
        for dy in range(-4, -1):
            env.world[(x + dx, y + dy)] = "stone"
    for dx in range(2, 5):
        env.world[(x + dx, y + 4)] = "water"
    env.player.inventory["sapling"] = 1
    env.player.inventory["wood_pickaxe"] = 1
    env.refresh()
    view = view_of(env)
    taken, eaten = drive(env, view, grow_plant(view), limit=900)
    assert eaten is True and env.player.achievements["eat_plant"] == 1
    assert taken.count("place_plant") == 1 and "place_stone" in taken
    first_plant = taken.index("place_plant")
    assert first_plant < taken.index("place_stone")  # sown before the walls, not at the seal
    assert len(taken) - first_plant > 300  # a sapling ripens in ~300 steps, not sooner
    px, py = (int(v) for v in env.player.pos)
    fx, fy = (int(v) for v in env.player.facing)
    assert type(env.world[(px + fx, py + fy)][1]).__name__ == "Plant"
    assert len(_room(env, (px, py))) == 2  # sealed: the player's cell and the one behind
    plant = (px + fx, py + fy)
    sides = [(dx, dy) for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)) if (dx, dy) != (-fx, -fy)]
    assert all(env.world[(plant[0] + dx, plant[1] + dy)][0] in CLOSED for dx, dy in sides)
    assert env.player.health > 0


def test_the_sapling_is_sown_in_a_nook_where_its_pen_will_stand(env):
    """Holding a sapling on open grass with a nook in reach (grass with trees on three sides):
    it walks there and plants the sapling in the nook, from the open side, not in front of
    itself where a cow or a zombie could step beside it from anywhere."""
    x, y = (int(v) for v in env.player.pos)
    nook = (x + 3, y - 2)
    for dx, dy in ((-1, 0), (1, 0), (0, -1)):
        env.world[(nook[0] + dx, nook[1] + dy)] = "tree"
    env.player.inventory["sapling"] = 1
    env.refresh()
    view = view_of(env)
    taken, planted = drive(env, view, sow(view), limit=30)
    assert planted is True and taken[-1] == "place_plant", taken
    assert type(env.world[nook][1]).__name__ == "Plant"
    assert env.player.inventory["sapling"] == 0
    assert tuple(env.player.pos) == (nook[0], nook[1] + 1)  # on a, the one open side


def test_a_cow_near_where_the_sapling_goes_is_eaten_before_it_is_sown(env):
    """A cow that wanders next to a plant kills it: one within three cells of the nook is hit
    until it is eaten, and only then is the sapling sown there."""
    x, y = (int(v) for v in env.player.pos)
    nook = (x + 3, y - 2)
    for dx, dy in ((-1, 0), (1, 0), (0, -1)):
        env.world[(nook[0] + dx, nook[1] + dy)] = "tree"
    env.world.add(objects.Cow(env.world, np.array((nook[0] + 1, nook[1] + 2))))
    env.player.inventory["sapling"] = 1
    env.refresh()
    view = view_of(env)
    taken = []
    for _ in range(4):  # the template calls sow again after a chase
        more, _ = drive(env, view, sow(view), limit=60)
        taken += more
        if "place_plant" in more:
            break
    assert env.player.achievements["eat_cow"] == 1, taken
    assert taken.index("place_plant") > max(i for i, a in enumerate(taken) if a == "do")
    assert type(env.world[nook][1]).__name__ == "Plant"


def test_the_plants_own_walls_are_built_before_the_rest_of_the_pen(env):
    """On open grass with a plant growing and stones held, the first three walls placed are
    the plant's: it is open on one side only (a, where the player comes in) while the rest
    of the pen is built."""
    x, y = (int(v) for v in env.player.pos)
    plant = (x + 2, y - 3)
    env.world.add(objects.Plant(env.world, np.array(plant)))
    env.player.inventory["stone"] = 9
    env.player.inventory["wood_pickaxe"] = 1
    taken = _play(env, lambda t: t.count("place_stone") == 3, 80)
    assert taken.count("place_stone") == 3, taken
    around = [env.world[(plant[0] + dx, plant[1] + dy)][0] for dx, dy in MOVES4]
    assert sorted(around).count("stone") == 3, around


def test_low_on_water_while_the_pen_is_built_it_drinks_first(env):
    """Building takes ~100 steps and the wait in the pen ~200 more: below 4 drink, with water
    in view, it drinks to full before it mines or walls anything."""
    x, y = (int(v) for v in env.player.pos)
    for dx in range(2, 5):
        for dy in range(-4, -1):
            env.world[(x + dx, y + dy)] = "stone"
    for dx in range(-4, -1):
        env.world[(x + dx, y + 3)] = "water"
    env.world.add(objects.Plant(env.world, np.array((x + 3, y + 1))))
    env.player.inventory["wood_pickaxe"] = 1
    env.player.inventory["drink"] = 2
    inv = env.player.inventory
    taken = _play(env, lambda t: inv["drink"] == 9 or inv["stone"] > 0, 60)
    assert inv["drink"] == 9 and inv["stone"] == 0 and "place_stone" not in taken, taken


def test_gathering_wood_for_tables_stops_for_stone_that_comes_into_view(env):
    """With a pickaxe and no stone known, walls must come from trees (two wood a table, which
    an arrow breaks). Stone that comes into view on the way is mined instead."""
    x, y = (int(v) for v in env.player.pos)
    for dx in range(3, 7):
        env.world[(x + dx, y)] = "tree"
    for dx in (8, 9):  # out of view (four cells each way) until the player is at x + 4
        for dy in (-1, 0, 1):
            env.world[(x + dx, y + dy)] = "stone"
    env.player.inventory["wood_pickaxe"] = 1
    env.refresh()
    view = view_of(env)
    assert view.cells("stone") == [] and view.remembered("stone") == []
    taken, ok = drive(env, view, _gather(view, 4, set()), limit=120)
    assert ok is True and env.player.inventory["stone"] >= 4, taken
    assert env.player.inventory["wood"] < 8  # it stopped short of wood for four tables


MOVES4 = ((1, 0), (-1, 0), (0, 1), (0, -1))


def _room(env, start: tuple[int, int]) -> set[tuple[int, int]]:
    """The walkable cells reachable from `start` (up to 50: open ground)."""
    seen, todo = {start}, [start]
    while todo and len(seen) < 50:
        x, y = todo.pop()
        for nxt in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            mat, obj = env.world[nxt]
            if nxt not in seen and mat in ("grass", "sand", "path") and obj is None:
                seen.add(nxt)
                todo.append(nxt)
    return seen


# the pen's walls around the player at a (relative): behind the plant, its sides, a's, q's, e
PEN_WALLS = ((0, -2), (-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1), (0, 2))


def _sealed_in(env, walls: dict[tuple[int, int], str]) -> tuple[int, int]:
    """The player at a of a finished pen (the plant above it, growing, the player facing it),
    each wall stone unless `walls` says otherwise; the player's cell."""
    x, y = (int(v) for v in env.player.pos)
    for dx, dy in PEN_WALLS:
        env.world[(x + dx, y + dy)] = walls.get((dx, dy), "stone")
    env.world.add(objects.Plant(env.world, np.array((x, y - 1))))
    env.player.facing = (0, -1)
    return x, y


def _play(env, stop: Callable[[list[str]], bool], limit: int) -> list[str]:
    """Step grow_plant (it never returns while it waits) until `stop(taken)` or `limit`."""
    env.refresh()
    view = view_of(env)
    gen, index = one_at_a_time(grow_plant(view)), {a: i for i, a in enumerate(actions())}
    taken: list[str] = []
    while len(taken) < limit and not stop(taken):
        taken.append(next(gen))
        _, _, _, _, info = env.step(index[taken[-1]])
        view.update(env.view_state(info))
    return taken


def test_sealed_in_it_drinks_from_water_beside_the_room_and_turns_back(env):
    """In a finished pen with water as one wall: thirsty, it turns to the water (no step: water
    is no floor), drinks to full, turns back to the plant, and never leaves the room."""
    x, y = _sealed_in(env, {(1, 0): "water"})
    env.player.inventory["drink"] = 3
    taken = _play(env, lambda t: bool(t) and t[-1] == "move_up", 20)
    assert taken[0] == "move_right" and taken.count("do") >= 6, taken
    assert env.player.inventory["drink"] == 9 and tuple(env.player.pos) == (x, y)
    assert tuple(env.player.facing) == (0, -1)  # back to the plant


@pytest.mark.parametrize("gap", [(1, 0), (0, 2)], ids=["beside the player", "the entrance"])
def test_a_wall_an_arrow_broke_is_walled_again_from_inside(env, gap):
    """Sealed in with the plant, one wall of the room turned to path (an arrow hit a table):
    it walls the gap from inside (beyond it, for a side gap) with a stone it holds, never
    leaves, and faces the plant again, sealed."""
    x, y = _sealed_in(env, {gap: "path"})
    env.player.inventory["stone"] = 1
    assert len(_room(env, (x, y))) > 3
    taken = _play(env, lambda t: "place_stone" in t[:-2], 12)
    assert taken.count("place_stone") == 1 and env.player.inventory["stone"] == 0, taken
    assert len(_room(env, (x, y))) <= 3, "sealed again"
    assert all(abs(px - x) <= 1 and abs(py - y) <= 2 for px, py in _room(env, (x, y)))
    assert tuple(env.player.pos) == (x, y) and tuple(env.player.facing) == (0, -1), taken


def test_a_zombie_in_through_a_gap_beside_q_is_fought_there_and_q_walled(env):
    """The gap beside q cannot be faced from inside; a zombie that comes through it into q is
    fought from a, which turns the player to q: once it is gone, q is walled, and the room
    is a alone, sealed, the player facing the plant."""
    x, y = _sealed_in(env, {(1, 1): "path"})
    env.world.add(objects.Zombie(env.world, np.array((x, y + 1)), env.player))
    env.player.inventory["stone"] = 1
    env.player.inventory["stone_sword"] = 1
    taken = _play(env, lambda t: bool(t) and t[-1] == "move_up" and "place_stone" in t, 40)
    assert env.world[(x, y + 1)][0] == "stone", taken
    assert _room(env, (x, y)) == {(x, y)} and tuple(env.player.pos) == (x, y)
    assert tuple(env.player.facing) == (0, -1), taken


def test_where_no_creature_harms_a_plant_it_is_grown_in_the_open_without_a_pen(env):
    """Under Craftax-Classic's plant rules (view.rules: no creature harms a plant), grow_plant
    builds no pen: thirsty, it drinks first (keep_alive), sows the sapling on the grass, then
    stays beside the plant hitting it, and eats it once it is ripe."""
    from rlgpt.worlds.craftax_classic.facts import PLANT_RULES

    x, y = (int(v) for v in env.player.pos)
    for dx in range(2, 5):
        env.world[(x + dx, y + 4)] = "water"
    env.player.inventory.update(sapling=1, wood_pickaxe=1, stone=5, drink=2)
    env.refresh()
    view = ObsView(semantic_names(), game_data()["items"], achievements(), rules=PLANT_RULES)
    view.update(env.view_state(env.last_info, start=True))
    assert view.rules["plant_hurt_by"] == [] and view_of(env).rules["plant_hurt_by"]
    index, gen = {a: i for i, a in enumerate(actions())}, one_at_a_time(grow_plant(view))
    taken: list[str] = []
    for _ in range(60):
        taken.append(next(gen))
        view.update(env.view_state(env.step(index[taken[-1]])[-1]))
    assert not {"place_stone", "place_table"} & set(taken)  # no pen
    assert taken.count("place_plant") == 1 and env.player.achievements["collect_drink"] >= 1
    assert taken.index("do") < taken.index("place_plant")  # it drank before it sowed
    assert taken[-10:] == ["do"] * 10  # beside the plant, hitting it
    px, py = (int(v) for v in env.player.pos)
    fx, fy = (int(v) for v in env.player.facing)
    plant = env.world[(px + fx, py + fy)][1]
    assert type(plant).__name__ == "Plant"
    plant.grown = 300  # ripe after its next update
    rest, eaten = drive(env, view, gen, limit=20)
    assert eaten is True and env.player.achievements["eat_plant"] == 1
