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


class _Uniforms:
    """Scalar `uniform()` draws served from one batch; `sync()` leaves the generator exactly
    where as many scalar draws would have (legacy RandomState: one double per draw)."""

    def __init__(self, random: np.random.RandomState, batch: int) -> None:
        self._random = random
        self._state = random.get_state()
        self._values = random.random_sample(batch).tolist()
        self.used = 0

    def __call__(self) -> float:
        if self.used == len(self._values):
            self._values += self._random.random_sample(len(self._values)).tolist()
        value = self._values[self.used]
        self.used += 1
        return value

    def sync(self) -> None:
        self._random.set_state(self._state)
        if self.used:
            self._random.random_sample(self.used)


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
    w_, h_ = int(w), int(h)
    grassy = (start > 0.5).tolist()
    mount = (mountain > 0.15).tolist()
    m_l, wat = mountain.tolist(), water.tolist()
    cave_l, tun_l = cave.tolist(), (htunnel | vtunnel).tolist()
    coal_l, iron_l, lava_l = coal.tolist(), iron.tolist(), lava.tolist()
    sand_l, tree_l = sand.tolist(), tree.tolist()
    g, path, stone = ids["grass"], ids["path"], ids["stone"]
    mat = [[g] * h_ for _ in range(w_)]
    tunnels = [[False] * h_ for _ in range(w_)]
    uniform = _Uniforms(world.random, 3 * w_ * h_)
    for x in range(w_):
        col = mat[x]
        for y in range(h_):
            if grassy[x][y]:
                continue
            if mount[x][y]:
                m = m_l[x][y]
                if cave_l[x][y] and m > 0.3:
                    col[y] = path
                elif tun_l[x][y]:
                    col[y] = path
                    tunnels[x][y] = True
                elif coal_l[x][y] and uniform() > 0.85:
                    col[y] = ids["coal"]
                elif iron_l[x][y] and uniform() > 0.75:
                    col[y] = ids["iron"]
                elif m > 0.18 and uniform() > 0.994:
                    col[y] = ids["diamond"]
                elif m > 0.3 and lava_l[x][y]:
                    col[y] = ids["lava"]
                else:
                    col[y] = stone
                continue
            wv = wat[x][y]
            if 0.25 < wv <= 0.35 and sand_l[x][y]:
                col[y] = ids["sand"]
            elif wv > 0.3:
                col[y] = ids["water"]
            elif tree_l[x][y] and uniform() > 0.8:
                col[y] = ids["tree"]
    world._mat_map[:] = np.array(mat, np.uint8)
    _place_objects(world, player, mat, tunnels, uniform)
    uniform.sync()


def _place_objects(
    world: Any, player: Any, mat: list[list[int]], tunnels: list[list[bool]], uniform: _Uniforms
) -> None:
    w, h = world.area
    px, py = player.pos
    dist = np.sqrt((np.arange(w)[:, None] - px) ** 2 + (np.arange(h)[None, :] - py) ** 2)
    far3, far10 = (dist > 3).tolist(), (dist > 10).tolist()
    ids = world._mat_ids
    walkable = {ids[name] for name in _WALKABLE}
    grass, path = ids["grass"], ids["path"]
    for x in range(int(w)):
        for y in range(int(h)):
            m = mat[x][y]
            if m not in walkable:
                continue
            if far3[x][y] and m == grass and uniform() > 0.985:
                world.add(objects.Cow(world, (x, y)))
            elif far10[x][y] and uniform() > 0.993:
                world.add(objects.Zombie(world, (x, y), player))
            elif m == path and tunnels[x][y] and uniform() > 0.95:
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
