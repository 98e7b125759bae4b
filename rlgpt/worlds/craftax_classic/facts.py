"""Craftax-Classic's recipe facts, in the shape of crafter's data.yaml.

Crafter's own data.yaml where the two games agree (it is loaded, never re-typed), with the few
entries where craftax's game_logic differs declared once, in `PATCH`.
tests/unit/test_craftax_classic_env.py plays every recipe of `game_data()` on the real game
(exactly the requirement: the effect; one item short or a station missing: nothing) and
checks that every patched entry still differs from crafter's, so neither side goes stale.
Rules beyond recipes (creatures, plants, sleep) are in docs/worlds-craftax-classic.md; the
plant rules the skills and planner follow are `PLANT_RULES`.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

from rlgpt.worlds.crafter.recipes import Recipes
from rlgpt.worlds.crafter.recipes import game_data as crafter_data

# Craftax places a table or a furnace on any cell that is not solid, lava included; a
# furnace costs one stone (crafter: four); iron tools also use a stone (crafter: none).
NOT_SOLID = ["grass", "sand", "path", "lava"]
IRON_TOOL = {"wood": 1, "coal": 1, "iron": 1, "stone": 1}
PATCH: dict[str, dict[str, dict[str, Any]]] = {
    "place": {
        "table": {"where": NOT_SOLID},
        "furnace": {"uses": {"stone": 1}, "where": NOT_SOLID},
    },
    "make": {
        "iron_pickaxe": {"uses": IRON_TOOL},
        "iron_sword": {"uses": IRON_TOOL},
    },
}


@functools.cache
def _data() -> dict[str, Any]:
    data = copy.deepcopy(crafter_data())
    for section, entries in PATCH.items():
        for name, fields in entries.items():
            data[section][name].update(copy.deepcopy(fields))
    return data


# craftax's update_plants: every growing plant ages each step wherever the player is and is
# ripe at 600 (crafter: 300, within 17 cells of the player), and no creature harms one (its
# game_logic has no plant damage; crafter's Plant dies beside a zombie, skeleton or cow)
PLANT_RULES = {"plant_ripens_after": 600, "plant_hurt_by": [], "plant_grows_within": 0}

# The planner, requirements, masks, scenarios and the offline author of this world read these.
RECIPES = Recipes("craftax-classic", _data, PLANT_RULES)


def game_data() -> dict[str, Any]:
    """Craftax-Classic's facts (actions, materials, items, collect, place, make, ...): a copy
    the caller may change."""
    return copy.deepcopy(_data())


def differences() -> list[str]:
    """One line per patched recipe field: what crafter says and what craftax does."""
    crafter = crafter_data()
    return [
        f"{section}.{name}.{field}: crafter {crafter[section][name].get(field)}, "
        f"craftax-classic {value}"
        for section, entries in PATCH.items()
        for name, fields in entries.items()
        for field, value in fields.items()
    ]
