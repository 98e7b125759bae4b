"""Full Craftax's own game step, jitted once per process, and a small read-back per step.

Keeps craftax's dynamics untouched: a step is `craftax_step` from `craftax.craftax.game_logic`
(what `CraftaxSymbolicEnvNoAutoReset` steps, minus the observation it renders) with a key split
from the episode's key; a reset is its `generate_world`; there is no auto-reset. What this
module adds, inside the same jitted call:
- achievement *events* (rlgpt counts achievements, craftax keeps one flag each): the flags are
  cleared before the step and OR-ed back after it, so the flags the step sets are its events;
  except (a) the `enter_*` flags, which stay set (craftax's `change_floor` reads them to grant
  experience on a first visit) and whose events are arrivals on a floor, and (b) the
  achievements craftax derives from the inventory at the end of every step
  (`calculate_inventory_achievements`: collect_wood while any wood is held, make_iron_pickaxe
  while the pickaxe level is 3 or more), whose events are rises of that inventory entry. The
  state's flags after a step are exactly craftax's, and so is the reward (recomputed the same
  way: each newly set flag's weight, plus a tenth of the change of health);
- a small int32 `bundle` read back with one transfer per step: the window around the player
  (each cell packs its block, item, mob and whether it is lit), the player's vitals, inventory,
  position, facing, floor, kills on the floor, spells, enchantments, the step's events and
  reward. The whole state is fetched only on demand (`layout().host`);
- the state *packed* between calls (craftax_classic/packed.py: four buffers for the 84
  leaves), unpacked and packed again inside the jitted calls; `layout()`'s `as_state` and
  `as_packed` convert both ways for the code that reads or edits craftax's EnvState.
Coordinates: craftax indexes [row, col]; rlgpt's x is craftax's column, y its row.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from rlgpt.errors import UserError
from rlgpt.worlds.craftax import facts as F

try:
    import jax
    import jax.numpy as jnp
    from craftax.craftax import constants as C
    from craftax.craftax.craftax_state import EnvParams, StaticEnvParams
    from craftax.craftax.game_logic import craftax_step
    from craftax.craftax.world_gen.world_gen import generate_world

    from rlgpt.worlds.craftax_classic.game import (  # one cache (it sets XLA_FLAGS), one shape
        Game,
        _strong,
        enable_compilation_cache,
    )
    from rlgpt.worlds.craftax_classic.packed import Layout, Packed
except ImportError as exc:
    raise UserError("the craftax world needs JAX and craftax: pip install -e '.[craftax]'") from exc

PARAMS = EnvParams()
STATIC = StaticEnvParams()
MOB_KINDS = ("passive_mobs", "melee_mobs", "ranged_mobs")  # classes 0, 1, 2 (MOB_CLASSES)
# a cell's mob code: 0 none; 1 + 8 class + type for the mobs; then mob projectiles, the
# player's projectiles, and the player
MOB_PROJECTILE, PLAYER_PROJECTILE, PLAYER = 25, 33, 41
BLOCK_BITS, ITEM_SHIFT, MOB_SHIFT, LIT_SHIFT = 63, 6, 9, 15
# the inventory fields the bundle carries, in this order (craftax's names)
INVENTORY = ("wood", "stone", "coal", "iron", "diamond", "sapphire", "ruby", "sapling",
             "torches", "arrows", "books", "pickaxe", "sword", "bow")  # fmt: skip
PLAYER_INTS = ("food", "drink", "energy", "mana", "xp", "dexterity", "strength", "intelligence")
SCALARS = ("x", "y", "dx", "dy", "floor", "kills", "dead", "sleeping", "resting",
           "health10", *PLAYER_INTS, "boss", "fireball", "iceball", "sword_ench", "bow_ench",
           "table", "furnace", "light_bits", "reward_bits")  # fmt: skip


# -- events --------------------------------------------------------------------------------
@functools.cache
def _inventory_events() -> tuple[tuple[int, str, int], ...]:
    """(achievement index, inventory field, level) of the achievements craftax derives from
    the inventory: level 0 means 'the count rose', k > 0 'the level reached k'."""
    ach = {a: i for i, a in enumerate(F.achievements())}
    rows = [
        (ach[f"collect_{m}"], m, 0)
        for m in ("wood", "stone", "coal", "iron", "diamond", "ruby", "sapphire", "sapling")
    ]
    rows += [
        (ach["find_bow"], "bow", 0),
        (ach["make_arrow"], "arrows", 0),
        (ach["make_torch"], "torches", 0),
    ]
    rows += [(ach[f"make_{t}"], "pickaxe", k + 1) for k, t in enumerate(F.PICKAXES)]
    rows += [(ach[f"make_{t}"], "sword", k + 1) for k, t in enumerate(F.SWORDS)]
    return tuple(rows)


@functools.cache
def _enter_mask() -> np.ndarray:
    """The achievements of arriving on a floor (LEVEL_ACHIEVEMENT_MAP, floor 0 excluded)."""
    mask = np.zeros(len(F.achievements()), bool)
    mask[np.asarray(C.LEVEL_ACHIEVEMENT_MAP)[1:]] = True
    return mask


def _events(before: Any, after: Any, flags: jax.Array) -> jax.Array:
    """This step's events: the flags it set (from cleared ones), with the inventory-derived
    and floor-arrival achievements replaced by what happened."""
    events = flags & ~jnp.asarray(_enter_mask())
    for index, field, level in _inventory_events():
        old, new = getattr(before.inventory, field), getattr(after.inventory, field)
        rose = (new > old) if level == 0 else (old < level) & (new >= level)
        events = events.at[index].set(rose)
    arrived = after.player_level != before.player_level
    enter = jnp.asarray(C.LEVEL_ACHIEVEMENT_MAP)[after.player_level]
    return events.at[enter].set(events[enter] | (arrived & (after.player_level > 0)))


# -- the bundle ------------------------------------------------------------------------------
def _window(state: Any, radius: int) -> jax.Array:
    """Packed cells around the player, indexed [dx + r, dy + r] (see the module docstring)."""
    side, level = 2 * radius + 1, state.player_level
    start = (state.player_position[0], state.player_position[1])  # the pad shifts by radius
    cut = functools.partial(jax.lax.dynamic_slice, start_indices=start, slice_sizes=(side, side))
    blocks = cut(jnp.pad(state.map[level], radius, constant_values=C.BlockType.OUT_OF_BOUNDS.value))
    items = cut(jnp.pad(state.item_map[level], radius))
    lit = cut(jnp.pad(state.light_map[level], radius)) > 0.05  # render_craftax_symbolic's rule
    shut = state.monsters_killed[level] < F.KILLS_TO_OPEN
    items = jnp.where(
        shut & (items == C.ItemType.LADDER_DOWN.value), C.ItemType.LADDER_DOWN_BLOCKED.value, items
    )
    mobs = jnp.zeros((side, side), jnp.int32)
    layers = [(getattr(state, k), 1 + 8 * c) for c, k in enumerate(MOB_KINDS)]
    layers += [
        (state.mob_projectiles, MOB_PROJECTILE),
        (state.player_projectiles, PLAYER_PROJECTILE),
    ]
    for group, base in layers:
        rel = group.position[level] - state.player_position + radius
        inside = group.mask[level] & jnp.all((rel >= 0) & (rel < side), axis=1)
        rows = jnp.where(inside, rel[:, 0], side)  # out of the window: dropped
        mobs = mobs.at[rows, rel[:, 1]].set(base + group.type_id[level], mode="drop")
    mobs = mobs.at[radius, radius].set(PLAYER)
    cells = (
        blocks | (items << ITEM_SHIFT) | (mobs << MOB_SHIFT) | (lit.astype(jnp.int32) << LIT_SHIFT)
    )
    return cells.T


def _bundle(state: Any, events: jax.Array, reward: jax.Array, radius: int) -> jax.Array:
    """Everything the host reads after a step, as one int32 vector (`Frame.decode` splits it;
    light and reward travel as float32 bits)."""
    level = state.player_level
    table = jnp.asarray([[0, 0], *[[int(v) for v in d] for d in np.asarray(C.DIRECTIONS)[1:]]])
    face = table[state.player_direction]
    inv = state.inventory
    scalars = [
        state.player_position[1], state.player_position[0], face[1], face[0], level,
        state.monsters_killed[level], state.player_health <= 0, state.is_sleeping,
        state.is_resting, jnp.round(state.player_health * 10),
        *(getattr(state, f"player_{k}") for k in PLAYER_INTS),
        state.boss_progress, state.learned_spells[0], state.learned_spells[1],
        state.sword_enchantment, state.bow_enchantment,
        jnp.any(state.map[level] == C.BlockType.CRAFTING_TABLE.value),
        jnp.any(state.map[level] == C.BlockType.FURNACE.value),
        jax.lax.bitcast_convert_type(jnp.float32(state.light_level), jnp.int32),
        jax.lax.bitcast_convert_type(jnp.float32(reward), jnp.int32),
    ]  # fmt: skip
    parts = [
        _window(state, radius).ravel(), jnp.stack(scalars),
        jnp.stack([getattr(inv, k) for k in INVENTORY]), inv.potions, inv.armour,
        state.armour_enchantments, events,
    ]  # fmt: skip
    return jnp.concatenate([jnp.ravel(p).astype(jnp.int32) for p in parts])


@functools.cache
def _fields(radius: int) -> tuple[tuple[int, int], ...]:
    """(start, end) of each part of the bundle, in `_bundle`'s order."""
    side = 2 * radius + 1
    sizes = [side * side, len(SCALARS), len(INVENTORY), 6, 4, 4, len(F.achievements())]
    ends = np.cumsum(sizes).tolist()
    return tuple(zip([0, *ends[:-1]], ends, strict=True))


