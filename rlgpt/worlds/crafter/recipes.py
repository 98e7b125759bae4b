"""The game's recipe facts, loaded from crafter's own data.yaml (never re-typed).

`Recipes` holds one game's facts (what collecting, placing and making need and give, item
limits), and the game's rules for plants that the farming skills and the planner follow
(`rules`, crafter's by default: skills/view.py CRAFTER_RULES). Crafter's are its data.yaml
(`CRAFTER`); a world on the same game whose costs or rules differ builds its own from them
(rlgpt/worlds/craftax_classic/facts.py). The planner, requirements, masks, scenarios and the
offline author take a `Recipes` and default to Crafter's.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import crafter
import yaml

from rlgpt.worlds.crafter.skills.view import CRAFTER_RULES

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


class Recipes:
    """One game's recipe facts, loaded once. One instance per game: caches key on identity."""

    def __init__(
        self,
        name: str,
        load: Callable[[], dict[str, Any]],
        rules: Mapping[str, Any] | None = None,
    ) -> None:
        self.name = name
        self._load = load
        # the game's plant rules: crafter's, with what `rules` says differs
        self.rules: dict[str, Any] = {**CRAFTER_RULES, **(rules or {})}

    @functools.cached_property
    def data(self) -> dict[str, Any]:
        """The facts as data.yaml has them: actions, items, collect, place, make, ..."""
        return self._load()

    def __repr__(self) -> str:
        return f"Recipes({self.name!r})"


CRAFTER = Recipes("crafter", game_data)


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
        str(s)
        for section in ("make", "place")
        for info in data[section].values()
        for s in info.get("nearby", ())
    )
