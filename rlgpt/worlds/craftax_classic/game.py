"""Craftax-Classic's own game step, jitted once per process, and its state in crafter's words.

Keeps craftax's dynamics untouched: a step is `craftax_step` from
`craftax.craftax_classic.game_logic` (what its symbolic env steps, minus the observation it
renders) with a key split from the episode's key, and a reset is its `generate_world`: there is
no auto-reset, the env resets explicitly. What this module adds, inside the same jitted call:
- achievement *events*: the state's achievement flags are cleared before the step and OR-ed
  back after it, so the flags the step sets are exactly this step's events. Craftax only ever
  sets those flags (its reward is the one place that reads them; the env recomputes that
  reward the same way), so the game does not change;
- a small int32 `bundle` read back with one `device_get` per step: the semantic window (crafter
  ids; mobs, then the player, drawn over materials), the material window, the inventory in
  crafter's item order, position, facing, events, which stations stand, death, sleep and
  daylight. The whole map is fetched only on demand (`fetch`).
- states that leave a jitted call have no weakly typed leaves, so a state edited on the host
  (validation staging) steps without a recompile.
Coordinates: craftax indexes [row, col]; crafter's x is craftax's column, y its row.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from rlgpt.errors import UserError
from rlgpt.worlds.crafter.recipes import (
    achievements,
    actions,
    game_data,
    semantic_id,
    semantic_names,
)
from rlgpt.worlds.crafter.recipes import stations as station_names

SINGLE_THREAD = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"

# One env steps small arrays: XLA's CPU thread pool costs more than it gains (about +20%
# steps/s without it, measured here). Only when the process has not chosen flags itself, and
# it takes effect only if no JAX computation ran before this import.
os.environ.setdefault("XLA_FLAGS", SINGLE_THREAD)
try:
    import jax
    import jax.numpy as jnp

    if "JAX_CPU_ENABLE_ASYNC_DISPATCH" not in os.environ:
        # Every step's bundle is read back at once, so async dispatch overlaps nothing, and
        # handing each call to XLA's dispatch thread costs a wake-up: after the host slept
        # waiting for a worker's reply (validation, training): a Craftax step of a
        # validation read 2.0 to 3.3 ms, 1.7 to 3.0 inline (docs/validation.md, Cost). Read
        # when JAX makes its CPU client: only if no JAX computation ran before this import.
        jax.config.update("jax_cpu_enable_async_dispatch", False)
    from craftax.craftax_classic import constants as C
    from craftax.craftax_classic.envs.craftax_state import EnvParams, EnvState, StaticEnvParams
    from craftax.craftax_classic.game_logic import craftax_step
    from craftax.craftax_classic.world_gen import generate_world

    from rlgpt.worlds.craftax_classic.packed import Layout, Packed
except ImportError as exc:
    raise UserError(
        "the craftax-classic world needs JAX and craftax: pip install -e '.[craftax]'"
    ) from exc

State = EnvState
PARAMS = EnvParams()
STATIC = StaticEnvParams()
# Craftax names that are not crafter's name lower-cased (blocks and actions).
RENAMES = {
    "CRAFTING_TABLE": "table", "RIPE_PLANT": "plant", "LEFT": "move_left",
    "RIGHT": "move_right", "UP": "move_up", "DOWN": "move_down",
}  # fmt: skip
# Mobs in the order they are drawn (a later kind covers an earlier one on the same cell).
MOBS = ("arrows", "cows", "zombies", "skeletons")
MOB_NAMES = {"arrows": "arrow", "cows": "cow", "zombies": "zombie", "skeletons": "skeleton"}
VITALS = ("health", "food", "drink", "energy")


def enable_compilation_cache() -> None:
    """Keep compiled functions on disk (a compile costs 10-30 s), unless a cache directory was
    chosen already (JAX_COMPILATION_CACHE_DIR or the caller's jax config)."""
    if getattr(jax.config, "jax_compilation_cache_dir", None):
        return
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    jax.config.update("jax_compilation_cache_dir", str(base / "rlgpt" / "jax"))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)


# -- vocabulary ---------------------------------------------------------------------------
def _crafter_name(craftax_name: str) -> str:
    return RENAMES.get(craftax_name, craftax_name.lower())


