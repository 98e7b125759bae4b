"""The skill API that coded actions use.

A coded action is a generator `def name(view):` that yields primitive action names
("move_left", "do", "place_table", ...). After each yield the runtime steps the game and
updates `view` in place, so the generator always sees the current state. The view is read-only:
coded actions never hold the environment.

Coordinates are relative to the player: (dx, dy), x to the right, y downwards, so
"move_left" is (-1, 0) and "move_up" is (0, -1). Moving toward a blocked cell only turns the
player to face it.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Generator, Iterable
from typing import Any

Action = Generator[str, None, Any]

MOVES: dict[tuple[int, int], str] = {
    (-1, 0): "move_left",
    (1, 0): "move_right",
    (0, -1): "move_up",
    (0, 1): "move_down",
}
WALKABLE = ("grass", "sand", "path")


class ObsView:
    """What a coded action may read: local map, inventory, achievements, facing, vitals."""

    def __init__(self, names: Iterable[str]) -> None:
        self._names = tuple(names)
        self._ids = {n: i for i, n in enumerate(self._names)}
        self._flat: bytes | list[int] = bytes(1)
        self._side = 1
        self._radius = 0
        self._inventory: dict[str, int] = {}
        self._achievements: dict[str, int] = {}
        self._facing = (0, 1)
        self.steps = 0

    def update(self, state: dict[str, Any]) -> None:
        """Called by the runtime (not by coded actions) with the latest game state. `local` is
        a hex string of the (2r+1)^2 semantic ids (x-major) or a list of columns; inventory,
        achievements and facing may be left out when unchanged."""
        local = state["local"]
        if isinstance(local, str):
            self._flat = bytes.fromhex(local)
            self._side = math.isqrt(len(self._flat))
        else:
            self._flat = [int(v) for col in local for v in col]
            self._side = len(local)
        self._radius = self._side // 2
        if "inventory" in state:
            self._inventory = dict(state["inventory"])
        if "achievements" in state:
            self._achievements = dict(state["achievements"])
        if "facing" in state:
            self._facing = (int(state["facing"][0]), int(state["facing"][1]))
        self.steps += 1

    @property
    def inventory(self) -> dict[str, int]:
        """Item counts, e.g. view.inventory["wood"]; vitals are items too."""
        return dict(self._inventory)

    @property
    def achievements(self) -> dict[str, int]:
        """How often each achievement was reached this episode."""
        return dict(self._achievements)

    @property
    def vitals(self) -> dict[str, int]:
        return {k: self._inventory.get(k, 0) for k in ("health", "food", "drink", "energy")}

    @property
    def facing(self) -> tuple[int, int]:
        return self._facing

    @property
    def radius(self) -> int:
        """The local map spans dx, dy in [-radius, radius]."""
        return self._radius

    def at(self, dx: int, dy: int) -> str:
        """Name of the material or creature at (dx, dy); 'none' outside the view or world."""
        r = self._radius
        if abs(dx) > r or abs(dy) > r:
            return "none"
        return self._names[self._flat[(dx + r) * self._side + dy + r]]

    @property
    def facing_name(self) -> str:
        """Name of the cell the player faces."""
        return self.at(*self._facing)

    def cells(self, name: str) -> list[tuple[int, int]]:
        """All (dx, dy) where `name` is visible, nearest (Manhattan) first."""
        want, side, r = self._ids.get(name, -1), self._side, self._radius
        found = [(i // side - r, i % side - r) for i, v in enumerate(self._flat) if v == want]
        return sorted(found, key=lambda p: (abs(p[0]) + abs(p[1]), p))

    def nearest(self, name: str) -> tuple[int, int] | None:
        """(dx, dy) of the nearest visible `name`, or None."""
        cells = self.cells(name)
        return cells[0] if cells else None


def path_to(view: ObsView, targets: set[tuple[int, int]]) -> list[tuple[int, int]] | None:
    """Shortest walkable path (list of unit steps) to a cell next to any target, or None."""
    r = view.radius
    start = (0, 0)
    goals = {(tx + ox, ty + oy) for tx, ty in targets for ox, oy in MOVES}
    prev: dict[tuple[int, int], tuple[int, int] | None] = {start: None}
    queue = deque([start])
    while queue:
        cur = queue.popleft()
        if cur in goals:
            steps: list[tuple[int, int]] = []
            while prev[cur] is not None:
                p = prev[cur]
                assert p is not None
                steps.append((cur[0] - p[0], cur[1] - p[1]))
                cur = p
            return steps[::-1]
        for ox, oy in MOVES:
            nxt = (cur[0] + ox, cur[1] + oy)
            if nxt in prev or abs(nxt[0]) > r or abs(nxt[1]) > r:
                continue
            if view.at(*nxt) in WALKABLE:
                prev[nxt] = cur
                queue.append(nxt)
    return None


def approach(view: ObsView, name: str) -> Action:
    """Walk next to the nearest reachable `name` and face it. Returns True when facing it."""
    while view.facing_name != name:
        targets = set(view.cells(name))
        if not targets:
            return False
        adjacent = [t for t in targets if abs(t[0]) + abs(t[1]) == 1]
        if adjacent:
            yield MOVES[adjacent[0]]  # blocked target: this only turns the player
            continue
        path = path_to(view, targets)
        if not path:
            return False
        yield MOVES[path[0]]
    return True


def explore(view: ObsView, steps: int = 8) -> Action:
    """Walk up to `steps` cells straight ahead to reveal new cells; when blocked, turn to the
    open direction that leads farthest. Always yields at least one action when steps > 0."""
    for _ in range(steps):
        if view.at(*view.facing) in WALKABLE:
            yield MOVES[view.facing]
            continue
        best, reach = None, 0
        for d in MOVES:
            n = 0
            while n < view.radius and view.at(d[0] * (n + 1), d[1] * (n + 1)) in WALKABLE:
                n += 1
            if n > reach and d != (-view.facing[0], -view.facing[1]):
                best, reach = d, n
        if best is None:  # only the way back is open, or nothing: turn (always yield)
            back = (-view.facing[0], -view.facing[1])
            best = back if view.at(*back) in WALKABLE else (view.facing[1], -view.facing[0])
        yield MOVES[best]
    return None


def face_free(view: ObsView, kinds: tuple[str, ...] = WALKABLE) -> Action:
    """Turn to face an adjacent cell of one of `kinds`; moves only when none is adjacent."""
    for d, move in MOVES.items():
        if view.at(*d) in kinds and view.at(*d) != "none":
            if view.facing != d:
                yield move  # walkable cell: the player steps onto it
            return True
    yield from explore(view, 2)
    return False


SKILL_API: dict[str, Any] = {
    "approach": approach,
    "explore": explore,
    "face_free": face_free,
    "path_to": path_to,
    "MOVES": MOVES,
    "WALKABLE": WALKABLE,
}
