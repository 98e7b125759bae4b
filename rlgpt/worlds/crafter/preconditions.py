"""What each sub-action needs before it can succeed, read from crafter's recipe graph.

A sub-action is named after the Crafter achievement it unlocks. Its requirement says which
items the player must hold (materials for place/make, the tool for collect), which stations must
be within one cell (make), what it walks to (a material or a creature), where it may place, and
which vitals matter (sleep). Validation builds its scenarios from this, and the offline author
its code: both read the same facts, never a hand-typed table of recipes.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from rlgpt.worlds.crafter.recipes import CRAFTER, Recipes, achievements

# Achievements whose target is a creature or object rather than a material to collect.
CREATURE_TARGETS: dict[str, str] = {
    "eat_cow": "cow",
    "defeat_zombie": "zombie",
    "defeat_skeleton": "skeleton",
    "eat_plant": "plant",
}
# Energy at which a player can no longer fall asleep (crafter's items.energy.max).
TIRED_BELOW = "energy"


@dataclass(frozen=True)
class Requirement:
    """The precondition and target of one achievement."""

    achievement: str
    items: dict[str, int] = field(default_factory=dict)
    stations: tuple[str, ...] = ()
    target: str | None = None
    creature: bool = False
    where: tuple[str, ...] = ()
    tired: bool = False
    energy_max: int = 9  # the energy at which the player can no longer fall asleep

    @property
    def kind(self) -> str:
        """collect, place, make, interact (a creature) or sleep."""
        if self.tired:
            return "sleep"
        if self.creature:
            return "interact"
        return self.achievement.partition("_")[0]

    def describe(self) -> str:
        """One line for prompts and reports."""
        parts = []
        if self.items:
            parts.append("inventory " + ", ".join(f"{k}>={v}" for k, v in self.items.items()))
        if self.stations:
            parts.append("within one cell of " + " and ".join(self.stations))
        if self.target:
            parts.append(f"a reachable '{self.target}'")
        if self.where:
            parts.append("facing a " + "/".join(self.where) + " cell")
        if self.tired:
            parts.append(f"energy below its maximum ({self.energy_max})")
        return "; ".join(parts) or "none"


def max_energy(recipes: Recipes = CRAFTER) -> int:
    return int(recipes.data["items"][TIRED_BELOW]["max"])


def collect_source(item: str, recipes: Recipes = CRAFTER) -> str | None:
    """The material whose collection yields `item` (wood <- tree, drink <- water)."""
    for material, info in recipes.data["collect"].items():
        if item in info["receive"]:
            return str(material)
    return None


def item_sources(recipes: Recipes = CRAFTER) -> dict[str, str]:
    """Every collectable item and the material it comes from, for hints to a model."""
    out: dict[str, str] = {}
    for material, info in recipes.data["collect"].items():
        for item in info["receive"]:
            out[str(item)] = str(material)
    return out


@functools.cache
def requirement(ach: str, recipes: Recipes = CRAFTER) -> Requirement | None:
    """The requirement of achievement `ach`; None when `ach` is not an achievement."""
    if ach not in achievements():
        return None
    data = recipes.data
    kind, _, name = ach.partition("_")
    if ach in CREATURE_TARGETS:
        return Requirement(ach, target=CREATURE_TARGETS[ach], creature=True)
    if ach == "wake_up":
        return Requirement(ach, tired=True, energy_max=max_energy(recipes))
    if kind == "collect" and (src := collect_source(name, recipes)):
        req = {str(k): int(v) for k, v in data["collect"][src]["require"].items()}
        return Requirement(ach, items=req, target=src)
    if kind == "place" and name in data["place"]:
        info = data["place"][name]
        return Requirement(
            ach,
            items={str(k): int(v) for k, v in info["uses"].items()},
            stations=tuple(info.get("nearby", ())),
            where=tuple(info["where"]),
        )
    if kind == "make" and name in data["make"]:
        info = data["make"][name]
        return Requirement(
            ach,
            items={str(k): int(v) for k, v in info["uses"].items()},
            stations=tuple(info["nearby"]),
        )
    return Requirement(ach)
