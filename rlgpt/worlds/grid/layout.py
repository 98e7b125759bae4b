"""The geometry of validation states on a 2-D grid game with crafting, shared by the grid
worlds (Crafter, Craftax-Classic, Craftax): where the target and the stations go relative to
the player, the walkable way in, and the way round a hazard laid on it. Pure functions of a
scenario; no game state is read here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rlgpt.messages import Scenario

Cell = tuple[int, int]
# Where the target (or the first station) goes, relative to the player: in view, out of reach.
OFFSETS = ((3, 0), (-2, -3), (0, 4), (-4, 1), (2, 3), (-3, -2), (4, -1), (1, -4))
# Two stations (a table and a furnace): beside each other, or apart (the furnace two cells
# behind the table) so that only the cell between them, or one next to it, is near both.
APART_OFFSETS = ((-2, 1), (1, -2), (2, -1), (-1, 2))
# A skeleton within 3 cells flees rather than walks up: in its walled nook it stays put.
CLOSE_OFFSETS = ((3, 0), (-2, -1), (0, 3), (-3, 0), (1, -2), (0, -3))
FACINGS = ((0, 1), (-1, 0), (0, -1), (1, 0))


def sign(v: int) -> int:
    return (v > 0) - (v < 0)


def offset(i: int, radius: int, table: tuple[Cell, ...] = OFFSETS) -> Cell:
    """The i-th layout offset, kept in view (and out of reach when the view allows it)."""
    dx, dy = table[i % len(table)]
    r = max(2, radius)
    return max(-r, min(r, dx)), max(-r, min(r, dy))


def axes(t: Cell) -> tuple[Cell, Cell]:
    """The unit step along t's longer axis (away from the player) and a perpendicular one."""
    if abs(t[0]) >= abs(t[1]):
        return (sign(t[0]), 0), (0, 1)
    return (0, sign(t[1])), (1, 0)


def add(a: Cell, b: Cell, k: int = 1) -> Cell:
    return (a[0] + k * b[0], a[1] + k * b[1])


def approach_cell(t: Cell) -> Cell:
    """The cell next to `t` on the player's side, along t's longer axis."""
    return add(t, axes(t)[0], -1)


def l_path(a: Cell, b: Cell = (0, 0), avoid: frozenset[Cell] = frozenset()) -> list[Cell]:
    """Cells from `b` to `a`, along x then y (or y then x when that would cross `avoid`)."""
    for x_first in (True, False):
        cells, (x, y) = [], b
        for axis in (0, 1) if x_first else (1, 0):
            while (x, y)[axis] != a[axis]:
                step = sign(a[axis] - (x, y)[axis])
                x, y = (x + step, y) if axis == 0 else (x, y + step)
                cells.append((x, y))
        if not avoid.intersection(cells):
            return cells
    return cells


def withhold(lay: dict[str, Any], station: str | None) -> dict[str, Any]:
    """The layout without `station` (None: as it is); the others keep their cells."""
    if station is None or station not in lay.get("stations", {}):
        return lay
    kept = {k: v for k, v in lay["stations"].items() if k != station}
    out = {k: v for k, v in lay.items() if k != "stations"}
    return {**out, "stations": kept} if kept else out


def out_of_view(lay: dict[str, Any], stations: tuple[str, ...], radius: int) -> dict[str, Any]:
    """The layout moved out of view: the first target or station three cells past the view's
    edge, along the same axis (a second station beside it)."""
    near = lay["target_at"] if "target_at" in lay else next(iter(lay["stations"].values()))
    major, perp = axes(near)
    far = add(perp, major, radius + 3)
    out = {**lay, "front": None}
    if "target_at" in lay:
        out["target_at"] = far
    else:
        out["stations"] = {s: add(far, perp, k) for k, s in enumerate(stations[:2])}
    return out


@dataclass(frozen=True)
class WayIn:
    """How a scenario's layout is made reachable, relative to the player: `walk` cells become
    walkable (those that are not become `base`), `walls` become stone (round a skeleton, so it
    cannot flee), `first` is the target or first station (None: nothing laid out), `visit` a
    cell of the way near `first` (where a player who saw it earlier stood)."""

    first: Cell | None
    walk: list[Cell]
    walls: list[Cell]
    base: str

    @property
    def visit(self) -> Cell | None:
        return None if self.first is None else approach_cell(self.first)


def way_in(spec: Scenario) -> WayIn:
    """The way in of a scenario: from the player to the cell before its first target (and
    round to a cell within one of both stations), round its hazards; the same on every world
    of this game."""
    base = "path" if spec.target == "skeleton" else "grass"
    first = spec.target_at or next(iter(spec.stations.values()), None)
    if first is None:
        return WayIn(None, [], [], base)
    approach = approach_cell(first)
    walls = []
    if spec.target == "skeleton":
        sides = [(first[0] + d[0], first[1] + d[1]) for d in FACINGS]
        walls = [s for s in sides if s != approach]
    walk = l_path(approach) + _meeting_path(approach, spec)
    return WayIn(first, _round_hazards(walk, spec.hazards), walls, base)


def _meeting_path(approach: Cell, spec: Scenario) -> list[Cell]:
    """With two stations, a walkable way round the first to a cell within one of both."""
    if len(spec.stations) < 2:
        return []
    first, second = list(spec.stations.values())[:2]
    major, perp = axes(first)
    if second == add(first, perp):  # side by side: one step aside reaches both
        return [add(approach, perp)]
    return [add(approach, perp), add(first, perp), add(add(first, major), perp), add(first, major)]


def _round_hazards(walk: list[Cell], hazards: dict[str, list[Cell]]) -> list[Cell]:
    """The way without its lava cell, plus the three cells beside it on the side away from
    the water (hazard_cells lays water on the other side): a way round."""
    lava, water = hazards.get("lava", []), hazards.get("water", [])
    if not lava or not water:
        return walk
    h, w = lava[0], water[0]
    side = (h[0] - w[0], h[1] - w[1])
    j = walk.index(h)
    prev, nxt = walk[j - 1] if j else (0, 0), walk[j + 1]
    return [c for c in walk if c != h] + [add(c, side) for c in (prev, h, nxt)]


def hazard_cells(spec: Scenario) -> dict[str, list[Cell]]:
    """Lava on the straight way to the first target, water beside it, and room on the other
    side for a way round: {} when the way has no straight stretch to lay it on."""
    way = way_in(spec)
    if way.first is None:
        return {}
    blocked = {(0, 0), way.first, *spec.stations.values(), *way.walls, *way.walk}
    path = l_path(approach_cell(way.first))
    for j, h in enumerate(path[:-1]):
        prev, nxt = path[j - 1] if j else (0, 0), path[j + 1]
        d = (nxt[0] - h[0], nxt[1] - h[1])
        if (h[0] - prev[0], h[1] - prev[1]) != d:
            continue  # a corner: no straight stretch here
        for side in ((d[1], -d[0]), (-d[1], d[0])):
            water = add(h, side, -1)
            detour = [add(c, side) for c in (prev, h, nxt)]
            if water not in blocked and not blocked.intersection(detour) - set(way.walk):
                return {"lava": [h], "water": [water]}
    return {}
