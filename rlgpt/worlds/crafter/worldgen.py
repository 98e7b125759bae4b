"""Crafter's world generation, compiled: the world `crafter.worldgen.generate_world` builds for
the same random state, and the generator left where crafter leaves it.

- each OpenSimplex noise field is evaluated once for the whole grid, by opensimplex's own
  `_noise3` for every cell in turn, compiled into the loop (its array API runs them on OpenMP
  threads: on a shared machine their start-up and spinning cost more than the cells);
- the walk over the cells, in crafter's order, is compiled too: it takes its uniform draws from
  a batch drawn up front (one double each, as the scalar `uniform()` of a legacy RandomState;
  2 per cell, where a world uses 1.1 to 1.8, and the rest of the most it can use, 6, only
  when a walk outruns them), returns how many it used, and the generator is rewound and
  advanced by exactly that many;
- the creatures are created in Python, in crafter's order, from the cells the walk chose, with
  the fields crafter's constructors give them and added as `World.add` adds them.

Measured here (benchmarks-style loop of resets, 2 shared cores): a reset went from about
8-12 ms (the cells walked in Python, the noise on OpenMP threads) to about 2.3-2.8 ms; most of
what is left is the five noise fields every cell needs.
tests/unit/test_fast_backend.py checks the worlds against stock crafter's, seed by seed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from crafter import constants, objects
from numba import njit
from opensimplex import internals as _simplex
from opensimplex.internals import _noise3

# opensimplex's own `_noise3`, compiled again to be inlined into the loop over a whole grid:
# the same operations (bit for bit the same noise) without a call per cell, about 15% faster
_noise3_inlined = njit(inline="always")(_simplex._noise3.py_func)

# per cell, at most three draws for its material and three for a creature
_DRAWS_PER_CELL = 6
_FIRST_DRAWS_PER_CELL = 2
_COW, _ZOMBIE, _SKELETON = 1, 2, 3


@njit(cache=True)
def _noise_grid(xs: Any, ys: Any, z: float, perm: Any, grad: Any) -> Any:  # pragma: no cover
    out = np.empty((xs.size, ys.size))
    for i in range(xs.size):
        for j in range(ys.size):
            out[i, j] = _noise3_inlined(xs[i], ys[j], z, perm, grad)
    return out


def _field(perm: Any, grad: Any, xs: np.ndarray, ys: np.ndarray, z: float, sizes: Any,
           normalize: bool = True) -> np.ndarray:  # fmt: skip
    """crafter's `_simplex` for every (x, y) of the grid at once, same float operations."""
    if not isinstance(sizes, dict):
        sizes = {sizes: 1}
    value: Any = 0
    for size, weight in sizes.items():
        value = value + weight * _noise_grid(xs / size, ys / size, float(z), perm, grad)
    if normalize:
        value = value / sum(sizes.values())
    return np.asarray(value)


