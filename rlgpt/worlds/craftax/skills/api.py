"""The skill API that coded actions use on full Craftax.

A coded action is a generator `def name(view):` that yields primitive action names
("move_left", "do", "descend", "place_torch", ...). After each yield the runtime steps the game
and updates `view` in place, so the generator always sees the current state. The view is
read-only: coded actions never hold the environment.

Coordinates are relative to the player: (dx, dy), x to the right, y downwards, on the floor the
player is on (view.floor: 0 the overworld, 1 the dungeon, 2 the gnomish mines, ...). Moving
toward a blocked cell only turns the player to face it; moving toward a free one steps there.

An action may also yield a plan of several actions (`plan`), which the host takes without
waking the action's code for each step: a computed path, or a wait.
"""

from __future__ import annotations

from typing import Any

from .combat import clear_floor, dodge, fight, line_to, shoot
from .floors import ascend, dark_around, descend, explore_dark, find_ladder, light
from .magic import cast, enchant, level_up, loot_chest, read_book
from .navigate import (
    Action,
    approach,
    diggable,
    explore,
    face_free,
    follow_path,
    go_to,
    guard,
    hostiles,
    passable,
    path_to,
    route,
    stand_near,
    stand_on,
)
from .plan import PLAN_CONDITIONS, PLAN_HOLDS, PlanChecks, plan
from .survival import drink_a_potion, drink_up, eat, keep_alive, sealed, shelter, sleep
from .view import MOVES, WALKABLE, ObsView, SkillAPIError

__all__ = [
    "MOVES", "PLAN_CONDITIONS", "PLAN_HOLDS", "WALKABLE", "Action", "ObsView", "PlanChecks",
    "SKILL_API", "SkillAPIError",
]  # fmt: skip

# Everything in scope of a coded action, in the order the prompts' reference lists it.
SKILL_API: dict[str, Any] = {
    "approach": approach, "go_to": go_to, "stand_on": stand_on, "stand_near": stand_near,
    "explore": explore, "face_free": face_free, "diggable": diggable, "guard": guard,
    "fight": fight, "shoot": shoot, "dodge": dodge, "hostiles": hostiles, "line_to": line_to,
    "clear_floor": clear_floor, "descend": descend, "ascend": ascend, "find_ladder": find_ladder,
    "light": light, "explore_dark": explore_dark, "dark_around": dark_around,
    "keep_alive": keep_alive, "drink_up": drink_up, "eat": eat, "sleep": sleep,
    "shelter": shelter, "sealed": sealed, "drink_a_potion": drink_a_potion,
    "loot_chest": loot_chest, "read_book": read_book, "cast": cast, "enchant": enchant,
    "level_up": level_up, "passable": passable, "path_to": path_to, "route": route,
    "follow_path": follow_path, "plan": plan, "MOVES": MOVES, "WALKABLE": WALKABLE,
    "PLAN_HOLDS": PLAN_HOLDS,
}  # fmt: skip
