"""Validation states on full Craftax: a scenario (scenarios.py) arranged on craftax's state.

Reset to the scenario's seed; put the player on the scenario's floor (where a descent arrives:
the floor's ladder up); light the area on a dark floor (as a torch would); remove the monsters
and projectiles within 12 cells; turn anything the action needs that is within reach into
ground; lay a walkable way to the first target (walls round a ranged monster, so it cannot
flee); put the stations, the target (a block, a mob in a free slot, a ladder down, whose floor
then counts as cleared), the facing, the faced cell and the inventory. The state is fetched to
the host, edited as numpy arrays in rlgpt's (x, y) and put back whole; no rule of the game
changes. A state from later in an episode (episode.py) also sets the clock (dusk, night) or
puts a zombie near.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from rlgpt.messages import Scenario
from rlgpt.worlds.base import StepInfo
from rlgpt.worlds.craftax import facts as F
from rlgpt.worlds.craftax import game as G
from rlgpt.worlds.craftax import vocab
from rlgpt.worlds.craftax.env import CraftaxEnv
from rlgpt.worlds.grid.episode import (  # the grid worlds' clock
    cleared_radius,
    clock_for,
    daylight_at,
)
from rlgpt.worlds.grid.layout import l_path, way_in  # the layout's geometry is the same

MOBS = ("passive_mobs", "melee_mobs", "ranged_mobs")  # by class (facts.MOB_CLASSES)
PROJECTILES = ("mob_projectiles", "player_projectiles")
FIELDS = ("position", "health", "mask", "attack_cooldown", "type_id")
HOSTILE_RADIUS = 12
DUNGEONS = (1, 3, 4)  # the dungeon, the sewers, the vault: rooms walled with walls
RENAMED = {"torch": "torches", "arrow": "arrows", "book": "books"}
PLAIN = ("wood", "stone", "coal", "iron", "diamond", "sapphire", "ruby", "sapling", "bow")


def ground(floor: int) -> str:
    """The walkable block a floor is made of where the layout needs ground."""
    return {0: "grass", 6: "fire_grass", 7: "ice_grass"}.get(floor, "path")


class Board:
    """A host copy of a craftax state, edited on the player's floor in rlgpt's (x, y)."""

    def __init__(self, state: Any) -> None:
        s = G.fetch(state)
        self._state = s
        self.level = int(s.player_level)
        arrays = ("map", "item_map", "mob_map", "light_map", "monsters_killed", "down_ladders",
                  "chests_opened", "learned_spells", "armour_enchantments")  # fmt: skip
        self.a = {k: np.array(getattr(s, k)) for k in arrays}
        self.mobs = {
            k: {f: np.array(getattr(getattr(s, k), f)) for f in FIELDS}
            for k in (*MOBS, *PROJECTILES)
        }
        self.inv: dict[str, Any] = {k: np.array(v) for k, v in vars(s.inventory).items()}
        self.player_fields: dict[str, Any] = {k: np.array(getattr(s, k)) for k in (
            "player_health", "player_food", "player_drink", "player_energy", "player_mana",
            "player_xp", "player_dexterity", "player_strength", "player_intelligence",
            "sword_enchantment", "bow_enchantment", "boss_progress",
            "boss_timesteps_to_spawn_this_round", "is_sleeping", "is_resting")}  # fmt: skip
        row, col = (int(v) for v in np.asarray(s.player_position))
        self.player = (col, row)
        self.direction = int(s.player_direction)
        self._up = np.array(s.up_ladders)
        self.clock = {"timestep": np.array(s.timestep), "light_level": np.array(s.light_level)}

    # -- cells --------------------------------------------------------------------------
    def inside(self, xy: tuple[int, int]) -> bool:
        rows, cols = self.a["map"].shape[1:]
        return 0 <= xy[0] < cols and 0 <= xy[1] < rows

    def block(self, xy: tuple[int, int]) -> str:
        return (
            F.blocks()[int(self.a["map"][self.level, xy[1], xy[0]])] if self.inside(xy) else "none"
        )

    def set_block(self, xy: tuple[int, int], name: str) -> None:
        if self.inside(xy):
            self.a["map"][self.level, xy[1], xy[0]] = F.block_id(name)

    def set_item(self, xy: tuple[int, int], item: str) -> None:
        if self.inside(xy):
            self.a["item_map"][self.level, xy[1], xy[0]] = F.ITEM_BLOCKS.index(item)

    def clear(self, xy: tuple[int, int], block: str | None = None) -> None:
        """Remove any mob or projectile at `xy` (never the player); set its block if given,
        and then remove the item lying there (a torch on a cell made a table is no table to
        a view that sees the torch first)."""
        self.remove_mobs(lambda _, at: at != xy)
        if block is not None:
            self.set_block(xy, block)
            self.set_item(xy, F.ITEM_BLOCKS[0])

    def light(self, radius: int) -> None:
        """Light the square of `radius` round the player on its floor (as torches would)."""
        x, y = self.player
        lit = self.a["light_map"][self.level]
        lit[max(0, y - radius) : y + radius + 1, max(0, x - radius) : x + radius + 1] = 1.0

    # -- the player's floor and mobs ----------------------------------------------------
    def set_clock(self, step: int) -> None:
        """The episode's clock at `step` (craftax's light level follows it, as on Crafter)."""
        self.clock = {
            "timestep": np.asarray(step, self.clock["timestep"].dtype),
            "light_level": np.asarray(daylight_at(step), np.float32),
        }

    def set_floor(self, floor: int) -> None:
        """Put the player on `floor`, where a descent arrives (the floor's ladder up), with
        every floor above it cleared, as the way down left them (a ladder down opens only at
        8 kills): a player who goes up to rest finds those floors as it left them."""
        if floor != self.level:
            self.level = floor
            row, col = (int(v) for v in self._up[floor])
            self.player = (col, row)
        killed = self.a["monsters_killed"]
        killed[:floor] = np.maximum(killed[:floor], F.KILLS_TO_OPEN)

    def remove_mobs(self, keep: Callable[[str, tuple[int, int]], bool]) -> None:
        """Remove every mob and projectile of the floor for which `keep(kind, (x, y))` is
        false."""
        for kind, mobs in self.mobs.items():
            for i in range(mobs["mask"].shape[1]):
                row, col = (int(v) for v in mobs["position"][self.level, i])
                if mobs["mask"][self.level, i] and not keep(kind, (col, row)):
                    mobs["mask"][self.level, i] = False
                    if kind in MOBS:
                        self.a["mob_map"][self.level, row, col] = False

    def add_mob(self, name: str, xy: tuple[int, int]) -> None:
        """Mob `name` at `xy` in the first free slot of its class (else the first slot); none
        off the map (a negative index would put it on the far side)."""
        if not self.inside(xy):
            return
        kind = vocab.mob_kinds()[name]
        cls = F.MOB_CLASSES.index(kind)
        mobs = self.mobs[MOBS[cls]]
        free = np.flatnonzero(~mobs["mask"][self.level])
        i = int(free[0]) if free.size else 0
        if mobs["mask"][self.level, i]:
            row, col = (int(v) for v in mobs["position"][self.level, i])
            self.a["mob_map"][self.level, row, col] = False
        type_id = F.mob_names()[kind].index(name)
        mobs["position"][self.level, i] = (xy[1], xy[0])
        mobs["health"][self.level, i] = float(np.asarray(G.C.MOB_TYPE_HEALTH_MAPPING)[type_id, cls])
        mobs["mask"][self.level, i], mobs["attack_cooldown"][self.level, i] = True, 0
        mobs["type_id"][self.level, i] = type_id
        self.a["mob_map"][self.level, xy[1], xy[0]] = True

    def open_ladder(self) -> None:
        """Open the floor's ladder down where it lies (8 kills)."""
        killed = int(self.a["monsters_killed"][self.level])
        self.a["monsters_killed"][self.level] = max(F.KILLS_TO_OPEN, killed)

    def ladder_down(self) -> tuple[int, int]:
        """Where the floor's ladder down lies, in (x, y)."""
        row, col = (int(v) for v in self.a["down_ladders"][self.level])
        return (col, row)

    def set_down_ladder(self, xy: tuple[int, int]) -> None:
        """Move the floor's ladder down to `xy` (on ground), and open it (8 kills)."""
        row, col = (int(v) for v in self.a["down_ladders"][self.level])
        if self.a["item_map"][self.level, row, col] == F.ITEM_BLOCKS.index("ladder_down"):
            self.a["item_map"][self.level, row, col] = 0
        self.set_item(xy, "ladder_down")
        self.a["down_ladders"][self.level] = (xy[1], xy[0])
        self.open_ladder()

    # -- the inventory ------------------------------------------------------------------
    def give(self, items: dict[str, int]) -> None:
        """Set inventory entries by rlgpt's names (facts.items())."""
        for name, n in items.items():
            self._give(name, int(n))

    def _give(self, name: str, n: int) -> None:
        p, inv = self.player_fields, self.inv
        if name in PLAIN or name in RENAMED:
            inv[RENAMED.get(name, name)] = np.int32(n)
        elif name in F.PICKAXES or name in F.SWORDS:
            tools = F.PICKAXES if name in F.PICKAXES else F.SWORDS
            key, level = ("pickaxe" if tools is F.PICKAXES else "sword"), tools.index(name) + 1
            inv[key] = np.int32(max(int(inv[key]), level) if n else min(int(inv[key]), level - 1))
        elif name in ("iron_armour", "diamond_armour"):
            value = 1 if name == "iron_armour" else 2
            inv["armour"] = np.array([value if k < n else 0 for k in range(4)], np.int32)
        elif name.startswith("potion_"):
            inv["potions"][F.POTIONS.index(name.removeprefix("potion_"))] = n
        elif name in ("fireball", "iceball"):
            self.a["learned_spells"][0 if name == "fireball" else 1] = bool(n)
        elif name == "enchanted_armour":  # against ice on the ice realm, else fire
            kind = 2 if self.level == F.floors().index("ice_realm") else 1
            self.a["armour_enchantments"][:] = [kind if k < n else 0 for k in range(4)]
        elif name in ("enchanted_sword", "enchanted_bow"):
            p[f"{name.removeprefix('enchanted_')}_enchantment"] = np.int32(n)
        else:
            key = f"player_{name}"
            p[key] = np.asarray(n, p[key].dtype)

    def host(self) -> Any:
        """The edited state, on the host (for `CraftaxEnv.place`)."""
        s = self._state
        mobs = {k: getattr(s, k).replace(**v) for k, v in self.mobs.items()}
        inventory = s.inventory.replace(**self.inv)
        position = np.array([self.player[1], self.player[0]], np.int32)
        return s.replace(
            **self.a, **mobs, **self.player_fields, **self.clock, inventory=inventory,
            player_position=position, player_level=np.int32(self.level),
            player_direction=np.int32(self.direction),
        )  # fmt: skip

    def state(self) -> Any:
        """The edited state, packed on the device (for `env.state`)."""
        return G.layout().put(self.host())


def stage(env: CraftaxEnv, spec: Scenario) -> StepInfo:
    """Reset `env` to the scenario's seed and arrange it; the info of the arranged state."""
    env.reset(seed=spec.seed)
    if spec.precondition == "unknown":
        return env.last_info
    board = Board(env.host_state())
    floor = F.floors().index(spec.floor or "overworld")
    board.set_floor(floor)
    px, py = board.player
    base = ground(floor)
    spec = _fitted(spec, board)

    def at(d: tuple[int, int]) -> tuple[int, int]:
        return (px + d[0], py + d[1])

    board.light(8)
    board.remove_mobs(lambda _, xy: abs(xy[0] - px) + abs(xy[1] - py) > HOSTILE_RADIUS)
    # nothing the action needs is within reach (it must walk), or in view when it is
    # remembered or never seen (it must walk back, or search)
    _clear_wanted(board, spec, at, base, cleared_radius(spec.memory, env.view_radius))
    way = way_in(spec)
    for cell in way.walk:
        if board.block(at(cell)) not in F.GROUND:
            board.clear(at(cell), base)
    if spec.target and spec.target_at and vocab.mob_kinds().get(spec.target) == "ranged":
        first = spec.target_at
        for d in ((0, 1), (0, -1), (1, 0), (-1, 0)):  # walled in but on the way's side
            cell = (first[0] + d[0], first[1] + d[1])
            if cell not in way.walk:
                board.clear(at(cell), "wall" if floor in DUNGEONS else "stone")
    for material, cells in spec.hazards.items():
        for cell in cells:
            board.clear(at(cell), material)
    for station, d in spec.stations.items():
        board.clear(at(d), station)
    if spec.target and spec.target_at:
        _place_target(board, spec.target, at(spec.target_at), base)
    elif spec.target == "ladder_down":  # never seen: the floor's own, where it lies, open
        board.open_ladder()
    for name, d in spec.hostiles.items():  # on ground, with a way to the player (no lava moat)
        for cell in l_path(d)[:-1]:
            if board.block(at(cell)) not in F.GROUND:
                board.clear(at(cell), base)
        board.clear(at(d), base)
        board.add_mob(name, at(d))
    if spec.state == "closed_ladder":  # the ladder down opens at the next kill (episode.py)
        board.a["monsters_killed"][board.level] = F.KILLS_TO_OPEN - 1
    if spec.daylight is not None:
        board.set_clock(clock_for(spec.daylight))
    if spec.target == "necromancer":  # between waves: it can be hit (for the last time)
        board.player_fields["boss_timesteps_to_spawn_this_round"] = np.int32(0)
        if env.task.achievement == "defeat_necromancer":
            board.player_fields["boss_progress"] = np.int32(G.STATIC.num_levels - 2)
    board.direction = _direction(spec.facing)
    if spec.front is not None or way.first is None:
        board.clear(at(spec.facing), spec.front or base)
        board.clear(at((spec.facing[1], -spec.facing[0])), base)  # a free cell to turn to
    board.give(spec.inventory)
    if spec.memory == "remembered" and way.visit is not None:  # seen earlier, from the way
        board.player = at(way.visit)
        env.place(board.host())  # the env marks what the player sees from there
        board.player = (px, py)
    return env.place(board.host())


def _mirrored(spec: Scenario, mx: int, my: int) -> Scenario:
    """The scenario's layout mirrored (x by `mx`, y by `my`: 1 or -1)."""

    def m(d: tuple[int, int]) -> tuple[int, int]:
        return (mx * d[0], my * d[1])

    return spec.model_copy(
        update={
            "stations": {k: m(v) for k, v in spec.stations.items()},
            "target_at": None if spec.target_at is None else m(spec.target_at),
            "hostiles": {k: m(v) for k, v in spec.hostiles.items()},
            "hazards": {k: [m(c) for c in v] for k, v in spec.hazards.items()},
            "facing": m(spec.facing),
        }
    )


def _fitted(spec: Scenario, board: Board) -> Scenario:
    """The scenario as laid out, or mirrored where that keeps what it places (stations, the
    target, monsters, hazards) on the map (a floor's ladder up, where a descent arrives, may
    lie by its edge; a cell of the way in beyond it is simply not laid)."""
    for mx, my in ((1, 1), (-1, 1), (1, -1), (-1, -1)):
        laid = _mirrored(spec, mx, my) if (mx, my) != (1, 1) else spec
        cells = [
            *laid.stations.values(),
            *laid.hostiles.values(),
            *(c for v in laid.hazards.values() for c in v),
        ]
        cells += [laid.target_at] if laid.target_at else []
        px, py = board.player
        if all(board.inside((px + c[0], py + c[1])) for c in cells):
            return laid
    return spec


def _clear_wanted(
    board: Board,
    spec: Scenario,
    at: Callable[[tuple[int, int]], tuple[int, int]],
    base: str,
    r: int,
) -> None:
    """Anything the action needs within `r` cells (but the player's own) becomes ground."""
    wanted = {spec.target, *spec.stations} - {None}
    for dx in range(-r, r + 1):
        for dy in range(-r, r + 1):
            if (dx, dy) != (0, 0) and board.block(at((dx, dy))) in wanted:
                board.clear(at((dx, dy)), base)


def _place_target(board: Board, target: str, xy: tuple[int, int], base: str) -> None:
    if target == "ladder_down":
        board.clear(xy, base)
        board.set_down_ladder(xy)
    elif target in vocab.mob_kinds():
        board.clear(xy, base)
        board.add_mob(target, xy)
    else:
        board.clear(xy, target)


def _direction(facing: tuple[int, int]) -> int:
    """craftax's player_direction (a move action) for a facing (dx, dy)."""
    moves = {(-1, 0): "move_left", (1, 0): "move_right", (0, -1): "move_up", (0, 1): "move_down"}
    return F.actions().index(moves[tuple(facing)])  # type: ignore[index]
