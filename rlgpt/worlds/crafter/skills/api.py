"""The skill API that coded actions use.

A coded action is a generator `def name(view):` that yields primitive action names
("move_left", "do", "place_table", ...). After each yield the runtime steps the game and
updates `view` in place, so the generator always sees the current state. The view is read-only:
coded actions never hold the environment.

An action may also yield a plan of several actions (`plan`), which the host takes without
waking the action's code for each step: a computed path, or a wait.

Coordinates are relative to the player: (dx, dy), x to the right, y downwards, so
"move_left" is (-1, 0) and "move_up" is (0, -1). Moving toward a blocked cell only turns the
player to face it.
"""

from __future__ import annotations

from typing import Any

from .farm import grow_plant, sow
from .navigate import (
    Action,
    act_at,
    approach,
    explore,
    face_free,
    follow_path,
    go_to,
    guard,
    path_to,
    route,
    stand_near,
)
from .plan import PLAN_CONDITIONS, PLAN_HOLDS, PlanChecks, plan
from .survival import keep_alive, shelter
from .view import MOVES, WALKABLE, ObsView, SkillAPIError

__all__ = [
    "MOVES", "PLAN_CONDITIONS", "PLAN_HOLDS", "WALKABLE", "Action", "ObsView", "PlanChecks",
    "SkillAPIError", "act_at", "approach", "explore", "face_free", "follow_path", "go_to",
    "grow_plant", "guard", "keep_alive", "path_to", "plan", "route", "shelter", "sow",
    "stand_near",
]  # fmt: skip


# Everything in scope of a coded action, in the order the prompts' reference lists it.
SKILL_API: dict[str, Any] = {
    "approach": approach,
    "go_to": go_to,
    "act_at": act_at,
    "stand_near": stand_near,
    "explore": explore,
    "face_free": face_free,
    "guard": guard,
    "keep_alive": keep_alive,
    "shelter": shelter,
    "grow_plant": grow_plant,
    "sow": sow,
    "path_to": path_to,
    "route": route,
    "follow_path": follow_path,
    "plan": plan,
    "MOVES": MOVES,
    "WALKABLE": WALKABLE,
    "PLAN_HOLDS": PLAN_HOLDS,
}
