"""Validation scenarios on Craftax-Classic: crafter's `stage`, on craftax's state.

The semantics are rlgpt.worlds.crafter.scenarios.stage's, and so is the geometry
(rlgpt/worlds/grid/: layout.py, and episode.py for the clock: imported, not copied): reset to
the scenario's seed; set the clock (dusk, night); remove the hostiles (zombies, skeletons,
arrows) within 12 cells; turn anything the action needs that is within reach (in view, when it
is remembered or never seen) into grass; lay a walkable way to the first target (walls round a
skeleton, a way round lava); put the hazards, the stations, the target (a material, a creature
in a free mob slot, or a ripe plant with its growing slot), the hostile creatures, the facing,
the faced cell and the inventory; for a remembered target, let the player stand by it for a
moment first. The state is fetched to the host, edited as numpy arrays in crafter's (x, y) and
put back whole; no rule of the game changes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from rlgpt.messages import Scenario
from rlgpt.worlds.base import StepInfo
from rlgpt.worlds.craftax_classic import game as G
from rlgpt.worlds.craftax_classic.env import CraftaxClassicEnv
from rlgpt.worlds.crafter.layout import WALKABLE  # the layout is the game's
from rlgpt.worlds.grid.episode import cleared_radius, clock_for, daylight_at
from rlgpt.worlds.grid.layout import way_in

HOSTILE = ("zombies", "skeletons", "arrows")
CREATURES = {"cow": "cows", "zombie": "zombies", "skeleton": "skeletons"}
HEALTH = {
    "cows": G.PARAMS.cow_health,
    "zombies": G.PARAMS.zombie_health,
    "skeletons": G.PARAMS.skeleton_health,
}
RIPE_AGE = 600  # craftax's update_plants: a growing plant of this age is ripe
HOSTILE_RADIUS = 12


class Board:
    """A host copy of a craftax state, edited cell by cell in crafter's (x, y): blocks, mobs,
    growing plants, the player's position, direction and sleep, vitals and inventory."""

    def __init__(self, state: Any) -> None:
        s = G.fetch(state)
        self._state = s
        self.map = np.array(s.map)  # [row, col] = [y, x]
        self.mob_map = np.array(s.mob_map)
        fields = ("position", "health", "mask", "attack_cooldown")
        self.mobs = {k: {f: np.array(getattr(getattr(s, k), f)) for f in fields} for k in G.MOBS}
        self.plants = {
            "positions": np.array(s.growing_plants_positions),
            "age": np.array(s.growing_plants_age),
            "mask": np.array(s.growing_plants_mask),
        }
        row, col = (int(v) for v in np.asarray(s.player_position))
        self.player = (col, row)
        self.direction = int(s.player_direction)
        self.sleeping = bool(s.is_sleeping)
        self.vitals = {k: int(getattr(s, f"player_{k}")) for k in G.VITALS}
        self.inventory = {k: int(v) for k, v in vars(s.inventory).items()}
        self.timestep = int(s.timestep)

    def creature_at(self, xy: tuple[int, int]) -> str | None:
        """The crafter name of the mob at `xy` (cow, zombie, skeleton), or None."""
        for kind, mobs in self.mobs.items():
            for (row, col), alive in zip(mobs["position"], mobs["mask"], strict=True):
                if alive and (int(col), int(row)) == xy and kind in G.MOB_NAMES:
                    return str(G.MOB_NAMES[kind])
        return None

    def inside(self, xy: tuple[int, int]) -> bool:
        rows, cols = self.map.shape
        return 0 <= xy[0] < cols and 0 <= xy[1] < rows

    def material(self, xy: tuple[int, int]) -> str:
        return G.block_names()[int(self.map[xy[1], xy[0]])] if self.inside(xy) else "none"

    def remove_mobs(self, keep: Callable[[str, tuple[int, int]], bool]) -> None:
        """Remove every mob (arrows included) for which `keep(kind, (x, y))` is false."""
        for kind, mobs in self.mobs.items():
            for i, ((row, col), alive) in enumerate(
                zip(mobs["position"], mobs["mask"], strict=True)
            ):
                if alive and not keep(kind, (int(col), int(row))):
                    mobs["mask"][i] = False
                    if kind != "arrows":  # arrows are not on craftax's mob map
                        self.mob_map[row, col] = False

    def clear(self, xy: tuple[int, int], material: str | None = None) -> None:
        """Remove any creature at `xy` (never the player); set its block if given (a plant's
        growing slot goes with its block)."""
        if not self.inside(xy):
            return
        self.remove_mobs(lambda _, at: at != xy)
        if material is not None:
            self._drop_plant(xy)
            self.map[xy[1], xy[0]] = G.block_of(material)

    def _drop_plant(self, xy: tuple[int, int]) -> None:
        hit = self.plants["mask"] & np.all(self.plants["positions"] == (xy[1], xy[0]), axis=1)
        self.plants["mask"][hit] = False

    def add_creature(self, name: str, xy: tuple[int, int]) -> None:
        """A cow, zombie or skeleton at `xy`, in the first free slot (else the first slot)."""
        kind = CREATURES[name]
        mobs = self.mobs[kind]
        free = np.flatnonzero(~mobs["mask"])
        i = int(free[0]) if free.size else 0
        if mobs["mask"][i]:
            self.clear(self._xy(mobs["position"][i]))
        mobs["position"][i] = (xy[1], xy[0])
        mobs["health"][i], mobs["mask"][i], mobs["attack_cooldown"][i] = HEALTH[kind], True, 0
        self.mob_map[xy[1], xy[0]] = True

    def add_ripe_plant(self, xy: tuple[int, int]) -> None:
        """A ripe plant that grows on as any other: a block and a growing-plant slot."""
        self.clear(xy, "grass")
        free = np.flatnonzero(~self.plants["mask"])
        i = int(free[0]) if free.size else 0
        self.plants["positions"][i], self.plants["age"][i] = (xy[1], xy[0]), RIPE_AGE
        self.plants["mask"][i] = True
        self.map[xy[1], xy[0]] = G.C.BlockType.RIPE_PLANT.value

    @staticmethod
    def _xy(position: np.ndarray) -> tuple[int, int]:
        return int(position[1]), int(position[0])

    def state(self) -> Any:
        """The edited state, packed on the device (for `env.state`)."""
        s = self._state
        mobs = {k: getattr(s, k).replace(**v) for k, v in self.mobs.items()}
        vitals = {f"player_{k}": np.int32(v) for k, v in self.vitals.items()}
        inventory = s.inventory.replace(**{k: np.int32(v) for k, v in self.inventory.items()})
        position = np.array([self.player[1], self.player[0]], np.int32)
        return G.layout().put(s.replace(
            map=self.map, mob_map=self.mob_map, player_position=position,
            player_direction=np.int32(self.direction), is_sleeping=np.bool_(self.sleeping),
            timestep=np.int32(self.timestep),
            light_level=np.float32(daylight_at(self.timestep)),
            growing_plants_positions=self.plants["positions"],
            growing_plants_age=self.plants["age"], growing_plants_mask=self.plants["mask"],
            inventory=inventory, **mobs, **vitals,
        ))  # fmt: skip