@functools.cache
def block_names() -> tuple[str, ...]:
    """Crafter's semantic name of each craftax BlockType value; 'none' for the blocks crafter
    has no name for (INVALID, OUT_OF_BOUNDS, and WOOD, which world generation never makes).
    Both plant blocks (sapling and ripe) are crafter's 'plant' object."""
    known = set(semantic_names())
    return tuple(n if (n := _crafter_name(b.name)) in known else "none" for b in C.BlockType)


@functools.cache
def semantic_lut() -> np.ndarray:
    """BlockType value -> crafter semantic id."""
    return np.array([semantic_id(n) for n in block_names()], np.uint8)


def block_of(material: str) -> int:
    """The craftax block of a crafter material name ('plant' is a sapling, not yet ripe)."""
    if material == "plant":
        return int(C.BlockType.PLANT.value)
    return block_names().index(material)


@functools.cache
def action_map() -> np.ndarray:
    """Crafter action index -> craftax Action value, matched by name."""
    by_name = {_crafter_name(a.name): a.value for a in C.Action}
    if set(by_name) != set(actions()):
        raise RuntimeError(f"craftax actions {sorted(by_name)} are not crafter's {actions()}")
    return np.array([by_name[a] for a in actions()], np.int32)


@functools.cache
def achievement_map() -> np.ndarray:
    """Crafter achievement index -> craftax Achievement value, matched by name."""
    by_name = {a.name.lower(): a.value for a in C.Achievement}
    if set(by_name) != set(achievements()):
        raise RuntimeError(f"craftax achievements differ from crafter's: {sorted(by_name)}")
    return np.array([by_name[a] for a in achievements()], np.int32)


@functools.cache
def facings() -> dict[int, tuple[int, int]]:
    """Craftax player_direction (a move Action value) -> crafter facing (dx, dy)."""
    out, table = {}, np.asarray(C.DIRECTIONS)
    for a in C.Action:
        if a.value >= len(table):  # craftax's table covers the move actions and a few more
            continue
        drow, dcol = (int(v) for v in table[a.value])
        if (drow, dcol) != (0, 0):
            out[int(a.value)] = (dcol, drow)
    return out


def direction_of(facing: tuple[int, int]) -> int:
    """The craftax player_direction for a crafter facing (dx, dy)."""
    return next(d for d, f in facings().items() if f == tuple(facing))


# -- the bundle ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Frame:
    """One step's bundle, decoded on the host (crafter's coordinates and names)."""

    window: np.ndarray  # uint8 semantic ids [dx + r, dy + r]
    materials: np.ndarray  # uint8 ids of the blocks only, same indexing
    inventory: np.ndarray  # int64, crafter's item order
    pos: tuple[int, int]
    facing: tuple[int, int]
    events: np.ndarray  # bool per crafter achievement: set by this step
    standing: tuple[bool, ...]  # per station, sorted by name
    dead: bool
    sleeping: bool
    daylight: float

    @classmethod
    def decode(cls, bundle: np.ndarray, radius: int) -> Frame:
        side = 2 * radius + 1
        win, mats, inv, pos, face, ev, stand, dead, sleep, light = (
            bundle[a:b] for a, b in _fields(radius)
        )
        return cls(
            window=win.astype(np.uint8).reshape(side, side),
            materials=mats.astype(np.uint8).reshape(side, side),
            inventory=inv.astype(np.int64),
            pos=(int(pos[0]), int(pos[1])),
            facing=(int(face[0]), int(face[1])),
            events=ev.astype(bool),
            standing=tuple(bool(s) for s in stand),
            dead=bool(dead[0]),
            sleeping=bool(sleep[0]),
            daylight=float(light.view(np.float32)[0]),
        )


@functools.cache
def _fields(radius: int) -> tuple[tuple[int, int], ...]:
    """(start, end) of each field of the bundle, in `_bundle`'s order."""
    side = 2 * radius + 1
    sizes = [side * side, side * side, len(game_data()["items"]), 2, 2, len(achievements()),
             len(station_names()), 1, 1, 1]  # fmt: skip
    ends = np.cumsum(sizes).tolist()
    return tuple(zip([0, *ends[:-1]], ends, strict=True))


