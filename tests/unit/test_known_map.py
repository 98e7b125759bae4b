"""The view's known map and the searches over it answer exactly as the cell-by-cell reads do.

`ObsView` writes each step's window into its memory a column at a time, finds remembered cells
with `bytes.find`, and `route` and `explore`'s frontier search the known map (the memory with
the window over it, in one bytearray) instead of calling `remembered_at` per cell. Each is
compared here with the plain per-cell computation it replaces, on random worlds (creatures,
unseen cells, the player at the world's edge, goals outside it, digging through "unknown"), so a
coded action walks the same path, step by step, as before.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from rlgpt.worlds.crafter.recipes import achievements, game_data, semantic_names
from rlgpt.worlds.crafter.skills import navigate, survival
from rlgpt.worlds.crafter.skills.known import UNSUITED, pockets_known
from rlgpt.worlds.crafter.skills.navigate import WALKABLE, _frontier, route
from rlgpt.worlds.crafter.skills.view import MOVES, ObsView

NAMES = semantic_names()
MATERIALS = [i for i, n in enumerate(NAMES) if 0 < i < NAMES.index("player")]
CREATURES = [NAMES.index(n) for n in ("zombie", "skeleton", "cow", "arrow", "player")]
PLANT = NAMES.index("plant")
OPEN = [NAMES.index(n) for n in WALKABLE]


def _random_view(rng: random.Random, w: int, h: int, r: int = 4) -> ObsView:
    """A view whose memory and window are random: mostly open ground, some of it unseen."""
    memory = bytearray(w * h)
    for i in range(w * h):
        roll = rng.random()
        memory[i] = 0 if roll < 0.25 else rng.choice(OPEN) if roll < 0.8 else rng.choice(MATERIALS)
    px, py = rng.randrange(w), rng.randrange(h)
    if rng.random() < 0.3:  # at the edge of the world
        px = rng.choice((0, w - 1))
    side = 2 * r + 1
    flat = bytearray(side * side)
    for i in range(side * side):
        x, y = px + i // side - r, py + i % side - r
        if not (0 <= x < w and 0 <= y < h):
            continue
        roll = rng.random()
        flat[i] = rng.choice(CREATURES) if roll < 0.08 else PLANT if roll < 0.1 else (
            rng.choice(OPEN) if roll < 0.75 else rng.choice(MATERIALS)
        )  # fmt: skip
    view = ObsView(NAMES, game_data()["items"], achievements())
    view.update({"local": flat.hex(), "pos": (px, py), "memory": memory.hex(), "area": (w, h)})
    return view


def _remembered_at(view: ObsView, dx: int, dy: int) -> str:
    """remembered_at read cell by cell from the memory (the reference)."""
    r = view.radius
    if abs(dx) <= r and abs(dy) <= r:
        return view.at(dx, dy)
    (w, h), x, y = view._area, view._pos[0] + dx, view._pos[1] + dy
    if not (0 <= x < w and 0 <= y < h):
        return "none"
    v = view._memory[x * h + y]
    return NAMES[v] if v else "unknown"


def _remember(memory: bytearray, w: int, h: int, windows: list[Any]) -> None:
    """A window written into the memory cell by cell (the reference): creatures skipped."""
    objects = NAMES.index("player")
    for (px, py), flat, side in windows:
        r = side // 2
        for i, v in enumerate(flat):
            x, y = px + i // side - r, py + i % side - r
            if (0 < v < objects or v == PLANT) and 0 <= x < w and 0 <= y < h:
                memory[x * h + y] = v


@pytest.mark.parametrize("seed", range(12))
def test_remembered_cells_read_as_the_memory_says(seed):
    rng = random.Random(seed)
    w, h = rng.choice([(64, 64), (12, 9), (20, 33)])
    view = _random_view(rng, w, h)
    for dx in range(-w, w + 1, 3 if w > 20 else 1):
        for dy in range(-h, h + 1, 3 if h > 20 else 1):
            assert view.remembered_at(dx, dy) == _remembered_at(view, dx, dy), (dx, dy)
    px, py = view._pos
    for name in ("grass", "stone", "tree", "water", "plant"):
        got = view.remembered(name)  # the window is in the memory from here on
        want = NAMES.index(name)
        cells = [(i // h - px, i % h - py) for i, v in enumerate(view._memory) if v == want]
        assert got == sorted(cells, key=lambda p: (abs(p[0]) + abs(p[1]), p))


@pytest.mark.parametrize("seed", range(6))
def test_cells_in_view_read_as_the_window_says(seed):
    """view.cells finds a name's ids in the window with bytes.find (a hex window) or one id at
    a time (a window of columns): both as the window read cell by cell, nearest first."""
    rng = random.Random(seed)
    view = _random_view(rng, 64, 64)
    flat, side, r = bytes(view._flat), view._side, view.radius
    columns = [list(flat[i * side : (i + 1) * side]) for i in range(side)]
    for name in ("grass", "stone", "tree", "water", "plant", "zombie", "cow", "diamond"):
        want = NAMES.index(name)
        cells = [(i // side - r, i % side - r) for i, v in enumerate(flat) if v == want]
        expected = sorted(cells, key=lambda p: (abs(p[0]) + abs(p[1]), p))
        assert view.cells(name) == expected
        view.update({"local": columns, "pos": view._pos})
        assert view.cells(name) == expected
        view.update({"local": flat.hex(), "pos": view._pos})


@pytest.mark.parametrize("seed", range(8))
def test_windows_enter_the_memory_as_cell_by_cell_writes(seed):
    """Steps through random windows (creatures in them, the world's edge): the memory after
    each batch equals the cell-by-cell writes."""
    rng = random.Random(seed)
    w, h = 16, 12
    view = _random_view(rng, w, h)
    view.remembered("grass")  # its first window in the memory
    memory = bytearray(view._memory)
    windows = []
    for step in range(40):
        side = 9
        pos = (rng.randrange(-2, w + 2), rng.randrange(-2, h + 2))
        flat = bytes(rng.choice([*MATERIALS, *CREATURES, PLANT, *OPEN]) for _ in range(side * side))
        view.update({"local": flat.hex(), "pos": pos})
        windows.append((pos, flat, side))
        if step % 7 == 6:
            view.remembered("grass")  # the pending windows are written now
            _remember(memory, w, h, windows)
            windows = []
            assert view._memory == memory


def _reference(monkeypatch: pytest.MonkeyPatch) -> None:
    """route and the frontier search back to remembered_at per cell."""
    monkeypatch.setattr(navigate, "route_known", lambda *a: UNSUITED)
    monkeypatch.setattr(navigate, "edge_known", lambda *a: UNSUITED)


@pytest.mark.parametrize("seed", range(30))
def test_route_finds_the_path_the_cell_by_cell_search_finds(seed, monkeypatch):
    rng = random.Random(seed)
    w, h = rng.choice([(64, 64), (10, 14)])
    view = _random_view(rng, w, h)
    digs = [(), ("stone",), ("stone", "tree", "lava"), ("unknown",), ("stone", "unknown")]
    cases = []
    for dig in digs:
        for _ in range(3):
            n = rng.choice([1, 4, 30])
            goals = {(rng.randint(-w, w), rng.randint(-h, h)) for _ in range(n)}
            cases.append((goals, dig))
    cases.append(({(0, 0)}, ()))  # already there
    fast = [route(view, goals, dig) for goals, dig in cases]
    assert any(p for p in fast)  # some goals are reachable
    _reference(monkeypatch)
    assert fast == [route(view, goals, dig) for goals, dig in cases]


@pytest.mark.parametrize("seed", range(30))
def test_the_frontier_is_the_one_the_cell_by_cell_search_finds(seed, monkeypatch):
    rng = random.Random(seed)
    view = _random_view(rng, *rng.choice([(64, 64), (30, 20)]))
    cases = [((), ()), (("stone",), ()), ((), ("stone", "path")), (("stone",), ("water",)),
             (("unknown",), ("sand",))]  # fmt: skip
    fast = [_frontier(view, dig, prefer) for dig, prefer in cases]
    _reference(monkeypatch)
    assert fast == [_frontier(view, dig, prefer) for dig, prefer in cases]


def test_odd_arguments_take_the_cell_by_cell_search(monkeypatch):
    """Goals that are not a set of int pairs, or a dig through "none", are searched cell by
    cell, as before."""
    view = _random_view(random.Random(1), 20, 20)
    calls: list[tuple[int, int]] = []

    def grass(self: ObsView, dx: int, dy: int) -> str:
        calls.append((dx, dy))
        return "grass"

    monkeypatch.setattr(ObsView, "remembered_at", grass)
    odd: list[tuple[Any, tuple[str, ...], int]] = [
        ([(2, 0)], (), 2), ({(2.0, 0)}, (), 2), ({(True, 0)}, (), 1), ({(2, 0)}, ("none",), 2)
    ]  # fmt: skip
    for goals, dig, steps in odd:
        calls.clear()
        assert route(view, goals, dig) == [(1, 0)] * steps
        assert calls, (goals, dig)


def _shelter_case(seed: int) -> tuple[ObsView, int]:
    """A random view whose seen cells are mostly stone and trees: pockets, closed walls."""
    rng = random.Random(seed)
    view = _random_view(rng, *rng.choice([(64, 64), (12, 9), (20, 33)]))
    view._known_map()  # its window into the memory first
    stone, tree = NAMES.index("stone"), NAMES.index("tree")
    for i in range(len(view._memory)):
        if view._memory[i] and rng.random() < 0.7:
            view._memory[i] = rng.choice((stone, stone, tree))
    view._known = None
    return view, 3 * view.radius


def test_shelter_spots_are_the_ones_the_cell_by_cell_search_finds():
    """survival.shelter's search for a spot beside a stone pocket, over the known map, finds
    the cells that _pocket_at finds cell by cell (the player at the world's edge, unseen cells,
    creatures in the window), on 30 random worlds, most of which have pockets."""
    found = 0
    for seed in range(30):
        view, reach = _shelter_case(seed)
        fast = pockets_known(view, reach, "stone", survival._OPEN)
        slow = {
            (x, y)
            for x in range(-reach, reach + 1)
            for y in range(-reach, reach + 1)
            if view.remembered_at(x, y) in WALKABLE
            and any(survival._pocket_at(view, (x, y), d) for d in MOVES)
        }  # fmt: skip
        assert fast == slow, seed
        found += bool(slow)
    assert found >= 20, "too few worlds with a pocket: the comparison would prove little"
