"""Failure traces a model can repair from: where the action started, what it did last, the map
around the player as text, the inventory, and the line that raised."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from rlgpt.envs.recipes import semantic_names
from rlgpt.messages import Scenario

SYMBOLS = {
    "none": " ", "water": "~", "grass": ".", "stone": "#", "path": "_", "sand": ":",
    "tree": "T", "lava": "!", "coal": "c", "iron": "i", "diamond": "d", "table": "=",
    "furnace": "F", "player": "@", "cow": "C", "zombie": "Z", "skeleton": "K", "arrow": ">",
    "plant": "p",
}  # fmt: skip
DIRECTIONS = {(-1, 0): "left", (1, 0): "right", (0, -1): "up", (0, 1): "down"}
_LINE = re.compile(r"\(line (\d+) of [^)]*\)|^line (\d+):")
LAST_ACTIONS = 12


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


def source_line(source: str, message: str) -> str:
    """`line N: <code>` for the line a worker or gate message names, else ''."""
    m = _LINE.search(message)
    if not m:
        return ""
    n = int(m.group(1) or m.group(2))
    lines = source.splitlines()
    return f"line {n}: {lines[n - 1].strip()}" if 0 < n <= len(lines) else ""


def render_trace(
    *, scenario: Scenario, taken: list[str], window: np.ndarray, info: dict[str, Any],
    achievement: str | None, before: int, error: str = "", code_line: str = "",
) -> str:  # fmt: skip
    """The trace of one scenario run, as the repair prompt shows it."""
    after = int(info["achievements"].get(achievement, 0)) if achievement else 0
    lines = [f"scenario {scenario.describe()}"]
    counter = f"; '{achievement}' went {before} -> {after}" if achievement else ""
    lines.append(f"steps taken: {len(taken)} (limit {scenario.max_steps}){counter}")
    tail = taken[-LAST_ACTIONS:]
    shown = " ".join(tail) if tail else "(none)"
    lines.append(f"last actions: {shown}")
    lines.append("local map at the end:")
    lines.append(local_map(window, tuple(info["facing"])))
    inv = info["inventory"]
    lines.append("inventory: " + " ".join(f"{k}={v}" for k, v in inv.items() if v))
    if error:
        lines.append(f"error: {error}")
    if code_line:
        lines.append(f"  {code_line}")
    return "\n".join(lines)