@dataclass(frozen=True)
class Frame:
    """One step's bundle, decoded on the host (rlgpt's coordinates)."""

    cells: np.ndarray  # int32 packed cells [dx + r, dy + r]
    scalars: dict[str, int]
    inventory: dict[str, int]  # craftax's fields (INVENTORY)
    potions: tuple[int, ...]
    armour: tuple[int, ...]
    armour_enchantments: tuple[int, ...]
    events: np.ndarray  # bool per achievement
    light: float
    reward: float

    @classmethod
    def decode(cls, bundle: np.ndarray, radius: int) -> Frame:
        side = 2 * radius + 1
        cells, sc, inv, pots, arm, ench, ev = (bundle[a:b] for a, b in _fields(radius))
        scalars = dict(zip(SCALARS, sc.tolist(), strict=True))
        return cls(
            cells=cells.reshape(side, side), scalars=scalars,
            inventory=dict(zip(INVENTORY, inv.tolist(), strict=True)), potions=tuple(pots.tolist()),
            armour=tuple(arm.tolist()), armour_enchantments=tuple(ench.tolist()),
            events=ev.astype(bool), light=float(sc[SCALARS.index("light_bits")].view(np.float32)),
            reward=float(sc[SCALARS.index("reward_bits")].view(np.float32)),
        )  # fmt: skip

    @property
    def pos(self) -> tuple[int, int]:
        return self.scalars["x"], self.scalars["y"]

    @property
    def facing(self) -> tuple[int, int]:
        return self.scalars["dx"], self.scalars["dy"]

    @property
    def floor(self) -> int:
        return self.scalars["floor"]

    @property
    def dead(self) -> bool:
        return bool(self.scalars["dead"])

    @property
    def health(self) -> float:
        return self.scalars["health10"] / 10

    def blocks(self) -> np.ndarray:
        return self.cells & BLOCK_BITS

    def items(self) -> np.ndarray:
        return (self.cells >> ITEM_SHIFT) & 7

    def mobs(self) -> np.ndarray:
        return (self.cells >> MOB_SHIFT) & 63

    def lit(self) -> np.ndarray:
        return ((self.cells >> LIT_SHIFT) & 1).astype(bool)