@njit(cache=True)
def _materials(
    grassy: Any, mount: Any, mountain: Any, water: Any, perm: Any, grad: Any, ids: Any, u: Any,
) -> Any:  # pragma: no cover  # fmt: skip
    """crafter's `_set_material` over the grid, x-major, drawing `u[k]` where crafter draws
    `uniform()`; like crafter, a cell's other noise fields are evaluated only when its branch
    reads them. `ids`: grass, path, stone, coal, iron, diamond, lava, sand, water, tree.
    Returns (material ids, tunnels, draws used), or -1 for the draws used when `u` ran out."""
    w, h = grassy.shape
    mat = np.full((w, h), ids[0], np.uint8)
    tunnels = np.zeros((w, h), np.bool_)
    k = 0
    for x in range(w):
        for y in range(h):
            if grassy[x, y]:
                continue
            if mount[x, y]:
                m = mountain[x, y]
                if _noise3(x / 7, y / 7, 6.0, perm, grad) > 0.15 and m > 0.3:  # cave
                    mat[x, y] = ids[1]
                    continue
                if (
                    _noise3(2 * x / 3, y / 5 / 3, 7.0, perm, grad) > 0.4
                    or _noise3(x / 5 / 3, 2 * y / 3, 7.0, perm, grad) > 0.4
                ):  # tunnels
                    mat[x, y] = ids[1]
                    tunnels[x, y] = True
                    continue
                if _noise3(x / 8, y / 8, 1.0, perm, grad) > 0:
                    if k == u.size:
                        return mat, tunnels, -1
                    k += 1
                    if u[k - 1] > 0.85:
                        mat[x, y] = ids[3]  # coal
                        continue
                if _noise3(x / 6, y / 6, 2.0, perm, grad) > 0.4:
                    if k == u.size:
                        return mat, tunnels, -1
                    k += 1
                    if u[k - 1] > 0.75:
                        mat[x, y] = ids[4]  # iron
                        continue
                if m > 0.18:
                    if k == u.size:
                        return mat, tunnels, -1
                    k += 1
                    if u[k - 1] > 0.994:
                        mat[x, y] = ids[5]  # diamond
                        continue
                lava = m > 0.3 and _noise3(x / 5, y / 5, 6.0, perm, grad) > 0.35
                mat[x, y] = ids[6] if lava else ids[2]
                continue
            wv = water[x, y]
            if 0.25 < wv <= 0.35 and _noise3(x / 9, y / 9, 4.0, perm, grad) > -0.2:
                mat[x, y] = ids[7]  # sand
            elif wv > 0.3:
                mat[x, y] = ids[8]  # water
            elif _noise3(x / 7, y / 7, 5.0, perm, grad) > 0:
                if k == u.size:
                    return mat, tunnels, -1
                k += 1
                if u[k - 1] > 0.8:
                    mat[x, y] = ids[9]  # tree
    return mat, tunnels, k


@njit(cache=True)
def _permutation(seed: int) -> Any:  # pragma: no cover
    """opensimplex's `_init(seed)` (its permutation tables), compiled: 64-bit wrapping
    arithmetic as its ctypes `c_int64`, and the modulo taken so that nothing overflows."""
    perm = np.zeros(256, np.int64)
    grad = np.zeros(256, np.int64)
    source = np.arange(256)
    mul, inc = np.uint64(6364136223846793005), np.uint64(1442695040888963407)
    s = np.uint64(seed)
    for _ in range(3):
        s = s * mul + inc
    for i in range(255, -1, -1):
        s = s * mul + inc
        n = i + 1
        r = (np.int64(s) % n + 31 % n) % n  # (seed + 31) % n, without a 64-bit overflow
        perm[i] = source[r]
        grad[i] = (perm[i] % 24) * 3  # len(GRADIENTS3) / 3 == 24
        source[r] = source[i]
    return perm, grad


@njit(cache=True)
def _creatures(
    mat: Any, tunnels: Any, far3: Any, far10: Any, walkable: Any, grass: int, path: int,
    u: Any, k: int,
) -> Any:  # pragma: no cover  # fmt: skip
    """crafter's `_set_object` over the grid, x-major, from draw `k` on: rows (kind, x, y) in
    the order crafter adds them, and the draws used in all (-1 when `u` ran out)."""
    w, h = mat.shape
    out = np.empty((w * h, 3), np.int64)
    n = 0
    for x in range(w):
        for y in range(h):
            m = mat[x, y]
            if not walkable[m]:
                continue
            kind = 0
            if far3[x, y] and m == grass:
                if k == u.size:
                    return out[:0], -1
                k += 1
                if u[k - 1] > 0.985:
                    kind = _COW
            if kind == 0 and far10[x, y]:
                if k == u.size:
                    return out[:0], -1
                k += 1
                if u[k - 1] > 0.993:
                    kind = _ZOMBIE
            if kind == 0 and m == path and tunnels[x, y]:
                if k == u.size:
                    return out[:0], -1
                k += 1
                if u[k - 1] > 0.95:
                    kind = _SKELETON
            if kind:
                out[n, 0], out[n, 1], out[n, 2] = kind, x, y
                n += 1
    return out[:n], k


