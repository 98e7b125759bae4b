"""States from later in an episode, for validation: what a call meets after step 0.

The met states (scenarios.py) are the easiest an episode offers: the first step of a fresh
world, daylight 0.8, full vitals, no hostile creature, the target in view with a cleared way.
These are the others, each built on a seed's own world by the trusted process like the met
states, and chosen from the sub-action's requirement as they are:

- dusk, night (every sub-action): the clock set to daylight 0.45 (the skills shelter below 0.6)
  or 0.1, for the first 30 steps of the call; its effect optional.
- low_vitals (all but sleep): food and drink at 2, but for the vital the action fills itself;
  optional.
- hostile (a walk to a target or station that is not itself hostile): a zombie three cells
  away, on the side away from the target; its effect required.
- hazard (a walk to a target or station): lava on the straight way to it, water beside the
  lava, and a way round; required.
- remembered (a target that stays put, a material or plant; stations): it lies out of view,
  seen earlier this episode; required (optional for a plant, which may be left to grow).
- unseen (a target): none of it in view or in memory, nor within three views' radius (the
  stage clears it: `grid/episode.py`'s `cleared_radius`), so the action must search; optional,
  but a call that runs out its budget without the effect must have searched (judge.py:
  SEARCH_CELLS cells visited, or the target found), not spun in place.
- monster_near (sleep): a zombie three cells away from a tired player whose health (7) one
  blow on a sleeper takes (7 in Crafter and Craftax alike): sleeping where it stands kills
  the player; the action must meet the zombie awake (or wall itself in) first; optional,
  judged over the first 30 steps of the call (zombies come on grass by day too).

"optional": the action need not reach its effect within its budget there (it may search, or
wait out the night under a roof), but it must not return without it (gave_up).
"""

from __future__ import annotations

from typing import Any

from rlgpt.messages import Scenario
from rlgpt.worlds.crafter.layout import layout
from rlgpt.worlds.crafter.preconditions import CREATURE_TARGETS, Requirement
from rlgpt.worlds.crafter.recipes import CRAFTER, Recipes
from rlgpt.worlds.grid.episode import (
    DARK_STEPS,
    DUSK,
    LOW_VITAL,
    MONSTER_AT,
    NIGHT,
    SEED_OFFSET,
    SLEEPER_HEALTH,
    hostile_at,
)
from rlgpt.worlds.grid.layout import hazard_cells, out_of_view

HOSTILE_TARGETS = ("zombie", "skeleton")
MOVING = tuple(v for v in CREATURE_TARGETS.values() if v != "plant")  # creatures move: unseen only


def kinds(req: Requirement) -> list[str]:
    """Which states apply to a sub-action, from its requirement."""
    out = ["dusk", "night"]
    if req.tired:
        return [*out, "monster_near"]
    out.append("low_vitals")
    target = req.target if req.target != "grass" else None  # grass is everywhere
    walks = bool(target or req.stations)
    if walks and target not in HOSTILE_TARGETS:
        out.append("hostile")
    if walks:
        out.append("hazard")
    if req.stations or (target and target not in MOVING):
        out.append("remembered")
    if target:
        out.append("unseen")
    return out


def _own_vital(req: Requirement, recipes: Recipes) -> str | None:
    """The vital the achievement itself fills (drink for collect_drink, food for eat_*)."""
    if req.achievement.startswith("eat_"):
        return "food"
    if req.target in recipes.data["collect"]:
        got = [str(k) for k in recipes.data["collect"][req.target]["receive"]]
        return next((v for v in ("food", "drink") if v in got), None)
    return None


def episode_states(
    req: Requirement, inventory: dict[str, int], *, seed_base: int, budget: int, radius: int,
    recipes: Recipes = CRAFTER,
) -> list[Scenario]:  # fmt: skip
    """The states of `kinds(req)`, each on its own seed and layout; `inventory` is what a met
    state gives."""
    out = []
    for k, kind in enumerate(kinds(req)):
        lay: dict[str, Any] = layout(req, 0 if kind == "hazard" else k, radius)  # a straight way
        extra: dict[str, Any] = {"effect": "optional"}
        inv = dict(inventory)
        steps = budget
        if kind in ("dusk", "night"):
            extra["daylight"] = DUSK if kind == "dusk" else NIGHT
            steps = min(budget, DARK_STEPS)
        elif kind == "low_vitals":
            own = _own_vital(req, recipes)
            inv |= {v: LOW_VITAL for v in ("food", "drink") if v != own}
        elif kind == "hostile":
            extra = {"effect": "required", "hostiles": {"zombie": hostile_at(lay)}}
        elif kind == "remembered":  # a plant may be left to grow: walking back is one choice
            lay = out_of_view(lay, req.stations, radius)
            extra = {"effect": "optional" if req.creature else "required", "memory": "remembered"}
        elif kind == "unseen":
            lay = {k2: v for k2, v in lay.items() if k2 != "target_at"}
            extra["memory"] = "unseen"
        elif kind == "monster_near":  # judged over the first steps, as the dark states are
            extra["hostiles"] = {"zombie": MONSTER_AT}
            inv["health"] = SLEEPER_HEALTH
            steps = min(budget, DARK_STEPS)
        spec = Scenario(
            name=kind, seed=seed_base + SEED_OFFSET + k, precondition="met", inventory=inv,
            max_steps=steps, state=kind, **lay, **extra,
        )  # fmt: skip
        if kind == "hazard":
            spec = spec.model_copy(update={"effect": "required", "hazards": hazard_cells(spec)})
        out.append(spec)
    return out
