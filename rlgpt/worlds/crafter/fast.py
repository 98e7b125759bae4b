"""A faster Crafter with the same dynamics as stock `crafter.Env`.

What changes is only how things are computed, never what:
- world generation is compiled (worldgen.py): each OpenSimplex noise field is evaluated once
  for the whole 64x64 grid, then the cells are walked in crafter's order, drawing from the
  world's random stream exactly where crafter does;
- the image is not rendered unless asked for; at night crafter's render draws noise from the
  world's random stream, so the same number of numbers is drawn (and thrown away) instead;
- the per-step reach test reads every object's position from the object map at once and
  decides who is within reach in one compiled pass each (`_positions`, `_near`), and the full
  semantic map is computed on demand, not on every step;
- the grid and the creatures (cows, zombies, skeletons, plants) and the player's own update
  run on Python integers (creatures.py: `FastWorld`, `UPDATES`), with every draw where crafter
  takes it;
- balancing the chunks (every 10 steps) counts every chunk's grass and path cells at once,
  skips a rule whose count is within its range (crafter draws nothing there), sorts a chunk's
  creatures of a kind only when one is despawned, and draws the same numbers in the same order;
- which creature a chunk despawns is drawn uniformly as in crafter, but from the creatures in a
  stable order (their index in the world) instead of the order of a Python set of objects, which
  depends on memory addresses and makes stock crafter itself irreproducible.

tests/unit/test_fast_backend.py checks step-by-step equality with stock crafter (the map, the
player, every object and the random stream).
"""

from __future__ import annotations

from typing import Any

import crafter
import numpy as np
from crafter import constants, engine, objects
from numba import njit

from rlgpt.worlds.crafter.creatures import UPDATES, FastWorld
from rlgpt.worlds.crafter.worldgen import generate_world

# what a pickled FastCrafter leaves out and builds again when loaded (FastCrafter._views)
_REBUILT = frozenset(("_textures", "_local_view", "_item_view", "_sem_view", "_blank"))
_shared_textures: list[Any] = []  # crafter's sprites, read once per process when first needed


def _textures() -> Any:
    if not _shared_textures:
        _shared_textures.append(engine.Textures(constants.root / "assets"))
    return _shared_textures[0]


