"""Where a plant's pen goes: its cells, the walls it still needs, the cheapest site in reach,
and an order in which its walls can be placed (farm.py builds it). The pen is a
straight corridor of four cells, entrance e, room cells q and a, and the plant's grass cell p
at the end; every other neighbour of q, a and p is a wall. Cells are relative to the player
unless a name says world."""

from __future__ import annotations

from collections import deque

from .night import _PASSING
from .view import MOVES, WALKABLE, ObsView

Cell = tuple[int, int]
# walkable ground, maybe with a creature or the player on it (it needs a wall)
OPEN = (*WALKABLE, *_PASSING, "player")
_BAD = ("unknown", "none", "lava", "plant")  # unseen, off the map, deadly, or someone's plant
REACH = 12  # how far (cells from the player) a pen site may lie


def add(a: Cell, b: Cell, k: int = 1) -> Cell:
    return a[0] + k * b[0], a[1] + k * b[1]


def pen_cells(p: Cell, d: Cell) -> tuple[list[Cell], list[Cell]]:
    """([p, a, q, e], walls) of the pen whose plant cell is p and whose way in runs along d
    (from p toward the entrance). Cells in any frame (relative or world)."""
    side = (d[1], d[0])
    a, q, e = add(p, d), add(p, d, 2), add(p, d, 3)
    walls = [add(p, d, -1), *(add(c, side, s) for c in (p, a, q) for s in (1, -1))]
    return [p, a, q, e], walls


def own_walls(p: Cell, d: Cell) -> list[Cell]:
    """The plant's walls: every neighbour of p but a."""
    return [add(p, m) for m in MOVES if m != d]


def wall_rank(p: Cell, d: Cell) -> dict[Cell, int]:
    """Each wall of the pen at (p, d) by how near the plant it stands: 0 the plant's own, 1
    a's sides, 2 q's. Built in that order, the plant is open on one side, then along a
    corridor that narrows toward it, while the rest is built."""
    side = (d[1], d[0])
    rank = {w: 0 for w in own_walls(p, d)}
    for k in (1, 2):
        rank |= {add(add(p, d, k), side, s): k for s in (1, -1)}
    return rank


def site_cost(view: ObsView, p: Cell, d: Cell) -> int | None:
    """Walls still to place for the pen at (p, d), the entrance's included; None if it cannot
    be built there (p neither grass nor a plant, the corridor blocked, a wall cell unseen or
    lava)."""
    (_, a, q, e), walls = pen_cells(p, d)
    if view.remembered_at(*p) not in ("grass", "plant", *_PASSING, "player"):
        return None  # (one standing on p stands on the grass it was chosen for)
    if any(view.remembered_at(*c) not in OPEN for c in (a, q, e)):
        return None
    names = [view.remembered_at(*w) for w in walls]
    if any(n in _BAD for n in names):
        return None
    return 1 + sum(n in OPEN for n in names)


def _distances(view: ObsView, reach: int) -> dict[Cell, int]:
    """Steps from the player to every remembered walkable cell within `reach`."""
    dist = {(0, 0): 0}
    todo = deque([(0, 0)])
    while todo:
        cur = todo.popleft()
        for m in MOVES:
            nxt = add(cur, m)
            if nxt in dist or max(abs(nxt[0]), abs(nxt[1])) > reach:
                continue
            if view.remembered_at(*nxt) in OPEN:
                dist[nxt] = dist[cur] + 1
                todo.append(nxt)
    return dist


