"""Full Craftax's local map as text, for the failure traces a model repairs from."""

from __future__ import annotations

import numpy as np

from rlgpt.worlds.craftax.vocab import semantic_names

SYMBOLS = {
    "none": " ", "dark": "'", "water": "~", "grass": ".", "stone": "#", "path": "_", "sand": ":",
    "tree": "T", "lava": "!", "coal": "c", "iron": "i", "diamond": "d", "table": "=",
    "furnace": "F", "plant": "p", "ripe_plant": "P", "wall": "W", "wall_moss": "W",
    "darkness": " ", "stalagmite": "^", "sapphire": "s", "ruby": "r", "chest": "$",
    "fountain": "f", "fire_grass": ",", "ice_grass": ";", "gravel": "g", "fire_tree": "t",
    "ice_shrub": "*", "enchantment_table_fire": "E", "enchantment_table_ice": "e",
    "necromancer": "N", "grave": "+", "grave2": "+", "grave3": "+", "torch": "i",
    "ladder_down": "v", "ladder_down_blocked": "x", "ladder_up": "^", "player": "@",
}  # fmt: skip
DIRECTIONS = {(-1, 0): "left", (1, 0): "right", (0, -1): "up", (0, 1): "down"}


def _symbol(name: str) -> str:
    """A mob or projectile is its name's first letter, upper-case for a mob."""
    if name in SYMBOLS:
        return SYMBOLS[name]
    if name.startswith("own_"):
        return "*"
    if name in ("arrow", "dagger", "fireball", "iceball", "slimeball"):
        return ">"
    return name[0].upper()


def local_map(window: np.ndarray, facing: tuple[int, int]) -> str:
    """The semantic window (indexed [dx + r, dy + r]) as rows of symbols, with a legend."""
    names = semantic_names()
    r = window.shape[0] // 2
    seen: dict[str, set[str]] = {}
    rows = [f"       dx: {' '.join(f'{dx:>2}' for dx in range(-r, r + 1))}"]
    for dy in range(-r, r + 1):
        cells = []
        for dx in range(-r, r + 1):
            name = names[int(window[dx + r, dy + r])]
            sym = _symbol(name)
            seen.setdefault(sym, set()).add(name)
            cells.append(f"{sym:>2}")
        rows.append(f"  dy {dy:>2}:  {' '.join(cells)}")
    order = sorted(seen.items(), key=lambda kv: min(kv[1]))
    legend = "  ".join(f"{s} {'/'.join(sorted(n))}" for s, n in order)
    way = DIRECTIONS.get(tuple(facing), str(tuple(facing)))  # type: ignore[arg-type]
    return "\n".join([*rows, f"legend: {legend}; the player (@) faces {way}"])