@functools.cache
def game(radius: int) -> Game:
    """Compile (or load from the disk cache) the calls for windows of `radius`."""
    enable_compilation_cache()
    n_ach = len(F.achievements())
    keep = jnp.asarray(_enter_mask())
    weights = jnp.asarray(C.ACHIEVEMENT_REWARD_MAP)
    none = jnp.zeros(n_ach, bool)
    lay = layout()

    def reset(seed: jax.Array, episode: jax.Array) -> tuple[Packed, jax.Array, jax.Array]:
        key = jax.random.fold_in(jax.random.PRNGKey(seed), episode)
        world_key, run_key = jax.random.split(key)
        state = _strong(generate_world(world_key, PARAMS, STATIC))
        return lay.pack(state), run_key, _bundle(state, none, jnp.float32(0), radius)

    def step(packed: Packed, key: jax.Array, action: jax.Array) -> tuple[Packed, jax.Array, Any]:
        state = lay.unpack(packed)
        key, sub = jax.random.split(key)
        before = state.achievements
        cleared = state.replace(achievements=before & keep)
        after, _ = craftax_step(sub, cleared, action, PARAMS, STATIC)
        flags = before | after.achievements
        events = _events(state, after, after.achievements)
        gained = (flags.astype(jnp.int32) - before.astype(jnp.int32)) * weights
        reward = gained.sum() + (after.player_health - state.player_health) * 0.1
        after = _strong(after.replace(achievements=flags))
        return lay.pack(after), key, _bundle(after, events, reward, radius)

    def observe(packed: Packed) -> jax.Array:
        return _bundle(lay.unpack(packed), none, jnp.float32(0), radius)

    return Game(jax.jit(reset), jax.jit(step), jax.jit(observe))