def generate_world(world: Any, player: Any) -> None:
    """Same world as `crafter.worldgen.generate_world` for the same random state, and the
    world's generator left where it leaves it."""
    perm, grad = _permutation(world.random.randint(0, 2**31 - 1))
    w, h = (int(v) for v in world.area)
    xi, yi = np.arange(w), np.arange(h)
    px, py = player.pos

    def f(z: float, sizes: Any, norm: bool = True) -> Any:
        return _field(perm, grad, xi, yi, z, sizes, norm)

    dist = np.sqrt((xi[:, None] - px) ** 2 + (yi[None, :] - py) ** 2)
    start = 4 - dist
    start = start + 2 * f(8, 3)
    start = 1 / (1 + np.exp(-start))
    water = f(3, {15: 1, 5: 0.15}, False) + 0.1
    water = water - 2 * start
    mountain = f(0, {15: 1, 5: 0.3})
    mountain = mountain - (4 * start + 0.3 * water)
    ids = world._mat_ids
    names = ("grass", "path", "stone", "coal", "iron", "diamond", "lava", "sand", "water", "tree")
    walkable = np.zeros(max(ids.values()) + 1, np.bool_)
    walkable[[ids[n] for n in constants.walkable]] = True
    material_ids = np.array([ids[n] for n in names])

    def walk(u: np.ndarray) -> tuple[Any, Any, int] | None:
        """The cells' materials, the creatures' rows and the draws used; None when `u` ran
        out."""
        mat, tunnels, used = _materials(start > 0.5, mountain > 0.15, mountain, water, perm,
                                        grad, material_ids, u)  # fmt: skip
        if used < 0:
            return None
        rows, used = _creatures(mat, tunnels, dist > 3, dist > 10, walkable, ids["grass"],
                                ids["path"], u, used)  # fmt: skip
        return None if used < 0 else (mat, rows, used)

    random = world.random
    state = random.get_state()
    # a batch of draws no world's walk has been seen to outrun (it uses 1.1-1.8 per cell);
    # one that does gets the rest of the most it can use: one stream either way
    draws = random.random_sample(_FIRST_DRAWS_PER_CELL * w * h)
    done = walk(draws)
    if done is None:
        more = random.random_sample((_DRAWS_PER_CELL - _FIRST_DRAWS_PER_CELL) * w * h)
        done = walk(np.concatenate((draws, more)))
    if done is None:  # _DRAWS_PER_CELL is more than any walk can use
        raise RuntimeError("world generation ran out of random draws (a bug in worldgen.py)")
    mat, rows, used = done
    world._mat_map[:] = mat
    _add_creatures(world, player, rows.tolist())
    random.set_state(state)  # as if crafter had drawn its `used` scalars one by one
    if used:
        random.random_sample(used)


# per creature kind of `_creatures`: its class, its health, and its own counter (after `player`)
_KINDS = {
    _COW: (objects.Cow, 3, None),
    _ZOMBIE: (objects.Zombie, 5, "cooldown"),
    _SKELETON: (objects.Skeleton, 3, "reload"),
}


def _add_creatures(world: Any, player: Any, rows: list[list[int]]) -> None:
    """`world.add(objects.Cow(world, (x, y)))` (a zombie's and a skeleton's with the player)
    for each (kind, x, y) in turn: the objects crafter 1.8.3's constructors make (the same
    fields, in their order), added as its `World.add` adds them, without the per-object calls
    (a world starts with about 50 creatures)."""
    objs, obj_map, chunks, key = world._objects, world._obj_map, world._chunks, world.chunk_key
    for kind, x, y in rows:
        if obj_map[x, y]:
            raise RuntimeError(f"world generation put two objects on ({x}, {y})")
        cls, health, counter = _KINDS[kind]
        obj = cls.__new__(cls)
        fields = obj.__dict__
        fields.update(world=world, pos=np.array((x, y)), random=world.random,
                      inventory={"health": health}, removed=False)  # fmt: skip
        if counter is not None:  # a hostile: it knows the player, and counts down
            fields.update(player=player)
            fields[counter] = 0
        obj_map[x, y] = len(objs)
        objs.append(obj)
        chunks[key((x, y))].add(obj)
