"""Crafter's grid and creatures on Python integers: the same state, draws and results as
`crafter.engine.World` and `crafter.objects`, computed without a small numpy array per move.

Stock crafter moves every creature through two-element numpy arrays (`pos + direction`,
`np.abs(offset).sum()`, `tuple(pos)` as an index), which costs more than the game's rules. Here:
- `FastWorld` (an `engine.World`, same fields) reads a cell and moves an object with plain
  integers, and looks a cell's chunk up in a table made once for the world's area;
- `UPDATES` holds, per creature class, its `update()` written on integers: every draw from the
  world's random stream is taken in crafter's order and under crafter's conditions (a draw that
  crafter short-circuits is not taken here either), and positions stay numpy arrays made as
  crafter makes them (`np.array` of the target cell).
The player's update is crafter's, with its inventory clamped only where a count left its range.
Classes without an entry (arrows, fences, any subclass) run their own `update()`. Each function
mirrors the code of crafter 1.8.3, the version pyproject.toml pins.

tests/unit/test_fast_backend.py compares every step with stock crafter: the semantic map, the
player, every object's position and counters, and the random stream's state.
"""

from __future__ import annotations

import collections
from collections.abc import Callable
from typing import Any

import numpy as np
from crafter import constants, engine, objects

DIRS = ((-1, 0), (+1, 0), (0, -1), (0, +1))  # `Object.all_dirs`, in crafter's order
WALKABLE = frozenset(constants.walkable)  # `Object.walkable` for cows, zombies and skeletons
HOSTILE = (objects.Zombie, objects.Skeleton, objects.Cow)  # what tramples a plant


