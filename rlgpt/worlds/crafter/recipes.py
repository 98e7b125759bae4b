"""The game's recipe facts, loaded from crafter's own data.yaml (never re-typed)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import crafter
import yaml

# Inventory entries that drift by themselves (drink drops about every 20 steps): never progress.
VITALS = frozenset({"health", "food", "drink", "energy"})
# Semantic ids of crafter's SemanticView: 0 = outside, materials 1..12, objects 13..18.
OBJECTS = ["player", "cow", "zombie", "skeleton", "arrow", "plant"]


@functools.cache
def game_data() -> dict[str, Any]:
    """crafter's data.yaml as a dict (actions, materials, items, collect, place, make, ...)."""
    path = Path(crafter.__file__).parent / "data.yaml"
    data: dict[str, Any] = yaml.safe_load(path.read_text())
    return data


def actions() -> list[str]:
    """The 17 primitive action names, in crafter's index order."""
    return list(game_data()["actions"])


@functools.cache
def semantic_names() -> tuple[str, ...]:
    """Name of each semantic id: index 0 is 'none' (outside the world)."""
    return tuple(["none", *game_data()["materials"], *OBJECTS])


def semantic_id(name: str) -> int:
    """The semantic id of a material or object name."""
    return semantic_names().index(name)


def achievements() -> list[str]:
    return list(game_data()["achievements"])


@functools.cache
def stations() -> frozenset[str]:
    """Materials that recipes need nearby (table, furnace): placed once, used by many."""
    data = game_data()
    return frozenset(
        str(s) for section in ("make", "place") for info in data[section].values()
        for s in info.get("nearby", ())
    )  # fmt: skip
