"""A faster Crafter with the same dynamics as stock `crafter.Env`.

What changes is only how things are computed, never what:
- world generation evaluates each OpenSimplex noise field once for the whole 64x64 grid
  (opensimplex's array API, numba-compiled and cached on disk) and then walks the cells in
  crafter's order, drawing from the world's random stream exactly where crafter does;
- the image is not rendered unless asked for; at night crafter's render draws noise from the
  world's random stream, so the same number of numbers is drawn (and thrown away) instead;
- the per-step object-distance test uses Python integers instead of small numpy arrays, and the
  full semantic map is computed on demand, not on every step;
- which creature a chunk despawns is drawn uniformly as in crafter, but from the creatures in a
  stable order (their index in the world) instead of the order of a Python set of objects, which
  depends on memory addresses and makes stock crafter itself irreproducible.

tests/unit/test_fast_backend.py checks step-by-step equality with stock crafter.
"""

from __future__ import annotations

from typing import Any

import crafter
import numpy as np
import opensimplex
from crafter import constants, objects

_WALKABLE = frozenset(constants.walkable)


def _field(simplex: Any, xs: np.ndarray, ys: np.ndarray, z: float, sizes: Any,
           normalize: bool = True) -> np.ndarray:  # fmt: skip
    """crafter's `_simplex` for every (x, y) of the grid at once, same float operations."""
    if not isinstance(sizes, dict):
        sizes = {sizes: 1}
    value: Any = 0
    for size, weight in sizes.items():
        noise = simplex.noise3array(xs / size, ys / size, np.array([float(z)]))[0].T
        value = value + weight * noise
    if normalize:
        value = value / sum(sizes.values())
    return np.asarray(value)


def generate_world(world: Any, player: Any) -> None:
    """Same world as `crafter.worldgen.generate_world` for the same random state."""
    simplex = opensimplex.OpenSimplex(seed=world.random.randint(0, 2**31 - 1))
    w, h = world.area
    xi, yi = np.arange(w), np.arange(h)
    xg, yg = np.meshgrid(xi, yi, indexing="ij")
    px, py = player.pos

    def f(xs: np.ndarray, ys: np.ndarray, z: float, sizes: Any, norm: bool = True) -> Any:
        return _field(simplex, xs, ys, z, sizes, norm)

    start = 4 - np.sqrt((xg - px) ** 2 + (yg - py) ** 2)
    start = start + 2 * f(xi, yi, 8, 3)
    start = 1 / (1 + np.exp(-start))
    water = f(xi, yi, 3, {15: 1, 5: 0.15}, False) + 0.1
    water = water - 2 * start
    mountain = f(xi, yi, 0, {15: 1, 5: 0.3})
    mountain = mountain - (4 * start + 0.3 * water)
    cave = f(xi, yi, 6, 7) > 0.15
    htunnel = f(2 * xi, yi / 5, 7, 3) > 0.4
    vtunnel = f(xi / 5, 2 * yi, 7, 3) > 0.4
    coal, iron = f(xi, yi, 1, 8) > 0, f(xi, yi, 2, 6) > 0.4
    lava, sand = f(xi, yi, 6, 5) > 0.35, f(xi, yi, 4, 9) > -0.2
    tree = f(xi, yi, 5, 7) > 0

    ids = world._mat_ids
    mat = np.full((w, h), ids["grass"], np.uint8)
    tunnels = np.zeros((w, h), bool)
    uniform = world.random.uniform
    grassy = start > 0.5
    mount = ~grassy & (mountain > 0.15)
    for x in range(w):
        for y in range(h):
            if grassy[x, y]:
                continue
            if mount[x, y]:
                m = mountain[x, y]
                if cave[x, y] and m > 0.3:
                    mat[x, y] = ids["path"]
                elif htunnel[x, y] or vtunnel[x, y]:
                    mat[x, y] = ids["path"]
                    tunnels[x, y] = True
                elif coal[x, y] and uniform() > 0.85:
                    mat[x, y] = ids["coal"]
                elif iron[x, y] and uniform() > 0.75:
                    mat[x, y] = ids["iron"]
                elif m > 0.18 and uniform() > 0.994:
                    mat[x, y] = ids["diamond"]
                elif m > 0.3 and lava[x, y]:
                    mat[x, y] = ids["lava"]
                else:
                    mat[x, y] = ids["stone"]
                continue
            wv = water[x, y]
            if 0.25 < wv <= 0.35 and sand[x, y]:
                mat[x, y] = ids["sand"]
            elif wv > 0.3:
                mat[x, y] = ids["water"]
            elif tree[x, y] and uniform() > 0.8:
                mat[x, y] = ids["tree"]
    world._mat_map[:] = mat
    _place_objects(world, player, mat, tunnels)


