"""Crafter's layouts of validation states: where a requirement's target and stations go, and
what the player faces (the geometry is the grid worlds': rlgpt/worlds/grid/layout.py)."""

from __future__ import annotations

from typing import Any

from rlgpt.worlds.crafter.preconditions import Requirement
from rlgpt.worlds.grid.layout import (
    APART_OFFSETS,
    CLOSE_OFFSETS,
    FACINGS,
    OFFSETS,
    add,
    axes,
    offset,
)

BLOCKERS = (None, "tree", "stone")  # what the player faces in place-style layouts
WALKABLE = ("grass", "sand", "path")


def layout(req: Requirement, i: int, radius: int) -> dict[str, Any]:
    """Stations, target and facing of layout i for requirement `req`."""
    facing = FACINGS[i % len(FACINGS)]
    out: dict[str, Any] = {"facing": facing}
    t = offset(i, radius, CLOSE_OFFSETS if req.target == "skeleton" else OFFSETS)
    if req.stations:
        apart = len(req.stations) > 1 and i % 3 != 0 and radius >= 4
        if apart:
            t = APART_OFFSETS[i % len(APART_OFFSETS)]
        second = add(t, axes(t)[0], 2) if apart else add(t, axes(t)[1])
        out["stations"] = {s: xy for s, xy in zip(req.stations[:2], (t, second), strict=False)}
    elif req.target and req.target != "grass":
        out["target"], out["target_at"] = req.target, t
    if req.kind == "place" or req.target == "grass":
        out["front"] = BLOCKERS[i % len(BLOCKERS)]
    return out