class FastWorld(engine.World):
    """crafter's World with the same fields and results; cells read and objects moved on
    integers. `adopt` turns a World built by crafter into one (its views keep their reference)."""

    _w: int
    _h: int
    _chunk_keys: ChunkTable

    @classmethod
    def adopt(cls, world: engine.World) -> FastWorld:
        world.__class__ = cls
        assert isinstance(world, FastWorld)
        world._w, world._h = (int(v) for v in world.area)
        world._chunk_keys = _chunk_table(world)
        return world

    def __getstate__(self) -> dict[str, Any]:
        """Pickled (a snapshot) without the chunk table: it follows from the area and the chunk
        size, and is a third of a snapshot's bytes."""
        return {k: v for k, v in self.__dict__.items() if k != "_chunk_keys"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if "_chunk_keys" not in state:  # a snapshot pickled with it (before) keeps its own
            self._chunk_keys = _chunk_table(self)

    def reset(self, seed: Any = None) -> None:
        """crafter's `reset`, the episode's generator reseeded rather than made anew: `seed()`
        leaves a RandomState as `RandomState(seed)` starts (its gauss cache too), in about
        2 us, where a new one costs 0.4-0.8 ms (it seeds its MT19937 from a SeedSequence
        first, then again the legacy way)."""
        if seed is None or not isinstance(getattr(self, "random", None), np.random.RandomState):
            super().reset(seed)
            return
        self.random.seed(seed)
        self.daylight = 0.0
        self._chunks: collections.defaultdict[Any, set[Any]] = collections.defaultdict(set)
        self._objects = [None]
        self._mat_map = np.zeros(self.area, np.uint8)
        self._obj_map = np.zeros(self.area, np.uint32)

    def __getitem__(self, pos: Any) -> tuple[Any, Any]:
        x, y = pos[0], pos[1]
        if 0 <= x < self._w and 0 <= y < self._h:
            return self._mat_names[self._mat_map[x, y]], self._objects[self._obj_map[x, y]]
        return None, None

    def chunk_key(self, pos: Any) -> tuple[int, int, int, int]:
        x, y = int(pos[0]), int(pos[1])
        if 0 <= x < self._w and 0 <= y < self._h:
            return self._chunk_keys[x][y]
        return engine.World.chunk_key(self, (x, y))

    def move(self, obj: Any, pos: Any) -> None:
        if obj.removed:
            return
        pos = np.array(pos)
        x, y = int(pos[0]), int(pos[1])
        ox, oy = int(obj.pos[0]), int(obj.pos[1])
        obj_map = self._obj_map
        assert obj_map[x, y] == 0
        obj_map[x, y] = obj_map[ox, oy]
        obj_map[ox, oy] = 0
        old, new = self.chunk_key((ox, oy)), self.chunk_key((x, y))
        if old != new:
            self._chunks[old].remove(obj)
            self._chunks[new].add(obj)
        obj.pos = pos

    def free(self, x: int, y: int) -> bool:
        """`Object.is_free((x, y))` for a creature: inside, no object, a walkable material."""
        return (
            0 <= x < self._w
            and 0 <= y < self._h
            and self._objects[self._obj_map[x, y]] is None
            and self._mat_names[self._mat_map[x, y]] in WALKABLE
        )


ChunkTable = tuple[tuple[tuple[int, int, int, int], ...], ...]
_CHUNK_TABLES: dict[tuple[int, int, int, int], ChunkTable] = {}


def _chunk_table(world: engine.World) -> ChunkTable:
    """crafter's `chunk_key` of every cell, [x][y]: one table per area and chunk size, shared
    by every world of that shape (it is immutable)."""
    (w, h), (cw, ch) = (int(v) for v in world.area), (int(v) for v in world._chunk_size)
    shape = (w, h, cw, ch)
    if shape not in _CHUNK_TABLES:
        key = engine.World.chunk_key
        _CHUNK_TABLES[shape] = tuple(
            tuple(tuple(int(v) for v in key(world, (x, y))) for y in range(h))  # type: ignore[misc]
            for x in range(w)
        )
    return _CHUNK_TABLES[shape]


def _xy(obj: Any) -> tuple[int, int]:
    pos = obj.pos
    return int(pos[0]), int(pos[1])


def _step(world: FastWorld, obj: Any, dx: int, dy: int) -> bool:
    """`Object.move((dx, dy))`: whether the cell was free (the object then moved, unless it
    was removed: crafter's World.move ignores removed objects)."""
    x, y = _xy(obj)
    if not world.free(x + dx, y + dy):
        return False
    world.move(obj, (x + dx, y + dy))
    return True


def _sign(v: int) -> int:
    return (v > 0) - (v < 0)


def _toward(obj: Any, target: Any, long_axis: bool = True) -> tuple[int, int]:
    """`Object.toward(target, long_axis)` on integers."""
    x, y = _xy(obj)
    tx, ty = _xy(target)
    ox, oy = tx - x, ty - y
    if abs(ox) > abs(oy) if long_axis else abs(ox) <= abs(oy):
        return _sign(ox), 0
    return 0, _sign(oy)


def _distance(obj: Any, target: Any) -> int:
    (x, y), (tx, ty) = _xy(obj), _xy(target)
    return abs(tx - x) + abs(ty - y)


def cow_update(cow: Any) -> None:
    """`objects.Cow.update`."""
    world = cow.world
    if cow.health <= 0:
        world.remove(cow)
    if cow.random.uniform() < 0.5:
        _step(world, cow, *DIRS[cow.random.randint(0, 4)])


def zombie_update(zombie: Any) -> None:
    """`objects.Zombie.update`."""
    world, player, random = zombie.world, zombie.player, zombie.random
    if zombie.health <= 0:
        world.remove(zombie)
    if _distance(zombie, player) <= 8 and random.uniform() < 0.9:
        _step(world, zombie, *_toward(zombie, player, random.uniform() < 0.8))
    else:
        _step(world, zombie, *DIRS[random.randint(0, 4)])
    if _distance(zombie, player) <= 1:
        if zombie.cooldown:
            zombie.cooldown -= 1
        else:
            player.health -= 7 if player.sleeping else 2
            zombie.cooldown = 5


def skeleton_update(skeleton: Any) -> None:
    """`objects.Skeleton.update` (its shot is crafter's own `_shoot`)."""
    world, player, random = skeleton.world, skeleton.player, skeleton.random
    if skeleton.health <= 0:
        world.remove(skeleton)
    skeleton.reload = max(0, skeleton.reload - 1)
    dist = _distance(skeleton, player)
    if dist <= 3:
        dx, dy = _toward(skeleton, player, random.uniform() < 0.6)
        if _step(world, skeleton, -dx, -dy):
            return
    if dist <= 5 and random.uniform() < 0.5:
        skeleton._shoot(skeleton.toward(player))
    elif dist <= 8 and random.uniform() < 0.3:
        _step(world, skeleton, *_toward(skeleton, player, random.uniform() < 0.6))
    elif random.uniform() < 0.2:
        _step(world, skeleton, *DIRS[random.randint(0, 4)])


def plant_update(plant: Any) -> None:
    """`objects.Plant.update`."""
    world = plant.world
    plant.grown += 1
    x, y = _xy(plant)
    if any(isinstance(world[(x + dx, y + dy)][1], HOSTILE) for dx, dy in DIRS):
        plant.health -= 1
    if plant.health <= 0:
        world.remove(plant)


MAXES = {name: info["max"] for name, info in constants.items.items()}
ENERGY_MAX = constants.items["energy"]["max"]


def player_update(player: Any) -> None:
    """`objects.Player.update` (its actions are crafter's own methods); the inventory is
    clamped to its range only where a count left it."""
    target = (player.pos[0] + player.facing[0], player.pos[1] + player.facing[1])
    material, obj = player.world[target]
    action = player.action
    inventory = player.inventory
    if player.sleeping:
        if inventory["energy"] < ENERGY_MAX:
            action = "sleep"
        else:
            player.sleeping = False
            player.achievements["wake_up"] += 1
    if action == "noop":
        pass
    elif action.startswith("move_"):
        player._move(action[len("move_") :])
    elif action == "do" and obj:
        player._do_object(obj)
    elif action == "do":
        player._do_material(target, material)
    elif action == "sleep":
        if inventory["energy"] < ENERGY_MAX:
            player.sleeping = True
    elif action.startswith("place_"):
        player._place(action[len("place_") :], target, material)
    elif action.startswith("make_"):
        player._make(action[len("make_") :])
    player._update_life_stats()
    player._degen_or_regen_health()
    for name, amount in inventory.items():
        top = MAXES[name]
        if not 0 <= amount <= top:
            inventory[name] = max(0, min(amount, top))
    player._wake_up_when_hurt()


UPDATES: dict[type, Callable[[Any], None]] = {
    objects.Player: player_update,
    objects.Cow: cow_update,
    objects.Zombie: zombie_update,
    objects.Skeleton: skeleton_update,
    objects.Plant: plant_update,
}
