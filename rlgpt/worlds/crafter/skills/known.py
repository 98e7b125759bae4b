"""Searches over the view's known map (ObsView._known_map: every world cell as far as the
episode has seen, in one bytearray) for navigate.py: a cell's name becomes a byte through one
`bytes.translate`, instead of a `remembered_at` call per cell. Each gives exactly what the
cell-by-cell search gives (tests/unit/test_known_map.py) and says UNSUITED where it would not
(no memory, odd arguments): the caller then searches cell by cell.

They read ObsView's private parts (its map, area, position, names): a public name on the view
would be part of the coded actions' API and of the prompts that document it."""

from __future__ import annotations

from typing import Any

from .view import MOVES, UNKNOWN, WALKABLE, ObsView

UNSUITED: Any = object()  # the known map cannot answer: the caller searches cell by cell


def route_known(
    view: ObsView, goals: set[tuple[int, int]], dig: tuple[str, ...]
) -> list[tuple[int, int]] | None:
    """navigate.route() over the view's known map (world cells in one bytearray, their step
    costs from one translate) instead of a remembered_at call per neighbour: the same search
    (buckets in the same order, neighbours in MOVES' order), so the same path. UNSUITED where
    it would differ: no memory, goals that are not a set of int pairs, a player outside the
    world, or a dig through "none" (outside the world)."""
    known = view._known_map()
    (w, h), (px, py) = view._area, view._pos
    if (
        known is None or "none" in dig or not isinstance(goals, set | frozenset)
        or not (0 <= px < w and 0 <= py < h) or w < 2 or h < 2
    ):  # fmt: skip
        return UNSUITED
    targets = set()
    for g in goals:
        if type(g) is not tuple or len(g) != 2 or type(g[0]) is not int or type(g[1]) is not int:
            return UNSUITED
        x, y = px + g[0], py + g[1]
        if 0 <= x < w and 0 <= y < h:  # a goal outside the world is never reached
            targets.add(x * h + y)
    names = view._names
    table = bytearray(256)
    for v, name in enumerate(names[:255]):
        table[v] = 1 if name in WALKABLE else 2 if name in dig else 0
    table[UNKNOWN] = 2 if "unknown" in dig else 0
    cost = known.translate(table)
    start = px * h + py
    if 2 not in cost:  # every step costs 1: the buckets are a breadth-first queue
        return _walk_known(cost, start, targets, h)
    far = 1 << 30
    dist = [far] * (w * h)
    dist[start] = 0
    prev: dict[int, int] = {}
    buckets: list[list[int]] = [[start]]
    c, top = 0, (w - 1) * h
    while c < len(buckets):
        for cur in buckets[c]:
            if dist[cur] != c:
                continue
            if cur in targets:
                return _steps_back(prev, cur, h)
            y = cur % h
            # MOVES' order: left, right, up, down (a neighbour outside the world is "none")
            for nxt in (
                cur - h if cur >= h else -1,
                cur + h if cur < top else -1,
                cur - 1 if y > 0 else -1,
                cur + 1 if y < h - 1 else -1,
            ):
                if nxt < 0:
                    continue
                step = cost[nxt]
                if not step or dist[nxt] <= c + step:
                    continue
                dist[nxt], prev[nxt] = c + step, cur
                while len(buckets) <= c + step:
                    buckets.append([])
                buckets[c + step].append(nxt)
        c += 1
    return None


def _steps_back(prev: dict[int, int], cur: int, h: int) -> list[tuple[int, int]]:
    """The unit steps from the search's start to cell `cur`, read back through `prev`."""
    steps = []
    while cur in prev:
        p = prev[cur]
        d = cur - p
        steps.append((1, 0) if d == h else (-1, 0) if d == -h else (0, d))
        cur = p
    return steps[::-1]


def _walk_known(
    cost: bytearray, start: int, targets: set[int], h: int
) -> list[tuple[int, int]] | None:
    """route_known's search where no cell costs 2: the cells in the order its buckets take them
    (first in, first out; a cell joins from the first cell that reaches it, its neighbours in
    MOVES' order), so the same path, with a bytearray of the cells still open instead of the
    distances. Most routes dig nothing (a walk to a tree, a table, water)."""
    open_ = bytearray(cost)
    open_[start] = 0
    prev: dict[int, int] = {}
    queue, size, last = [start], len(cost), h - 1
    for cur in queue:  # grows as it goes: breadth first
        if cur in targets:
            return _steps_back(prev, cur, h)
        y = cur % h
        n = cur - h  # MOVES' order: left, right, up, down
        if n >= 0 and open_[n]:
            open_[n] = 0
            prev[n] = cur
            queue.append(n)
        n = cur + h
        if n < size and open_[n]:
            open_[n] = 0
            prev[n] = cur
            queue.append(n)
        if y and open_[cur - 1]:
            open_[cur - 1] = 0
            prev[cur - 1] = cur
            queue.append(cur - 1)
        if y < last and open_[cur + 1]:
            open_[cur + 1] = 0
            prev[cur + 1] = cur
            queue.append(cur + 1)
    return None


