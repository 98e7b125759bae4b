"""A faster Crafter with the same dynamics as stock `crafter.Env`.

What changes is only how things are computed, never what:
- world generation is compiled (worldgen.py): each OpenSimplex noise field is evaluated once
  for the whole 64x64 grid, then the cells are walked in crafter's order, drawing from the
  world's random stream exactly where crafter does;
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
from crafter import constants, objects

from rlgpt.worlds.crafter.worldgen import generate_world


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