def stage(env: CraftaxClassicEnv, spec: Scenario) -> StepInfo:
    """Reset `env` to the scenario's seed and arrange it; the info of the arranged state."""
    env.reset(seed=spec.seed)
    if spec.precondition == "unknown":
        return env.last_info
    board = Board(env.host_state())
    px, py = board.player

    def at(d: tuple[int, int]) -> tuple[int, int]:
        return (px + d[0], py + d[1])

    def far(_: str, xy: tuple[int, int]) -> bool:  # no fight the scenario did not ask for
        return abs(xy[0] - px) + abs(xy[1] - py) > HOSTILE_RADIUS

    if spec.daylight is not None:
        board.timestep = clock_for(spec.daylight)
    board.remove_mobs(lambda kind, xy: kind not in HOSTILE or far(kind, xy))
    _clear_wanted(board, spec, at, cleared_radius(spec.memory, env.radius))
    way = _lay_way(board, spec, at)
    for station, d in spec.stations.items():
        board.clear(at(d), station)
    if spec.target and spec.target_at:
        _place_target(board, spec.target, at(spec.target_at))
    for name, d in spec.hostiles.items():
        _place_target(board, name, at(d))
    board.direction = G.direction_of(spec.facing)
    if spec.front is not None or way is None:
        board.clear(at(spec.facing), spec.front or "grass")
        board.clear(at((spec.facing[1], -spec.facing[0])), "grass")  # a free cell to turn to
    for item, n in spec.inventory.items():
        (board.vitals if item in board.vitals else board.inventory)[item] = n
    if spec.memory == "remembered" and way is not None:
        board.clear(at(way))
        board.player = at(way)  # the player stood there earlier: the env marks its view seen
        env.state = board.state()
        env.refresh()
        board.player = (px, py)
    env.state = board.state()
    return env.refresh()


def _clear_wanted(
    board: Board, spec: Scenario, at: Callable[[tuple[int, int]], tuple[int, int]], r: int
) -> None:
    """Anything the action needs within `r` cells (but the player's own) becomes grass."""
    wanted = {spec.target, *spec.stations} - {None}
    for dx in range(-r, r + 1):
        for dy in range(-r, r + 1):
            xy = at((dx, dy))
            if (dx, dy) != (0, 0) and (
                board.material(xy) in wanted or board.creature_at(xy) in wanted
            ):
                board.clear(xy, "grass")


def _lay_way(
    board: Board, spec: Scenario, at: Callable[[tuple[int, int]], tuple[int, int]]
) -> tuple[int, int] | None:
    """A walkable way to the cell before the first target (stone walls round a skeleton, a way
    round its hazards, which are laid too); the cell of the way to see the target from (None
    when nothing is laid out)."""
    way = way_in(spec)
    for cell in way.walk:
        walkable = board.material(at(cell)) in WALKABLE
        board.clear(at(cell), None if walkable else way.base)
    for cell in way.walls:
        board.clear(at(cell), "stone")
    for material, cells in spec.hazards.items():
        for cell in cells:
            board.clear(at(cell), material)
    return way.visit


def _place_target(board: Board, target: str, xy: tuple[int, int]) -> None:
    if target == "plant":
        board.add_ripe_plant(xy)
    elif target in CREATURES:
        board.clear(xy, "path" if target == "skeleton" else "grass")
        board.add_creature(target, xy)
    else:
        board.clear(xy, target)
