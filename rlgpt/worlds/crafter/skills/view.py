"""What a coded action reads: `ObsView`, the local map around the player, its inventory and
achievements, and a memory of every cell it has seen this episode.

Coordinates are relative to the player: (dx, dy), x to the right, y downwards. The memory is
kept in world coordinates inside the view and handed out relative to the player, like the map.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable
from typing import Any

MOVES: dict[tuple[int, int], str] = {
    (-1, 0): "move_left",
    (1, 0): "move_right",
    (0, -1): "move_up",
    (0, 1): "move_down",
}
WALKABLE = ("grass", "sand", "path")
UNKNOWN = 255  # in the known map (ObsView._known_map): a world cell never seen
_SEEN_OR_UNKNOWN = bytes([UNKNOWN, *range(1, 256)])  # memory -> known map: 0 is never seen
# keys of the view state that ObsView.update keeps when a state leaves them out (the host
# sends each only when it changed: SkillPackage.sent_when_changed)
KEPT_WHEN_LEFT_OUT = ("inventory", "achievements", "facing")
# crafter's rules for plants (crafter/objects.py Plant; env.py updates an object only while
# its Manhattan distance to the player is under twice the view's 9): a world with other rules
# passes its own to ObsView (`rules`), and the farming skills follow them
CRAFTER_RULES: dict[str, Any] = {
    "plant_ripens_after": 300,
    "plant_hurt_by": ["zombie", "skeleton", "cow"],
    "plant_grows_within": 17,
}


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
        item_sources: dict[str, str] | None = None, rules: dict[str, Any] | None = None,
    ) -> None:  # fmt: skip
        self._names = tuple(names)
        self._ids = {n: i for i, n in enumerate(self._names)}
        self._items = tuple(items)
        self._achievement_names = tuple(achievements)
        self._sources = dict(item_sources or {})
        self._rules = {**CRAFTER_RULES, **(rules or {})}
        self._flat: bytes | list[int] = bytes(1)
        self._side = 1
        self._radius = 0
        self._inventory: dict[str, int] = {}
        self._achievements: dict[str, int] = {}
        self._facing = (0, 1)
        self._pos = (0, 0)
        self._area = (0, 0)
        self._daylight = 1.0
        self._memory = bytearray()  # material id per world cell (x-major) seen this episode
        self._pending: list[tuple[tuple[int, int], bytes | list[int], int]] = []
        self._objects_from = self._ids.get("player", len(self._names))
        self._plant = self._ids.get("plant", -1)  # an object that never moves: remembered
        # ids that a window writes into the memory (creatures move: they are skipped)
        self._lasting = bytes(
            0 if (0 < v < self._objects_from or v == self._plant) else 1 for v in range(256)
        )
        self._known: bytearray | None = None  # cache of _known_map() for the current state

    def update(self, state: dict[str, Any]) -> None:
        """Called by the runtime (not by coded actions) with the latest game state. `local` is
        a hex string of the (2r+1)^2 semantic ids (x-major) or a list of columns; inventory,
        achievements and facing may be left out when unchanged. `memory` (hex, one material id
        per world cell of `area`, 0 where never seen) comes when a call starts; `pos` (world
        coordinates) lets each step's window update it."""
        self._known = None
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
        if "daylight" in state:
            self._daylight = float(state["daylight"])
        if "memory" in state:
            self._memory = bytearray.fromhex(state["memory"])
            self._area = (int(state["area"][0]), int(state["area"][1]))
            self._pending = []
        if "pos" in state:
            self._pos = (int(state["pos"][0]), int(state["pos"][1]))
            if self._memory:  # written into the memory when it is next read, not every step
                self._pending.append((self._pos, self._flat, self._side))
                if len(self._pending) > 512:
                    self._remember()

    def _remember(self) -> None:
        """Write the windows seen since the memory was last read into it."""
        (w, h), memory, objects, plant = self._area, self._memory, self._objects_from, self._plant
        if len(memory) != w * h:
            self._pending = []
            return
        lasting = self._lasting
        for (px, py), flat, side in self._pending:
            r = side // 2
            y0, y1 = max(0, py - r), min(h, py + r + 1)
            if y0 >= y1:
                continue
            for i in range(side):  # a column of the window at a time
                x = px + i - r
                if not 0 <= x < w:
                    continue
                col = bytes(flat[i * side + y0 - py + r : i * side + y1 - py + r])
                if not col.translate(lasting).strip(b"\0"):  # nothing in it moves: copy it
                    memory[x * h + y0 : x * h + y1] = col
                    continue
                for j, v in enumerate(col):  # creatures move: keep what was under them
                    if 0 < v < objects or v == plant:
                        memory[x * h + y0 + j] = v
        self._pending = []

    def _known_map(self) -> bytearray | None:
        """Every world cell (x-major) as far as this episode has seen: the memory, with the
        current window over it (creatures too), UNKNOWN where never seen; None without a
        memory. What remembered_at reads, in one piece for searches over many cells."""
        if self._known is not None:
            return self._known
        (w, h), (px, py), r, side = self._area, self._pos, self._radius, self._side
        if not self._memory or len(self._memory) != w * h:
            return None
        if self._pending:
            self._remember()
        known = bytearray(self._memory.translate(_SEEN_OR_UNKNOWN))
        y0, y1 = max(0, py - r), min(h, py + r + 1)
        for i in range(side if y0 < y1 else 0):
            x = px + i - r
            if 0 <= x < w:
                known[x * h + y0 : x * h + y1] = bytes(
                    self._flat[i * side + y0 - py + r : i * side + y1 - py + r]
                )
        self._known = known
        return known

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
    def rules(self) -> dict[str, Any]:
        """The game's rules for plants: 'plant_ripens_after' (steps a sapling takes to ripen),
        'plant_hurt_by' (creatures that kill a plant beside it; [] means a plant needs no
        pen), 'plant_grows_within' (a plant grows only within this many cells of the player,
        counted as |dx| + |dy|; 0: anywhere). A copy."""
        return {k: list(v) if isinstance(v, list) else v for k, v in self._rules.items()}

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
        want, side, r, flat = self._check_name(name), self._side, self._radius, self._flat
        if isinstance(flat, bytes):  # the window's ids in order, found with bytes.find
            found, i = [], flat.find(want)
            while i >= 0:
                found.append((i // side - r, i % side - r))
                i = flat.find(want, i + 1)
        else:
            found = [(i // side - r, i % side - r) for i, v in enumerate(flat) if v == want]
        return sorted(found, key=lambda p: (abs(p[0]) + abs(p[1]), p))

    @property
    def daylight(self) -> float:
        """How light it is, 1.0 at noon to 0.0 at midnight; below about 0.35 it is night, when
        zombies come out on grass (a day is 300 steps)."""
        return self._daylight

    @property
    def position(self) -> tuple[int, int]:
        """The player's cell in world coordinates (x, y): it tells where the player went; all
        other methods take and return cells relative to the player."""
        return self._pos

    def remembered(self, name: str) -> list[tuple[int, int]]:
        """All (dx, dy) where a material `name` (e.g. "table", "water", "iron") or a "plant"
        (plants never move) was seen this episode (whatever acted then), in view or not,
        nearest (Manhattan) first; [] when never seen."""
        want, (px, py), h = self._check_name(name), self._pos, self._area[1]
        if self._pending:
            self._remember()
        memory, found = self._memory, []
        i = memory.find(want)
        while i >= 0:  # the cells in memory order, as a scan would find them
            found.append((i // h - px, i % h - py))
            i = memory.find(want, i + 1)
        return sorted(found, key=lambda p: (abs(p[0]) + abs(p[1]), p))

    def remembered_at(self, dx: int, dy: int) -> str:
        """What is at (dx, dy) as far as this episode has seen: in view, what is there now
        (creatures too); out of view, the material (or plant) last seen there; 'unknown' where
        never seen; 'none' outside the world."""
        r = self._radius
        if abs(dx) <= r and abs(dy) <= r:
            return self.at(dx, dy)
        known = self._known if self._known is not None else self._known_map()
        (w, h), x, y = self._area, self._pos[0] + dx, self._pos[1] + dy
        if known is None or not (0 <= x < w and 0 <= y < h):
            return "none"
        v = known[x * h + y]
        return self._names[v] if v != UNKNOWN else "unknown"

    def nearest(self, name: str) -> tuple[int, int] | None:
        """(dx, dy) of the nearest visible `name` (a material or creature), or None."""
        cells = self.cells(name)
        return cells[0] if cells else None