def table(view: ObsView, names: tuple[str, ...]) -> bytes:
    """For bytes.translate over the known map: 1 where the cell's name is one of `names`."""
    table = bytearray(256)
    for v, name in enumerate(view._names[:UNKNOWN]):
        table[v] = name in names
    table[UNKNOWN] = "unknown" in names
    return bytes(table)


def edge_known(
    view: ObsView, dig: tuple[str, ...], prefer: tuple[str, ...]
) -> set[tuple[int, int]] | Any:
    """navigate._frontier's target cells over the known map, the same set as its remembered_at
    search (cells outside the world are "none"); UNSUITED without a memory, with the player outside
    the world, or when "none" counts as open or preferred. Whole-map bit operations (`_Grid`)
    instead of a loop over the cells around the player."""
    known = view._known_map()
    (w, h), (px, py), r = view._area, view._pos, view.radius
    opened = WALKABLE + tuple(dig)
    if known is None or not (0 <= px < w and 0 <= py < h) or "none" in opened + prefer:
        return UNSUITED
    grid = _Grid(w, h)
    ring = grid.square(px, py, 4 * r) & ~grid.square(px, py, 1)
    edge = grid.bits(known, table(view, opened)) & ring
    edge &= grid.beside(grid.bits(known, table(view, ("unknown",))))
    if prefer and edge:
        liked = grid.bits(known, table(view, prefer))
        edge = edge & (liked | grid.beside(liked)) or edge
    return grid.cells(edge, px, py)


def pockets_known(view: ObsView, reach: int, stone: str, opened: tuple[str, ...]) -> Any:
    """survival.shelter's spots over the known map: the walkable cells within `reach` (Chebyshev)
    of the player from which some move d finds a pocket (survival._pocket_at: cells c+d and c+2d
    are `stone`, and every other neighbour of both is closed, not one of `opened`; "none",
    outside the world, is open). The same set as the remembered_at search; UNSUITED without a
    memory or with the player outside the world."""
    known = view._known_map()
    (w, h), (px, py) = view._area, view._pos
    if known is None or not (0 <= px < w and 0 <= py < h) or "none" not in opened:
        return UNSUITED
    grid = _Grid(w, h)
    rock = grid.bits(known, table(view, (stone,)))
    shut = grid.bits(known, table(view, opened)) ^ grid.everywhere  # closed, inside the world
    spots = 0
    for d in MOVES:
        a, b = d, (2 * d[0], 2 * d[1])
        pocket = grid.at(rock, a) & grid.at(rock, b)
        around = {(e[0] + m[0], e[1] + m[1]) for e in (a, b) for m in MOVES} - {a, b, (0, 0)}
        for wall in around:
            pocket &= grid.at(shut, wall)
        spots |= pocket
    spots &= grid.bits(known, table(view, WALKABLE)) & grid.square(px, py, reach)
    return grid.cells(spots, px, py)


class _Grid:
    """The known map as a Python int, one byte per world cell (x-major, cell i at bits 8i..8i+7,
    each byte 0 or 1): a move is a shift, a set operation one &, | or ^ over the whole map."""

    def __init__(self, w: int, h: int) -> None:
        self.w, self.h = w, h
        self.everywhere = int.from_bytes(b"\1" * (w * h), "little")

    def bits(self, known: bytearray, tab: bytes) -> int:
        """The cells whose byte `tab` maps to 1 (table())."""
        return int.from_bytes(known.translate(tab), "little")

    def _rows(self, dy: int) -> int:
        """The cells whose row y + dy lies inside the world."""
        key = (self.w, self.h, dy)
        rows = _ROWS.get(key)
        if rows is None:
            col = bytes(int(0 <= y + dy < self.h) for y in range(self.h))
            rows = _ROWS[key] = int.from_bytes(col * self.w, "little")
        return rows

    def at(self, cells: int, d: tuple[int, int]) -> int:
        """The cells c whose neighbour c + d is inside the world and in `cells`."""
        shift = 8 * (d[0] * self.h + d[1])
        moved = cells >> shift if shift >= 0 else cells << -shift
        return moved & self._rows(d[1]) & self.everywhere

    def beside(self, cells: int) -> int:
        """The cells with one of their four neighbours in `cells`."""
        out = 0
        for d in MOVES:
            out |= self.at(cells, d)
        return out

    def square(self, px: int, py: int, r: int) -> int:
        """The cells (inside the world) within Chebyshev distance r of (px, py)."""
        w, h = self.w, self.h
        y0, y1 = max(0, py - r), min(h - 1, py + r)
        if y0 > y1:
            return 0
        col = int.from_bytes(b"\1" * (y1 - y0 + 1), "little")
        out = 0
        for x in range(max(0, px - r), min(w - 1, px + r) + 1):
            out |= col << 8 * (x * h + y0)
        return out

    def cells(self, cells: int, px: int, py: int) -> set[tuple[int, int]]:
        """`cells` as (dx, dy) from the player at (px, py)."""
        found, h = set(), self.h
        data = cells.to_bytes(self.w * h, "little")
        i = data.find(1)
        while i >= 0:
            found.add((i // h - px, i % h - py))
            i = data.find(1, i + 1)
        return found


_ROWS: dict[tuple[int, int, int], int] = {}