def _windows(state: Any, radius: int) -> tuple[jax.Array, jax.Array]:
    """Semantic and material windows around the player, indexed [dx + r, dy + r]."""
    side = 2 * radius + 1
    start = (state.player_position[0], state.player_position[1])  # the pad shifts by radius
    outside = C.BlockType.OUT_OF_BOUNDS.value
    padded = jnp.pad(state.map, radius, constant_values=outside)
    mats = jnp.asarray(semantic_lut())[jax.lax.dynamic_slice(padded, start, (side, side))]
    win = mats
    for kind in MOBS:
        mobs = getattr(state, kind)
        rel = mobs.position - state.player_position + radius
        inside = mobs.mask & jnp.all((rel >= 0) & (rel < side), axis=1)
        rows = jnp.where(inside, rel[:, 0], side)  # out of the window: dropped
        win = win.at[rows, rel[:, 1]].set(semantic_id(MOB_NAMES[kind]), mode="drop")
    win = win.at[radius, radius].set(semantic_id("player"))
    return win.T, mats.T


def _bundle(state: Any, events: jax.Array, radius: int) -> jax.Array:
    """Everything the host reads after a step, as one int32 vector (`Frame.decode` splits it;
    daylight travels as its float32 bits)."""
    win, mats = _windows(state, radius)
    inv = [
        getattr(state, f"player_{k}") if k in VITALS else getattr(state.inventory, k)
        for k in game_data()["items"]
    ]
    table = [facings().get(d, (0, 0)) for d in range(len(C.DIRECTIONS))]
    face = jnp.asarray(table, jnp.int32)[state.player_direction]
    stand = [jnp.any(state.map == block_of(s)) for s in sorted(station_names())]
    light = jax.lax.bitcast_convert_type(jnp.float32(state.light_level), jnp.int32)
    parts = [
        win.ravel(), mats.ravel(), jnp.stack(inv), state.player_position[::-1], face,
        events[jnp.asarray(achievement_map())], jnp.stack(stand), state.player_health <= 0,
        state.is_sleeping, light,
    ]  # fmt: skip
    return jnp.concatenate([jnp.ravel(p).astype(jnp.int32) for p in parts])


def _strong(state: Any) -> Any:
    """The state with no weakly typed leaf (a leaf's type is part of the compiled signature)."""
    return jax.tree.map(lambda x: jnp.asarray(x, dtype=jnp.asarray(x).dtype), state)


class Game(NamedTuple):
    """The jitted calls of one process for one view radius."""

    reset: Callable[[Any, Any], tuple[Any, jax.Array, jax.Array]]  # seed, episode
    step: Callable[[Any, jax.Array, Any], tuple[Any, jax.Array, jax.Array]]  # state, key, a
    observe: Callable[[Any], jax.Array]  # the bundle of a state (after staging)


@functools.cache
def game(radius: int) -> Game:
    """Compile (or load from the disk cache) the calls for windows of `radius`."""
    enable_compilation_cache()
    semantic_lut(), facings(), achievement_map()  # built outside any trace
    n_ach = len(C.Achievement)

    lay = layout()

    def reset(seed: jax.Array, episode: jax.Array) -> tuple[Packed, jax.Array, jax.Array]:
        key = jax.random.fold_in(jax.random.PRNGKey(seed), episode)
        world_key, run_key = jax.random.split(key)
        state = _strong(generate_world(world_key, PARAMS, STATIC))
        return lay.pack(state), run_key, _bundle(state, jnp.zeros(n_ach, bool), radius)

    def step(packed: Packed, key: jax.Array, action: jax.Array) -> tuple[Packed, jax.Array, Any]:
        state = lay.unpack(packed)
        key, sub = jax.random.split(key)
        before = state.achievements
        state, _ = craftax_step(
            sub, state.replace(achievements=jnp.zeros_like(before)), action, PARAMS, STATIC
        )
        events = state.achievements
        state = _strong(state.replace(achievements=before | events))
        return lay.pack(state), key, _bundle(state, events, radius)

    def observe(packed: Packed) -> jax.Array:
        return _bundle(lay.unpack(packed), jnp.zeros(n_ach, bool), radius)

    return Game(jax.jit(reset), jax.jit(step), jax.jit(observe))


@functools.cache
def layout() -> Layout:
    """Where each leaf of the state `generate_world` makes lies in the packed buffers
    (packed.py: the state lives packed between calls)."""
    return Layout.of(lambda k: _strong(generate_world(k, PARAMS, STATIC)))


def fetch(tree: Any) -> Any:
    """Device arrays of any tree (an EnvState from `Layout.as_state`) on the host."""
    return jax.device_get(tree)