class FastCrafter(crafter.Env):
    """crafter.Env with faster reset and step and identical dynamics (see module docstring).

    `info` carries everything stock crafter's does except 'semantic'; call `semantic()`.
    """

    def __init__(self, render_image: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        FastWorld.adopt(self._world)
        self._render_image = render_image
        self._blank = np.zeros((*self._size, 3), np.uint8)
        self._reach = int(2 * max(self._view))
        unit = self._size // self._view
        self._noise_shape = tuple(int(v) for v in self._local_view._grid * unit)

    def __getstate__(self) -> dict[str, Any]:
        """Pickled (a snapshot: `CrafterEnv.snapshot`) without what every env of its shape
        holds alike: crafter's sprites, the views over them and the blank image, about 60% of
        its bytes and most of its loading time. Loading builds them again (`_views`)."""
        return {k: v for k, v in self.__dict__.items() if k not in _REBUILT}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if "_local_view" not in state:  # a snapshot pickled with them (before) keeps its own
            self._views()

    def _views(self) -> None:
        """The sprites (shared by the envs of this process), the views crafter.Env.__init__
        builds over them and the world, and the blank image."""
        view = self._view
        item_rows = int(np.ceil(len(constants.items) / view[0]))
        self._textures = textures = _textures()
        self._local_view = engine.LocalView(
            self._world, textures, [view[0], view[1] - item_rows]
        )  # fmt: skip
        self._item_view = engine.ItemView(textures, [view[0], item_rows])
        self._sem_view = engine.SemanticView(self._world, [
            objects.Player, objects.Cow, objects.Zombie, objects.Skeleton, objects.Arrow,
            objects.Plant,
        ])  # fmt: skip
        self._blank = np.zeros((*self._size, 3), np.uint8)

    def semantic(self) -> np.ndarray:
        return np.asarray(self._sem_view())

    def _obs(self) -> np.ndarray:
        if self._render_image:
            return np.asarray(super()._obs())
        if self._world.daylight < 0.5:  # the night render draws noise from the world's stream
            self._world.random.uniform(32, 127, self._noise_shape)
        return self._blank

    def reseed(self, seed: int) -> None:
        """Start a new episode sequence: the next reset builds the world crafter builds for the
        first episode of `seed` (crafter keeps the seed and the episode count private)."""
        self._seed = seed
        self._episode = 0

    def reset(self) -> np.ndarray:
        center = (self._world.area[0] // 2, self._world.area[1] // 2)
        self._episode += 1
        self._step = 0
        self._world.reset(seed=hash((self._seed, self._episode)) % (2**31 - 1))
        self._update_time()
        self._player = objects.Player(self._world, center)
        self._last_health = self._player.health
        self._world.add(self._player)
        self._unlocked: set[str] = set()
        generate_world(self._world, self._player)
        return self._obs()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, dict[str, Any]]:
        self._step += 1
        self._update_time()
        player = self._player
        player.action = constants.actions[action]
        self._update_objects(player)
        if self._step % 10 == 0:
            self._balance_chunks()
        obs = self._obs()
        reward = (player.health - self._last_health) / 10
        self._last_health = player.health
        unlocked = {
            name
            for name, count in player.achievements.items()
            if count > 0 and name not in self._unlocked
        }
        if unlocked:
            self._unlocked |= unlocked
            reward += 1.0
        dead = player.health <= 0
        over = self._length and self._step >= self._length
        info = {
            "inventory": player.inventory.copy(),
            "achievements": player.achievements.copy(),
            "discount": 1 - float(dead),
            "player_pos": player.pos,
            "reward": reward,
        }
        if not self._reward:
            reward = 0.0
        return obs, reward, bool(dead or over), info

    def _update_objects(self, player: Any) -> None:
        """crafter's loop: each object (in the world's order) within reach of the player
        updates. Every object's position is read from the object map once, before the loop: an
        object moves only in its own update (crafter's objects move themselves alone), so each
        is where the map said when its turn comes. Who is within reach is decided for all at
        once, from the player's position before its own update for the objects before it, and
        after it for those after it. Creatures update on integers (creatures.py)."""
        world = self._world
        objs = world.objects
        xs, ys = _positions(world._obj_map, len(world._objects))
        if len(xs) != len(objs):  # not one cell per object: read each object's position
            for obj in objs:
                p, o = player.pos, obj.pos
                if abs(int(o[0]) - int(p[0])) + abs(int(o[1]) - int(p[1])) < self._reach:
                    _update(obj)
            return
        # the player comes first (it is added first), but any place in the order is kept
        me = 0 if objs[0] is player else next(
            (i for i, obj in enumerate(objs) if obj is player), len(objs)
        )  # fmt: skip
        self._update_near(objs, xs, ys, 0, me)
        if me < len(objs):
            _update(player)  # within its own reach (distance 0)
        self._update_near(objs, xs, ys, me + 1, len(objs))

    def _update_near(
        self, objs: list[Any], xs: np.ndarray, ys: np.ndarray, lo: int, hi: int
    ) -> None:  # fmt: skip
        """Update objs[lo:hi] (at xs, ys) that are within reach of the player where it is now."""
        if lo >= hi:
            return
        px, py = self._player.pos.tolist()
        for i in _near(xs, ys, lo, hi, px, py, self._reach).tolist():
            _update(objs[i])

    def _balance_chunks(self) -> None:
        """crafter's `_balance_chunk` for every chunk, in its order, with the same draws:
        zombies and cows on grass, skeletons on paths. A chunk's grass and path cells are
        counted for every chunk at once (spawning and despawning move no material), a rule
        whose count is within its range draws nothing (as in crafter) and is skipped, and a
        chunk's creatures are sorted only when one is despawned."""
        world = self._world
        ids = world._mat_ids
        mats = world._mat_map
        grass = self._chunk_counts(mats == ids["grass"])
        path = self._chunk_counts(mats == ids["path"])
        light = world.daylight
        csx, csy = world._chunk_size
        for chunk, objs in world.chunks.items():
            zombies, skeletons, cows = [], [], []
            for obj in objs:
                if isinstance(obj, objects.Zombie):
                    zombies.append(obj)
                elif isinstance(obj, objects.Skeleton):
                    skeletons.append(obj)
                elif isinstance(obj, objects.Cow):
                    cows.append(obj)
            cx, cy = int(chunk[0]) // csx, int(chunk[2]) // csy
            on_grass, on_path = grass[cx][cy], path[cx][cy]
            rules = (
                (zombies, "grass", 6, 0, 0.3, 0.4, self._zombie,
                 0 if on_grass < 50 else 3.5 - 3 * light, 3.5 - 3 * light),
                (skeletons, "path", 7, 7, 0.1, 0.1, self._skeleton,
                 0 if on_path < 6 else 1, 2),
                (cows, "grass", 5, 5, 0.01, 0.1, self._cow,
                 0 if on_grass < 30 else 1, 1.5 + light),
            )  # fmt: skip
            for creatures, material, span, despan, p_spawn, p_despawn, ctor, low, high in rules:
                if int(low) <= len(creatures) <= int(high):
                    continue  # neither rule's count holds: crafter draws nothing
                spawn_or_despawn(self, chunk, creatures, material, span, despan, p_spawn,
                                 p_despawn, ctor, low, high)  # fmt: skip

    def _chunk_counts(self, mask: np.ndarray) -> list[list[int]]:
        """True cells of `mask` per chunk: out[x // chunk width][y // chunk height]."""
        csx, csy = self._world._chunk_size
        xs, ys = np.arange(0, mask.shape[0], csx), np.arange(0, mask.shape[1], csy)
        per_row = np.add.reduceat(mask.astype(np.int64), xs, axis=0)
        return np.add.reduceat(per_row, ys, axis=1).tolist()

    def _zombie(self, pos: Any) -> Any:
        return objects.Zombie(self._world, pos, self._player)

    def _skeleton(self, pos: Any) -> Any:
        return objects.Skeleton(self._world, pos, self._player)

    def _cow(self, pos: Any) -> Any:
        return objects.Cow(self._world, pos)

    def _balance_object(
        self, chunk: Any, objs: Any, cls: Any, material: str, span_dist: float,
        despan_dist: float, spawn_prob: float, despawn_prob: float, ctor: Any, target_fn: Any,
    ) -> None:  # fmt: skip
        """crafter's spawn/despawn rule; creatures in a stable order (see module docstring)."""
        balance_object(self, chunk, objs, cls, material, span_dist, despan_dist, spawn_prob,
                       despawn_prob, ctor, target_fn)  # fmt: skip


@njit(cache=True)
def _positions(obj_map: Any, slots: int) -> Any:  # pragma: no cover - compiled
    """The cell of each object on the map, in the order of its index in the world (the order
    of `world.objects`): (xs, ys). Empty where an index is out of range or on two cells."""
    w, h = obj_map.shape
    at_x, at_y = np.full(slots, -1, np.int64), np.empty(slots, np.int64)
    n = 0
    for x in range(w):
        for y in range(h):
            i = obj_map[x, y]
            if i:
                if i >= slots or at_x[i] >= 0:
                    return at_x[:0], at_y[:0]
                at_x[i], at_y[i] = x, y
                n += 1
    xs, ys = np.empty(n, np.int64), np.empty(n, np.int64)
    k = 0
    for i in range(slots):
        if at_x[i] >= 0:
            xs[k], ys[k] = at_x[i], at_y[i]
            k += 1
    return xs, ys


@njit(cache=True)
def _near(
    xs: Any, ys: Any, lo: int, hi: int, px: int, py: int, reach: int
) -> Any:  # pragma: no cover
    """Which of objects lo..hi-1 (at xs, ys) are within `reach` steps of (px, py), in order."""
    out = np.empty(max(hi - lo, 0), np.int64)
    n = 0
    for i in range(lo, hi):
        if abs(xs[i] - px) + abs(ys[i] - py) < reach:
            out[n] = i
            n += 1
    return out[:n]


def _update(obj: Any) -> None:
    """One object's update: on integers where creatures.py has its class, else its own."""
    fast = UPDATES.get(type(obj))
    if fast is None:
        obj.update()
    else:
        fast(obj)


def balance_object(
    env: Any, chunk: Any, objs: Any, cls: Any, material: str, span_dist: float,
    despan_dist: float, spawn_prob: float, despawn_prob: float, ctor: Any, target_fn: Any,
) -> None:  # fmt: skip
    """Spawn or despawn one creature of `cls` in `chunk`, as crafter does, with the creatures
    ordered by their index in the world rather than by a set's memory-address order."""
    creatures = [obj for obj in objs if isinstance(obj, cls)]
    target_min, target_max = target_fn(len(creatures), env._world.mask(*chunk, material).sum())
    spawn_or_despawn(env, chunk, creatures, material, span_dist, despan_dist, spawn_prob,
                     despawn_prob, ctor, target_min, target_max)  # fmt: skip


def spawn_or_despawn(
    env: Any, chunk: Any, creatures: list[Any], material: str, span_dist: float,
    despan_dist: float, spawn_prob: float, despawn_prob: float, ctor: Any, low: float,
    high: float,
) -> None:  # fmt: skip
    """crafter's `_balance_object` once the chunk's creatures and target range are known:
    spawn one on `material` below `low`, despawn one above `high`, with crafter's draws; the
    creatures in the order of their index in the world (sorted only to despawn)."""
    world = env._world
    random = world.random
    if len(creatures) < int(low) and random.uniform() < spawn_prob:
        xmin, xmax, ymin, ymax = chunk
        mask = world.mask(*chunk, material)
        xs = np.tile(np.arange(xmin, xmax)[:, None], [1, ymax - ymin])
        ys = np.tile(np.arange(ymin, ymax)[None, :], [xmax - xmin, 1])
        xs, ys = xs[mask], ys[mask]
        i = random.randint(0, len(xs))
        pos = np.array((xs[i], ys[i]))
        empty = world[pos][1] is None
        away = env._player.distance(pos) >= span_dist
        if empty and away:
            world.add(ctor(pos))
    elif len(creatures) > int(high) and random.uniform() < despawn_prob:
        creatures = sorted(creatures, key=lambda o: int(world._obj_map[o.pos[0], o.pos[1]]))
        obj = creatures[random.randint(0, len(creatures))]
        away = env._player.distance(obj.pos) >= despan_dist
        if away:
            world.remove(obj)
