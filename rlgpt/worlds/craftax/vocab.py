"""What the view and the traces call each thing on a floor: blocks, items, mobs, by the ids the
env sends (game.py's packed cells, decoded). Pure Python over `facts`: no JAX."""

from __future__ import annotations

import functools

from rlgpt.worlds.craftax import facts as F
from rlgpt.worlds.craftax.game import MOB_PROJECTILE, PLAYER, PLAYER_PROJECTILE

DARK, OUTSIDE = 0, 1  # block ids the view reads as 'dark' (unlit) and 'none' (off the map)


@functools.cache
def block_names() -> tuple[str, ...]:
    """Block id -> name; craftax's INVALID (never on a map) stands for a cell not lit now."""
    names = list(F.blocks())
    names[DARK], names[OUTSIDE] = "dark", "none"
    return tuple(names)


@functools.cache
def mob_names() -> tuple[str, ...]:
    """Mob code (game.py) -> name: mobs by class and type, the mobs' projectiles, the player's
    own ('own_arrow', ...), the player; 'none' for an empty code."""
    names = ["none"] * (PLAYER + 1)
    for c, cls in enumerate(F.MOB_CLASSES):
        for t, name in enumerate(F.mob_names()[cls]):
            names[1 + 8 * c + t] = name
    for t, name in enumerate(F.PROJECTILES):
        names[MOB_PROJECTILE + t] = name
        names[PLAYER_PROJECTILE + t] = f"own_{name}"
    names[PLAYER] = "player"
    return tuple(names)


@functools.cache
def mob_kinds() -> dict[str, str]:
    """Mob name -> its kind: passive, melee, ranged, projectile (a mob's), own (the player's)."""
    out = {n: cls for cls in F.MOB_CLASSES for n in F.mob_names()[cls]}
    out |= {n: "projectile" for n in F.PROJECTILES}
    out |= {f"own_{n}": "own" for n in F.PROJECTILES}
    return out


@functools.cache
def semantic_names() -> tuple[str, ...]:
    """One name space for everything on a floor (the view's map names and the traces' ids):
    blocks, then items, then mobs and the player; 'none' is id 0 (outside the world)."""
    out = ["none", "dark"]
    for group in (block_names(), F.ITEM_BLOCKS, mob_names()):
        out += [n for n in group if n not in out]
    return tuple(out)


@functools.cache
def _lookup() -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    ids = {n: i for i, n in enumerate(semantic_names())}
    return (
        tuple(ids[n] for n in block_names()),
        tuple(ids[n] for n in F.ITEM_BLOCKS),
        tuple(ids[n] for n in mob_names()),
    )


def semantic_id(block: int, item: int, mob: int) -> int:
    """The id of what is seen on a cell: a mob (or the player) over an item over a block."""
    blocks, items, mobs = _lookup()
    if mob:
        return mobs[mob]
    return items[item] if item else blocks[block]
