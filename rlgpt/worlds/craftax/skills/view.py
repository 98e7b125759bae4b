"""What a coded action reads on full Craftax: `ObsView`, the lit window around the player (its
blocks, items and mobs), the player's state, the floor it is on and a memory of that floor.

Coordinates are relative to the player: (dx, dy), x to the right, y downwards. The memory
holds every cell of the current floor seen lit this episode (blocks and items such as ladders
and torches; mobs move, so they are not kept); it is kept in floor coordinates inside the view
and handed out relative to the player, like the window.
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
WALKABLE = ("grass", "sand", "path", "fire_grass", "ice_grass", "gravel")
HOSTILE = ("melee", "ranged")
# keys of the view state that ObsView.update keeps when a state leaves them out (the host
# sends each only when it changed: SkillPackage.sent_when_changed)
KEPT_WHEN_LEFT_OUT = ("inventory", "achievements", "facing")


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
    """What a coded action may read: the lit window, the player, the floor and its memory."""

    def __init__(
        self, blocks: Iterable[str] = (), items: Iterable[str] = (), mobs: Iterable[str] = (),
        kinds: dict[str, str] | None = None, inventory: Iterable[str] = (),
        achievements: Iterable[str] = (), *, floors: Iterable[str] = (),
        item_sources: dict[str, str] | None = None, kills_to_open: int = 8,
    ) -> None:  # fmt: skip
        self._block_names, self._item_names = tuple(blocks), tuple(items)
        self._mob_names = tuple(mobs)
        self._kinds = dict(kinds or {})
        self._inv_names, self._ach_names = tuple(inventory), tuple(achievements)
        self._floor_names = tuple(floors)
        self._sources = dict(item_sources or {})
        self._kills_to_open = kills_to_open
        self._names = {*self._block_names, *self._item_names, *self._mob_names} - {"none"}
        self._layers: tuple[bytes, bytes, bytes] = (bytes(1), bytes(1), bytes(1))
        self._side, self._radius = 1, 0
        self._inventory: dict[str, int] = {}
        self._achievements: dict[str, int] = {}
        self._facing, self._pos, self._area = (0, 1), (0, 0), (0, 0)
        self._floor, self._kills, self._daylight, self._sleeping = 0, 0, 1.0, False
        self._mem_blocks, self._mem_items = bytearray(), bytearray()
        self._pending: list[tuple[tuple[int, int], tuple[bytes, bytes, bytes]]] = []
        self._before: tuple[tuple[int, int], bytes, int] = ((0, 0), bytes(1), 1)

    def update(self, state: dict[str, Any]) -> None:
        """Called by the runtime (not by coded actions) with the latest game state: the
        window's `blocks`, `items` and `mobs` (hex, one byte a cell, x-major); inventory,
        achievements, facing, `pos`, `floor`, `kills`, `daylight`, `sleeping`; and, when a
        call starts or the floor changes, the floor's `memory` and `memory_items` (hex, one
        byte a cell of `area`, 0 where never seen)."""
        self._before = (self._pos, self._layers[2], self._side)  # the last step's mobs
        self._layers = tuple(bytes.fromhex(state[k]) for k in ("blocks", "items", "mobs"))  # type: ignore[assignment]
        self._side = math.isqrt(len(self._layers[0]))
        self._radius = self._side // 2
        for key in ("inventory", "achievements"):
            if key in state:
                setattr(self, f"_{key}", dict(state[key]))
        if "facing" in state:
            self._facing = (int(state["facing"][0]), int(state["facing"][1]))
        self._floor = int(state.get("floor", self._floor))
        self._kills = int(state.get("kills", self._kills))
        self._daylight = float(state.get("daylight", self._daylight))
        self._sleeping = bool(state.get("sleeping", self._sleeping))
        if "memory" in state:
            self._mem_blocks = bytearray.fromhex(state["memory"])
            self._mem_items = bytearray.fromhex(state["memory_items"])
            self._area = (int(state["area"][0]), int(state["area"][1]))
            self._pending = []
        if "pos" in state:
            self._pos = (int(state["pos"][0]), int(state["pos"][1]))
            if self._mem_blocks:  # written into the memory when it is next read
                self._pending.append((self._pos, self._layers))
                if len(self._pending) > 256:
                    self._remember()

    def _remember(self) -> None:
        (w, h), blocks, items = self._area, self._mem_blocks, self._mem_items
        if len(blocks) != w * h:
            self._pending = []
            return
        for (px, py), (bl, it, _) in self._pending:
            side = math.isqrt(len(bl))
            r = side // 2
            for i, v in enumerate(bl):
                x, y = px + i // side - r, py + i % side - r
                if v > 1 and 0 <= x < w and 0 <= y < h:  # lit and on the map
                    blocks[x * h + y] = v
                    items[x * h + y] = 2 if it[i] == 4 else it[i]  # a closed ladder is a ladder
        self._pending = []

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # copy, pickle and friends probe for these
            raise AttributeError(name)
        public = [n for n in dir(type(self)) if not n.startswith("_") and n != "update"]
        raise SkillAPIError(
            f"view has no attribute {name!r}{_close(name, public)}; it has: {', '.join(public)}"
        )

    def _check_name(self, name: str) -> None:
        if name in self._names:
            return
        hint = _close(str(name), self._names)
        if name in self._sources:
            hint = f" ({name} is an item: it comes from '{self._sources[name]}')"
        raise SkillAPIError(
            f"{name!r} is not on the map{hint}; map names: {', '.join(sorted(self._names))}"
        )

    # -- the player -----------------------------------------------------------------------
    @property
    def inventory(self) -> dict[str, int]:
        """Item counts, e.g. view.inventory["wood"]; vitals (health, food, drink, energy, mana),
        tools ("stone_pickaxe" is 1 once a pickaxe of that level or better is held), armour
        pieces, potions by colour ("potion_red"), learned spells ("fireball"), experience and
        attributes are items too. A copy: changing it changes nothing."""
        return _Counts(self._inventory, self._inv_names, "an item")

    @property
    def achievements(self) -> dict[str, int]:
        """How often each achievement was reached this episode, e.g.
        view.achievements["enter_dungeon"]; compare with its value at the start of a call."""
        return _Counts(self._achievements, self._ach_names, "an achievement")

    @property
    def vitals(self) -> dict[str, int]:
        """health, food, drink, energy and mana; the player dies when health reaches 0."""
        return {k: self._inventory.get(k, 0) for k in ("health", "food", "drink", "energy", "mana")}

    @property
    def facing(self) -> tuple[int, int]:
        """(dx, dy) of the cell the player faces: "do", "place_*", arrows and spells go there."""
        return self._facing

    @property
    def position(self) -> tuple[int, int]:
        """The player's cell on its floor (x, y): it tells where the player went."""
        return self._pos

    @property
    def floor(self) -> int:
        """The floor the player is on: 0 the overworld, 1 the dungeon, 2 the gnomish mines..."""
        return self._floor

    @property
    def floor_name(self) -> str:
        """The current floor's name (overworld, dungeon, gnomish_mines, sewers, vault, ...)."""
        return self._floor_names[self._floor] if self._floor < len(self._floor_names) else ""

    @property
    def kills(self) -> int:
        """Monsters (melee or ranged) killed on this floor so far."""
        return self._kills

    @property
    def cleared(self) -> bool:
        """Whether this floor's ladder down is open: on the overworld always; below it, once
        enough of the floor's monsters were killed (8)."""
        return self._floor == 0 or self._kills >= self._kills_to_open

    @property
    def daylight(self) -> float:
        """1.0 at noon to 0.0 at midnight; on the overworld at night zombies come out."""
        return self._daylight

    @property
    def sleeping(self) -> bool:
        """Whether the player sleeps or rests (its actions are ignored until it wakes)."""
        return self._sleeping

    # -- the window -----------------------------------------------------------------------
    @property
    def radius(self) -> int:
        """The window spans dx, dy in [-radius, radius]."""
        return self._radius

    def _index(self, dx: int, dy: int) -> int | None:
        r = self._radius
        return None if abs(dx) > r or abs(dy) > r else (dx + r) * self._side + dy + r

    def block_at(self, dx: int, dy: int) -> str:
        """The block at (dx, dy) in the window: 'dark' where it is not lit, 'none' outside."""
        i = self._index(dx, dy)
        return "none" if i is None else self._block_names[self._layers[0][i]]

    def item_at(self, dx: int, dy: int) -> str:
        """The item on (dx, dy): 'torch', 'ladder_down' (open), 'ladder_down_blocked' (its
        floor is not cleared), 'ladder_up', or 'none'."""
        i = self._index(dx, dy)
        return "none" if i is None else self._item_names[self._layers[1][i]]

    def mob_at(self, dx: int, dy: int) -> str:
        """The mob, projectile or player on (dx, dy), or 'none'."""
        i = self._index(dx, dy)
        return "none" if i is None else self._mob_names[self._layers[2][i]]

    def at(self, dx: int, dy: int) -> str:
        """What is seen on (dx, dy): a mob over an item over the block; 'dark' where it is
        not lit, 'none' outside the window or the world."""
        mob = self.mob_at(dx, dy)
        if mob != "none":
            return mob
        item = self.item_at(dx, dy)
        return item if item != "none" else self.block_at(dx, dy)

    def lit(self, dx: int, dy: int) -> bool:
        """Whether (dx, dy) is in the window and lit (seen)."""
        return self.block_at(dx, dy) not in ("dark", "none")

    @property
    def facing_name(self) -> str:
        """What is seen on the cell the player faces."""
        return self.at(*self._facing)

    def standing_on(self) -> str:
        """The item under the player: 'ladder_down', 'ladder_down_blocked' (closed until enough
        of this floor's monsters are killed: view.cleared), 'ladder_up', 'torch' or 'none'."""
        return self.item_at(0, 0)

    def cells(self, name: str) -> list[tuple[int, int]]:
        """All (dx, dy) in the window where `name` (a block, item or mob, e.g. "tree",
        "ladder_down", "orc_mage") is seen, nearest (Manhattan) first."""
        self._check_name(name)
        r, found = self._radius, []
        for dx in range(-r, r + 1):
            for dy in range(-r, r + 1):
                if name in (self.block_at(dx, dy), self.item_at(dx, dy), self.mob_at(dx, dy)):
                    found.append((dx, dy))
        return sorted(found, key=lambda p: (abs(p[0]) + abs(p[1]), p))

    def nearest(self, name: str) -> tuple[int, int] | None:
        """(dx, dy) of the nearest `name` in the window, or None."""
        cells = self.cells(name)
        return cells[0] if cells else None

    def mobs(self, kind: str | None = None) -> list[tuple[int, int, str]]:
        """(dx, dy, name) of every mob seen, nearest first; `kind` keeps one kind: 'melee',
        'ranged' (both are monsters: kills count toward clearing a floor), 'passive' (food),
        'projectile' (a monster's arrow, dagger, fireball...), 'own' (the player's)."""
        if kind is not None and kind not in ("melee", "ranged", "passive", "projectile", "own"):
            raise SkillAPIError(
                f"{kind!r} is no kind of mob; kinds: melee, ranged, passive, projectile, own"
            )
        r, out = self._radius, []
        for dx in range(-r, r + 1):
            for dy in range(-r, r + 1):
                name = self.mob_at(dx, dy)
                if name not in ("none", "player") and kind in (None, self._kinds.get(name)):
                    out.append((dx, dy, name))
        return sorted(out, key=lambda m: (abs(m[0]) + abs(m[1]), m))

    def _heading(self, dx: int, dy: int) -> tuple[int, int] | None:
        """The unit step the mob or projectile on (dx, dy) took since the last state (from
        where the same name stood then), None when that is not known (the skills' use)."""
        name, (pos, mobs, side) = self.mob_at(dx, dy), self._before
        if name == "none" or side != self._side:
            return None
        x, y, r = self._pos[0] + dx - pos[0], self._pos[1] + dy - pos[1], side // 2
        came = [(ux, uy) for ux, uy in MOVES if abs(x - ux) <= r and abs(y - uy) <= r
                and self._mob_names[mobs[(x - ux + r) * side + y - uy + r]] == name]  # fmt: skip
        return came[0] if len(came) == 1 else None

    def kind_of(self, name: str) -> str:
        """A mob's kind ('melee', 'ranged', 'passive', 'projectile', 'own'), '' otherwise."""
        return self._kinds.get(name, "")

    # -- the floor's memory ---------------------------------------------------------------
    def _memory_at(self, dx: int, dy: int) -> tuple[str, str] | None:
        """(block, item) remembered at (dx, dy); None off the floor or never seen."""
        if self._pending:
            self._remember()
        (w, h), x, y = self._area, self._pos[0] + dx, self._pos[1] + dy
        if len(self._mem_blocks) != w * h or not (0 <= x < w and 0 <= y < h):
            return None
        v = self._mem_blocks[x * h + y]
        return (self._block_names[v], self._item_names[self._mem_items[x * h + y]]) if v else None

    def remembered_at(self, dx: int, dy: int) -> str:
        """The block at (dx, dy) as far as this episode has seen on this floor: in the lit
        window, what is there now; elsewhere the block last seen there; 'unknown' where never
        seen; 'none' off the map."""
        if self.lit(dx, dy):
            return self.block_at(dx, dy)
        seen = self._memory_at(dx, dy)
        if seen is None:
            (w, h), x, y = self._area, self._pos[0] + dx, self._pos[1] + dy
            return "unknown" if 0 <= x < w and 0 <= y < h else "none"
        return seen[0]

    def _grid(self, reach: int) -> dict[tuple[int, int], str]:
        """`remembered_at` of every cell within `reach` (either way), in one pass: for the
        skills' scans of the floor (a cell's neighbours are looked up, not read again)."""
        if self._pending:
            self._remember()
        (w, h), (px, py), r = self._area, self._pos, self._radius
        mem, names = self._mem_blocks if len(self._mem_blocks) == w * h else None, self._block_names
        out: dict[tuple[int, int], str] = {}
        for x in range(-reach, reach + 1):
            ax = px + x
            for y in range(-reach, reach + 1):
                ay = py + y
                if abs(x) <= r and abs(y) <= r and self.lit(x, y):
                    out[(x, y)] = self.block_at(x, y)
                elif not (0 <= ax < w and 0 <= ay < h):
                    out[(x, y)] = "none"
                else:
                    v = mem[ax * h + ay] if mem is not None else 0
                    out[(x, y)] = names[v] if v else "unknown"
        return out

    def remembered(self, name: str) -> list[tuple[int, int]]:
        """All (dx, dy) on this floor where the block or item `name` (e.g. "water",
        "ladder_down", "table") was seen this episode, in view or not, nearest first."""
        self._check_name(name)
        if self._pending:
            self._remember()
        (w, h), (px, py) = self._area, self._pos
        if len(self._mem_blocks) != w * h:
            return self.cells(name)
        want_b = [i for i, n in enumerate(self._block_names) if n == name]
        want_i = [i for i, n in enumerate(self._item_names) if n in (name, f"{name}_blocked")]
        found = [
            (i // h - px, i % h - py)
            for i, v in enumerate(self._mem_blocks)
            if v in want_b or (want_i and self._mem_items[i] in want_i)
        ]
        return sorted(found, key=lambda p: (abs(p[0]) + abs(p[1]), p))

    def ladder(self, direction: str = "down") -> tuple[int, int] | None:
        """(dx, dy) of this floor's ladder 'down' (open or not: see `cleared`) or 'up', if
        it was seen this episode; None otherwise."""
        if direction not in ("down", "up"):
            raise SkillAPIError(f"ladder direction {direction!r}: 'down' or 'up'")
        seen = self.remembered(f"ladder_{direction}")
        return seen[0] if seen else None
