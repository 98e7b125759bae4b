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

import difflib
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


class SkillAPIError(Exception):
    """The skill API was misused (an unknown name, attribute or key); the message says how."""


def _close(word: str, options: Iterable[str]) -> str:
    near = difflib.get_close_matches(word, list(options), n=1)
    return f" (did you mean '{near[0]}'?)" if near else ""


class _Counts(dict[str, int]):
    """A copy of the inventory or achievements; a name that does not exist says so."""

    def __init__(self, data: dict[str, int], known: tuple[str, ...], what: str) -> None:
        super().__init__(data)
        self._known = known
        self._what = what

    def __missing__(self, key: str) -> int:
        if not self._known or key in self._known:
            return 0
        raise SkillAPIError(
            f"{key!r} is not {self._what}{_close(str(key), self._known)}; "
            f"valid: {', '.join(self._known)}"
        )


class ObsView:
    """What a coded action may read: local map, inventory, achievements, facing, vitals."""

    def __init__(
        self, names: Iterable[str], items: Iterable[str] = (), achievements: Iterable[str] = (),
        item_sources: dict[str, str] | None = None,
    ) -> None:  # fmt: skip
        self._names = tuple(names)
        self._ids = {n: i for i, n in enumerate(self._names)}
        self._items = tuple(items)
        self._achievement_names = tuple(achievements)
        self._sources = dict(item_sources or {})
        self._flat: bytes | list[int] = bytes(1)
        self._side = 1
        self._radius = 0
        self._inventory: dict[str, int] = {}
        self._achievements: dict[str, int] = {}
        self._facing = (0, 1)

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

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # copy, pickle and friends probe for these
            raise AttributeError(name)
        public = [n for n in dir(type(self)) if not n.startswith("_") and n != "update"]
        raise SkillAPIError(
            f"view has no attribute {name!r}{_close(name, public)}; it has: {', '.join(public)}"
        )

    def _check_name(self, name: str) -> int:
        """The semantic id of a map name; an item or unknown name is a SkillAPIError."""
        if name in self._ids and name != "none":
            return self._ids[name]
        hint = _close(str(name), self._names)
        if name in self._sources:
            hint = f" ({name} is an item: it comes from '{self._sources[name]}')"
        raise SkillAPIError(
            f"{name!r} is not on the map{hint}; map names: {', '.join(self._names[1:])}"
        )

    @property
    def inventory(self) -> dict[str, int]:
        """Item counts, e.g. view.inventory["wood"]; vitals (health, food, drink, energy) are
        items too. A copy: changing it changes nothing."""
        return _Counts(self._inventory, self._items, "an item")

    @property
    def achievements(self) -> dict[str, int]:
        """How often each achievement was reached this episode, e.g.
        view.achievements["place_table"]; compare with its value at the start to see an effect."""
        return _Counts(self._achievements, self._achievement_names, "an achievement")

    @property
    def vitals(self) -> dict[str, int]:
        """health, food, drink and energy (0-9 each); the player dies when health reaches 0."""
        return {k: self._inventory.get(k, 0) for k in ("health", "food", "drink", "energy")}

    @property
    def facing(self) -> tuple[int, int]:
        """(dx, dy) of the cell the player faces: "do", "place_*" act on that cell."""
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
        """All (dx, dy) where `name` (a material or creature, e.g. "tree") is visible, nearest
        (Manhattan) first; [] when there is none. An item name such as "wood" is an error."""
        want, side, r = self._check_name(name), self._side, self._radius
        found = [(i // side - r, i % side - r) for i, v in enumerate(self._flat) if v == want]
        return sorted(found, key=lambda p: (abs(p[0]) + abs(p[1]), p))

    def nearest(self, name: str) -> tuple[int, int] | None:
        """(dx, dy) of the nearest visible `name` (a material or creature), or None."""
        cells = self.cells(name)
        return cells[0] if cells else None


def _walk(view: ObsView, goals: set[tuple[int, int]]) -> list[tuple[int, int]] | None:
    """Shortest walkable path (unit steps) from the player onto any of `goals`, or None."""
    r = view.radius
    start = (0, 0)
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


def path_to(view: ObsView, targets: set[tuple[int, int]]) -> list[tuple[int, int]] | None:
    """Shortest walkable path (a list of unit steps (dx, dy); MOVES[step] is the action) from
    the player to a cell next to any of `targets`, or None. A plain function, not a generator."""
    return _walk(view, {(tx + ox, ty + oy) for tx, ty in targets for ox, oy in MOVES})


def approach(view: ObsView, name: str) -> Action:
    """Walk next to the nearest reachable `name` (a material or creature) and face it; returns
    True when facing it, False when none is visible or reachable. A generator: use it as
    `reached = yield from approach(view, "tree")`."""
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
    open direction that leads farthest. Always yields at least one action when steps > 0.
    A generator: use it as `yield from explore(view, 8)`."""
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
    """Face an adjacent cell of one of `kinds` (moving toward a walkable one steps onto it, so
    the player then faces the cell beyond); explores 2 steps when none is adjacent. Returns
    True when it found one. A generator: `ok = yield from face_free(view, ("grass",))`."""
    for d, move in MOVES.items():
        if view.at(*d) in kinds and view.at(*d) != "none":
            if view.facing != d:
                yield move  # walkable cell: the player steps onto it
            return True
    yield from explore(view, 2)
    return False


def _within_one(cell: tuple[int, int], spots: list[tuple[int, int]]) -> bool:
    return any(max(abs(cell[0] - x), abs(cell[1] - y)) <= 1 for x, y in spots)


def stand_near(view: ObsView, names: tuple[str, ...]) -> Action:
    """Walk to a cell within one cell (diagonals count) of a visible one of each of `names`,
    as making an item needs (e.g. ("table", "furnace")). Returns True when there, False when
    one is not visible or no such cell is reachable. A generator: use it as
    `near = yield from stand_near(view, ("table",))`."""
    while True:
        groups = [view.cells(name) for name in names]
        if not all(groups):
            return False
        if all(_within_one((0, 0), g) for g in groups):
            return True
        r = view.radius
        spots = {
            (x, y)
            for x in range(-r, r + 1)
            for y in range(-r, r + 1)
            if view.at(x, y) in WALKABLE and all(_within_one((x, y), g) for g in groups)
        }
        path = _walk(view, spots)
        if not path:
            return False
        yield MOVES[path[0]]


SKILL_API: dict[str, Any] = {
    "approach": approach,
    "stand_near": stand_near,
    "explore": explore,
    "face_free": face_free,
    "path_to": path_to,
    "MOVES": MOVES,
    "WALKABLE": WALKABLE,
}
