"""Searches over the view's known map (ObsView._known_map: every world cell as far as the
episode has seen, in one bytearray) for navigate.py: a cell's name becomes a byte through one
`bytes.translate`, instead of a `remembered_at` call per cell. Each gives exactly what the
cell-by-cell search gives (tests/unit/test_known_map.py) and says UNSUITED where it would not
(no memory, odd arguments): the caller then searches cell by cell.

They read ObsView's private parts (its map, area, position, names): a public name on the view
would be part of the coded actions' API and of the prompts that document it."""

from __future__ import annotations

from typing import Any

from .view import UNKNOWN, WALKABLE, ObsView

UNSUITED: Any = object()  # the known map cannot answer: the caller searches cell by cell


def route_known(
    view: ObsView, goals: set[tuple[int, int]], dig: tuple[str, ...]
) -> list[tuple[int, int]] | None:  # fmt: skip
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
                steps = []
                while cur in prev:
                    p = prev[cur]
                    d = cur - p
                    steps.append((1, 0) if d == h else (-1, 0) if d == -h else (0, d))
                    cur = p
                return steps[::-1]
            y = cur % h
            # MOVES' order: left, right, up, down (a neighbour outside the world is "none")
            for nxt in (
                cur - h if cur >= h else -1, cur + h if cur < top else -1,
                cur - 1 if y > 0 else -1, cur + 1 if y < h - 1 else -1,
            ):  # fmt: skip
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


def table(view: ObsView, names: tuple[str, ...]) -> bytes:
    """For bytes.translate over the known map: 1 where the cell's name is one of `names`."""
    table = bytearray(256)
    for v, name in enumerate(view._names[:UNKNOWN]):
        table[v] = name in names
    table[UNKNOWN] = "unknown" in names
    return bytes(table)


def edge_known(
    view: ObsView, dig: tuple[str, ...], prefer: tuple[str, ...]
) -> set[tuple[int, int]] | Any:  # fmt: skip
    """navigate._frontier's target cells over the known map, the same set as its remembered_at
    search (cells outside the world are "none"); UNSUITED without a memory, with the player outside
    the world, or when "none" counts as open or preferred."""
    known = view._known_map()
    (w, h), (px, py), r = view._area, view._pos, view.radius
    opened = WALKABLE + tuple(dig)
    if known is None or not (0 <= px < w and 0 <= py < h) or "none" in opened + prefer:
        return UNSUITED
    ok, unk = known.translate(table(view, opened)), known.translate(table(view, ("unknown",)))
    edge = set()
    for x in range(max(-4 * r, -px), min(4 * r, w - 1 - px) + 1):
        wx = px + x
        for y in range(max(-4 * r, -py), min(4 * r, h - 1 - py) + 1):
            i, wy = wx * h + py + y, py + y
            if (max(abs(x), abs(y)) > r and ok[i] and (
                (wx > 0 and unk[i - h]) or (wx < w - 1 and unk[i + h])
                or (wy > 0 and unk[i - 1]) or (wy < h - 1 and unk[i + 1])
            )):  # fmt: skip
                edge.add((x, y))
    if prefer and edge:
        liked = known.translate(table(view, prefer))
        near = set()
        for x, y in edge:
            i, wx, wy = (px + x) * h + py + y, px + x, py + y
            if liked[i] or (
                (wx > 0 and liked[i - h]) or (wx < w - 1 and liked[i + h])
                or (wy > 0 and liked[i - 1]) or (wy < h - 1 and liked[i + 1])
            ):  # fmt: skip
                near.add((x, y))
        edge = near or edge
    return edge