def pen_site(
    view: ObsView, reach: int = REACH, banned: frozenset[Cell] = frozenset()
) -> tuple[Cell, Cell] | None:
    """(p, d) of the cheapest pen within `reach` (relative cells): fewest walls to place
    (those of p itself count twice: the plant is exposed there while the rest is built), then
    nearest; water beside the room counts as three walls' worth (the player drinks from
    inside), a plant already growing on p as two (it ripens sooner), each path cell within 4
    of p (where skeletons walk and shoot) as a quarter of one. Grass for p only with a
    sapling held; no p in `banned` (world cells of sites found unbuildable or kept clear), no
    site whose walls no order can place (`wall_order`)."""
    dist = _distances(view, reach)
    scored: list[tuple[int, Cell, Cell]] = []
    sapling = view.inventory["sapling"] > 0
    for e, steps in dist.items():
        for d in MOVES:
            p = add(e, d, -3)
            if add(view.position, p) in banned:
                continue
            cost = site_cost(view, p, d)
            growing = view.remembered_at(*p) == "plant"
            if cost is None or not (growing or sapling):
                continue
            side = (d[1], d[0])
            water = any(
                view.remembered_at(*add(c, side, s)) == "water"
                for c in (add(p, d), add(p, d, 2))
                for s in (1, -1)
            )
            tunnels = sum(
                view.remembered_at(p[0] + i, p[1] + j) == "path"
                for i in range(-4, 5)
                for j in range(-4, 5)
            )
            bare = sum(view.remembered_at(*w) in OPEN for w in own_walls(p, d))
            walls = pen_cells(p, d)[1]
            tables = sum(view.remembered_at(*w) == "table" for w in walls)
            s = 8 * (cost + bare) + 6 * tables + steps - 24 * water - 16 * growing + 2 * tunnels
            scored.append((s, p, d))
    for _, p, d in sorted(scored):  # the cheapest whose walls can all be placed
        walls = [w for w in pen_cells(p, d)[1] if view.remembered_at(*w) in OPEN]
        if wall_order(view, walls) is not None:
            return p, d
    return None


def placeable(view: ObsView, x: Cell, blocked: set[Cell]) -> bool:
    """Some neighbour y of x, and the cell z beyond it, are open ground not in `blocked`: the
    player can step from z onto y, facing x, and place a wall there."""
    for m in MOVES:
        cells = (add(x, m), add(x, m, 2))
        if all(c not in blocked and view.remembered_at(*c) in WALKABLE for c in cells):
            return True
    return False


_SEARCH_CHECKS = 400  # placeable() checks the preferred order may take (a pen has ~8 walls)


def wall_order(
    view: ObsView, todo: list[Cell], rank: dict[Cell, int] | None = None
) -> list[Cell] | None:
    """The walls `todo` (relative cells) in an order in which each can still be placed after
    the ones before it stand (`placeable`): by `rank` where given (lowest first), then
    nearest first; None when no order works (a wall would have to be placed from a cell
    walled before it). Bounded work: at most n^2 checks decide whether any order exists, and
    the preferred order is searched within a budget (else the order found backwards)."""
    key = {x: ((rank or {}).get(x, 0), abs(x[0]) + abs(x[1])) for x in todo}
    backwards = _last_first(view, todo, key)
    if backwards is None:
        return None  # no order works: decided without the search, whose failure is 2^n
    dead: set[frozenset[Cell]] = set()
    budget = [_SEARCH_CHECKS]

    def search(left: frozenset[Cell]) -> list[Cell] | None:
        if not left:
            return []
        if left in dead or budget[0] <= 0:
            return None
        blocked = set(todo) - left
        for x in sorted(left, key=key.__getitem__):
            budget[0] -= 1
            if placeable(view, x, blocked):
                rest = search(left - {x})
                if rest is not None:
                    return [x, *rest]
        dead.add(left)
        return None

    return search(frozenset(todo)) or backwards


def _last_first(
    view: ObsView, todo: list[Cell], key: dict[Cell, tuple[int, int]]
) -> list[Cell] | None:
    """An order for `todo` built from its end: the last wall is one placeable with all the
    others standing, and so on. Fewer walls standing never makes a wall unplaceable, so this
    finds an order whenever one exists (None otherwise); among the walls that may go last,
    the least preferred goes last."""
    left, tail = set(todo), []
    while left:
        fits = [x for x in left if placeable(view, x, left - {x})]
        if not fits:
            return None
        x = max(fits, key=key.__getitem__)
        tail.append(x)
        left.remove(x)
    return tail[::-1]