def _place_objects(world: Any, player: Any, mat: np.ndarray, tunnels: np.ndarray) -> None:
    w, h = world.area
    px, py = player.pos
    dist = np.sqrt((np.arange(w)[:, None] - px) ** 2 + (np.arange(h)[None, :] - py) ** 2)
    names = world._mat_names
    uniform = world.random.uniform
    grass, path = world._mat_ids["grass"], world._mat_ids["path"]
    for x in range(w):
        for y in range(h):
            m = mat[x, y]
            if names[m] not in _WALKABLE:
                continue
            d = dist[x, y]
            if d > 3 and m == grass and uniform() > 0.985:
                world.add(objects.Cow(world, (x, y)))
            elif d > 10 and uniform() > 0.993:
                world.add(objects.Zombie(world, (x, y), player))
            elif m == path and tunnels[x, y] and uniform() > 0.95:
                world.add(objects.Skeleton(world, (x, y), player))


class FastCrafter(crafter.Env):
    """crafter.Env with faster reset and step and identical dynamics (see module docstring).

    `info` carries everything stock crafter's does except 'semantic'; call `semantic()`.
    """

    def __init__(self, render_image: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._render_image = render_image
        self._blank = np.zeros((*self._size, 3), np.uint8)
        self._reach = int(2 * max(self._view))
        unit = self._size // self._view
        self._noise_shape = tuple(int(v) for v in self._local_view._grid * unit)

    def semantic(self) -> np.ndarray:
        return np.asarray(self._sem_view())

    def _obs(self) -> np.ndarray:
        if self._render_image:
            return np.asarray(super()._obs())
        if self._world.daylight < 0.5:  # the night render draws noise from the world's stream
            self._world.random.uniform(32, 127, self._noise_shape)
        return self._blank

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
        for obj in self._world.objects:
            p, o = player.pos, obj.pos
            if abs(int(o[0]) - int(p[0])) + abs(int(o[1]) - int(p[1])) < self._reach:
                obj.update()
        if self._step % 10 == 0:
            for chunk, objs in self._world.chunks.items():
                self._balance_chunk(chunk, objs)
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

    def _balance_object(
        self, chunk: Any, objs: Any, cls: Any, material: str, span_dist: float,
        despan_dist: float, spawn_prob: float, despawn_prob: float, ctor: Any, target_fn: Any,
    ) -> None:  # fmt: skip
        """crafter's spawn/despawn rule; creatures in a stable order (see module docstring)."""
        balance_object(self, chunk, objs, cls, material, span_dist, despan_dist, spawn_prob,
                       despawn_prob, ctor, target_fn)  # fmt: skip


def balance_object(
    env: Any, chunk: Any, objs: Any, cls: Any, material: str, span_dist: float,
    despan_dist: float, spawn_prob: float, despawn_prob: float, ctor: Any, target_fn: Any,
) -> None:  # fmt: skip
    """Spawn or despawn one creature of `cls` in `chunk`, as crafter does, with the creatures
    ordered by their index in the world rather than by a set's memory-address order."""
    world = env._world
    xmin, xmax, ymin, ymax = chunk
    random = world.random
    creatures = sorted(
        (obj for obj in objs if isinstance(obj, cls)),
        key=lambda o: int(world._obj_map[o.pos[0], o.pos[1]]),
    )
    mask = world.mask(*chunk, material)
    target_min, target_max = target_fn(len(creatures), mask.sum())
    if len(creatures) < int(target_min) and random.uniform() < spawn_prob:
        xs = np.tile(np.arange(xmin, xmax)[:, None], [1, ymax - ymin])
        ys = np.tile(np.arange(ymin, ymax)[None, :], [xmax - xmin, 1])
        xs, ys = xs[mask], ys[mask]
        i = random.randint(0, len(xs))
        pos = np.array((xs[i], ys[i]))
        empty = world[pos][1] is None
        away = env._player.distance(pos) >= span_dist
        if empty and away:
            world.add(ctor(pos))
    elif len(creatures) > int(target_max) and random.uniform() < despawn_prob:
        obj = creatures[random.randint(0, len(creatures))]
        away = env._player.distance(obj.pos) >= despan_dist
        if away:
            world.remove(obj)
