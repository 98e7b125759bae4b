"""Failure traces a model can repair from: where the action started, what it did last, the map
around the player as text (the world renders it), the inventory, and the line that raised."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from rlgpt.messages import Scenario

_LINE = re.compile(r"\(line (\d+) of [^)]*\)|^line (\d+):")
LAST_ACTIONS = 12


def source_line(source: str, message: str) -> str:
    """`line N: <code>` for the line a worker or gate message names, else ''."""
    m = _LINE.search(message)
    if not m:
        return ""
    n = int(m.group(1) or m.group(2))
    lines = source.splitlines()
    return f"line {n}: {lines[n - 1].strip()}" if 0 < n <= len(lines) else ""


def render_trace(
    *, scenario: Scenario, taken: list[str], map_text: str, info: Mapping[str, Any],
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
    lines.append(map_text)
    inv = info["inventory"]
    lines.append("inventory: " + " ".join(f"{k}={v}" for k, v in inv.items() if v))
    if error:
        lines.append(f"error: {error}")
    if code_line:
        lines.append(f"  {code_line}")
    return "\n".join(lines)