@functools.lru_cache(maxsize=32)
def reset_once(radius: int, seed: int, episode: int) -> tuple[Any, Any, Any]:
    """The world of (seed, episode), generated once per process: a reset is deterministic, and
    validation resets to the same few seeds state after state (a world costs ~15 ms to
    generate; JAX arrays are immutable, so the same state serves every reset)."""
    return game(radius).reset(np.int32(seed), np.int32(episode))


@functools.lru_cache(maxsize=32)
def host_once(radius: int, seed: int, episode: int) -> Any:
    """The world of `reset_once` on the host, fetched once (numpy leaves: read them, never
    write them), for the staging that edits it state after state."""
    return layout().host(reset_once(radius, seed, episode)[0])


def place(state: Any, radius: int) -> tuple[Packed, jax.Array]:
    """A host-edited state (numpy leaves) on the device, packed, and its bundle: the game's
    `observe` of it (validation staging)."""
    packed = layout().put(state)
    return packed, game(radius).observe(packed)


@functools.cache
def warm(radius: int) -> None:
    """Run each jitted call once (a compile, or a load from the disk cache, takes seconds)."""
    g = game(radius)
    packed, key, _ = g.reset(np.int32(0), np.int32(0))
    jax.block_until_ready(g.step(packed, key, np.int32(0)))
    jax.block_until_ready(place(layout().host(packed), radius))
    jax.block_until_ready(layout().as_state(packed))


def fetch(tree: Any) -> Any:
    """Device arrays of any tree (an EnvState from `Layout.as_state`) on the host."""
    return jax.device_get(tree)


@functools.cache
def layout() -> Layout:
    """Where each leaf of the state `generate_world` makes lies in the packed buffers."""
    return Layout.of(lambda k: _strong(generate_world(k, PARAMS, STATIC)))
