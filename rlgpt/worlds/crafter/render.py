"""Crafter's local map as text, for the failure traces a model repairs from."""

from __future__ import annotations

import numpy as np

from rlgpt.worlds.crafter.recipes import semantic_names

SYMBOLS = {
    "none": " ", "water": "~", "grass": ".", "stone": "#", "path": "_", "sand": ":",
    "tree": "T", "lava": "!", "coal": "c", "iron": "i", "diamond": "d", "table": "=",
    "furnace": "F", "player": "@", "cow": "C", "zombie": "Z", "skeleton": "K", "arrow": ">",
    "plant": "p",
}  # fmt: skip
DIRECTIONS = {(-1, 0): "left", (1, 0): "right", (0, -1): "up", (0, 1): "down"}


def local_map(window: np.ndarray, facing: tuple[int, int]) -> str:
    """The semantic window (indexed [dx + r, dy + r]) as rows of symbols, with a legend."""
    names = semantic_names()
    r = window.shape[0] // 2
    seen: dict[str, str] = {}
    rows = [f"       dx: {' '.join(f'{dx:>2}' for dx in range(-r, r + 1))}"]
    for dy in range(-r, r + 1):
        cells = []
        for dx in range(-r, r + 1):
            name = names[int(window[dx + r, dy + r])]
            sym = SYMBOLS.get(name, "?")
            seen[sym] = name
            cells.append(f"{sym:>2}")
        rows.append(f"  dy {dy:>2}:  {' '.join(cells)}")
    legend = "  ".join(f"{s} {n}" for s, n in sorted(seen.items(), key=lambda kv: kv[1]))
    way = DIRECTIONS.get(tuple(facing), str(tuple(facing)))  # type: ignore[arg-type]
    return "\n".join([*rows, f"legend: {legend}; the player (@) faces {way}"])
