"""The policy's observation on full Craftax: compact, one-hot, all in [0, 1].

craftax's own symbolic observation one-hots 37 blocks, 5 items and 40 mob kinds on a 9x11
window (8,268 values). This one keeps what a policy that sequences skills needs, on the view
radius's square window of the current floor, 33 channels a cell:
- the block, in 23 groups (what is unlit or off the map, walkable ground, water, lava, stone,
  trees of any realm, each ore and gem, table, furnace, walls, stalagmite, chest, fountain,
  sapling, ripe plant, the two enchantment tables, the necromancer, graves);
- the item: open ladder down, closed ladder down, ladder up, torch;
- the mob class: melee, ranged, passive, a mob's projectile, the player's own;
- whether the cell is lit;
then the player: materials as thermometers (count >= 1..9), tool and sword levels, bow, armour
pieces, potions, vitals (thermometers of 9), experience and attributes, spells, enchantments,
the floor, whether its ladder down is open and its kills, facing, daylight, sleep and rest.
"""

from __future__ import annotations

import functools

import numpy as np

from rlgpt.worlds.craftax import facts as F
from rlgpt.worlds.craftax import game as G

GROUPS: tuple[tuple[str, ...], ...] = (
    ("dark", "none", "invalid", "out_of_bounds"), ("grass", "sand", "path", "fire_grass",
    "ice_grass", "gravel"), ("water",), ("lava",), ("stone",), ("tree", "fire_tree", "ice_shrub",
    "wood"), ("coal",), ("iron",), ("diamond",), ("sapphire",), ("ruby",), ("table",),
    ("furnace",), ("wall", "wall_moss", "darkness"), ("stalagmite",), ("chest",), ("fountain",),
    ("plant",), ("ripe_plant",), ("enchantment_table_fire",), ("enchantment_table_ice",),
    ("necromancer", "necromancer_vulnerable"), ("grave", "grave2", "grave3"),
)  # fmt: skip
ITEMS = (2, 4, 3, 1)  # ItemType: ladder down (open), ladder down (closed), ladder up, torch
MATERIALS = ("wood", "stone", "coal", "iron", "diamond", "sapphire", "ruby", "sapling", "torch",
             "arrow", "book")  # fmt: skip
VITALS = ("health", "food", "drink", "energy", "mana")
THERMO = 9
CHANNELS = len(GROUPS) + len(ITEMS) + 5 + 1


@functools.cache
def _block_group() -> np.ndarray:
    """Block id (craftax's BlockType) -> its group."""
    group = {n: g for g, names in enumerate(GROUPS) for n in names}
    return np.array([group[n] for n in F.blocks()], np.int64)


@functools.cache
def _mob_class() -> np.ndarray:
    """Mob code (game.py) -> 0 none, 1 melee, 2 ranged, 3 passive, 4 projectile, 5 own."""
    out = np.zeros(G.PLAYER + 1, np.int64)
    for t in range(8):
        out[1 + t], out[9 + t], out[17 + t] = 3, 1, 2  # passive, melee, ranged (MOB_CLASSES)
        out[G.MOB_PROJECTILE + t], out[G.PLAYER_PROJECTILE + t] = 4, 5
    return out


def size(radius: int) -> int:
    """Length of the observation for windows of `radius`."""
    side = 2 * radius + 1
    player = len(MATERIALS) * THERMO + 5 + 5 + 1 + 4 + 4 + 6 * 2 + len(VITALS) * THERMO
    player += 3 + 3 * 4 + 2 + 3 + 3 + 4 + len(F.floors()) + 1 + 8 + 4 + 3
    return side * side * CHANNELS + player


def _thermo(value: int, levels: int) -> list[float]:
    return [float(value > k) for k in range(levels)]


def _onehot(value: int, n: int) -> list[float]:
    return [float(value == k) for k in range(n)]


def symbolic(
    frame: G.Frame, inventory: dict[str, int], blocks: np.ndarray, items: np.ndarray,
    mobs: np.ndarray, lit: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """The observation of a frame, from the policy's window: its blocks, items and mobs as
    the player sees them, and which cells are lit."""
    side = blocks.shape[0]
    cells = np.zeros((side, side, CHANNELS), np.float32)
    rows, cols = np.indices(blocks.shape)
    cells[rows, cols, _block_group()[blocks]] = 1.0
    base = len(GROUPS)
    for k, item in enumerate(ITEMS):
        cells[..., base + k] = items == item
    kind = _mob_class()[mobs]
    base += len(ITEMS)
    for k in range(1, 6):
        cells[..., base + k - 1] = kind == k
    cells[side // 2, side // 2, base : base + 5] = 0.0  # the player is at the centre always
    cells[..., -1] = lit
    s, inv = frame.scalars, inventory
    player: list[float] = []
    for m in MATERIALS:
        player += _thermo(inv[m], THERMO)
    player += _onehot(frame.inventory["pickaxe"], 5) + _onehot(frame.inventory["sword"], 5)
    player += [float(inv["bow"] > 0)]
    player += _thermo(inv["iron_armour"], 4) + _thermo(inv["diamond_armour"], 4)
    for c in F.POTIONS:
        player += _thermo(inv[f"potion_{c}"], 2)
    for v in VITALS:
        player += _thermo(inv[v], THERMO)
    player += _thermo(inv["xp"], 3)
    for a in ("dexterity", "strength", "intelligence"):
        player += _thermo(inv[a] - 1, 4)
    player += [float(inv["fireball"]), float(inv["iceball"])]
    player += _onehot(s["sword_ench"], 3) + _onehot(s["bow_ench"], 3)
    player += _thermo(inv["enchanted_armour"], 4)
    player += _onehot(frame.floor, len(F.floors())) + [float(s["kills"] >= F.KILLS_TO_OPEN)]
    player += _thermo(s["kills"], 8)
    player += [float(frame.facing == d) for d in ((-1, 0), (1, 0), (0, -1), (0, 1))]
    player += [frame.light, float(s["sleeping"]), float(s["resting"])]
    return np.concatenate([cells.ravel(), np.asarray(player, np.float32)])
