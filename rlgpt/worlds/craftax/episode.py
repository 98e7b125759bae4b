"""States from later in an episode on full Craftax, for validation: what a call meets after
step 0 (Crafter's are in rlgpt/worlds/crafter/episode.py; the same clock, vitals and geometry,
on every floor where they apply).

On the overworld (the one floor with a day):
- dusk, night: the clock set to daylight 0.45 or 0.1 for the first 30 steps of the call; its
  effect optional.
- hostile (a walk to a target or station that is not itself a monster): a zombie three cells
  away, on the side away from the target; its effect required.

On every floor:
- low_vitals (all but sleep): food and drink at 2, but for the vital the action fills itself;
  optional. Below the overworld no cow grazes: the skills eat what the floor has, or go up.

A state whose effect is optional judges the first LATER_STEPS steps of a call at most (and
closed_ladder CLOSED_STEPS); one that requires it gets the action's whole budget.
- hazard (a walk to a target or station): lava on the straight way, water beside it, a way
  round; required (craftax's player cannot step into either: here they only block the way).
- remembered (a target that stays put, a block or a chest; stations; a ladder down): out of
  view, seen earlier this episode (the player stood by it); required (optional for a ripe
  plant, which may be left to grow).
- unseen (a target; a ladder down: the floor's own, where the world put it, open): nothing of
  it in view or in the floor's memory, so the action must search; optional, but a call that
  runs out its budget without the effect must have searched (rlgpt/validation/judge.py).
- closed_ladder (a descent from below the overworld): the floor's ladder down one kill short
  of opening (7 of 8 kills; a real arrival finds it at 0), the floor's melee monster three
  cells away on the side away from the ladder, a stone sword held, up to 200 steps; its
  effect optional, but judged by progress: a call without the effect must have fought (the
  floor's kills rose) or gone up to rest when hurt, and kept the player alive.
- monster_near (sleep): a zombie three cells from a tired player with 7 health, what one blow
  on a sleeper takes (a zombie's 2, times 3.5 asleep): sleeping where it stands kills it;
  optional, judged over the first 30 steps.

Not staged: a boss's states (the necromancer's graveyard), and a hostile near below the
overworld, where monsters spawn all the time (three times as often while the floor is not
cleared: every state there meets them).
"""

from __future__ import annotations

from typing import Any

from rlgpt.messages import Scenario
from rlgpt.worlds.craftax import facts as F
from rlgpt.worlds.craftax import vocab
from rlgpt.worlds.craftax.rules import Requirement
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

CLOSED_STEPS = 200  # a kill, a walk to the ladder and down: 10 to 44 steps for the library
# the steps judged in the other states: as many as Crafter's get (train.macro_step_budget's
# default). Craftax's budgets run to 1,500 steps for long searches; what these states show,
# an action giving up, spinning, misreading its view, walking into a hazard or starving at its
# start, shows in the first of them, while a floor's dangers over a whole search are the game's
LATER_STEPS = 80
PLANT = "ripe_plant"  # a target that may be left to grow: walking back to it is one choice


def kinds(req: Requirement) -> list[str]:
    """Which states apply to an achievement, from its requirement."""
    out = ["dusk", "night"] if req.floor == "overworld" else []
    if req.kind == "sleep":
        return [*out, "monster_near"]
    if req.kind == "boss":
        return out
    out.append("low_vitals")
    if req.kind == "descend":  # the ladder: fought for, seen earlier, never seen
        closed = ["closed_ladder"] if req.floor != "overworld" else []
        return [*out, *closed, "remembered", "unseen"]
    target = req.target if req.target != "grass" else None
    mob = vocab.mob_kinds().get(str(target))
    walks = bool(target or req.stations)
    if req.floor == "overworld" and walks and mob not in ("melee", "ranged"):
        out.append("hostile")
    if walks:
        out.append("hazard")
    if req.stations or (target and mob is None):
        out.append("remembered")
    if target:
        out.append("unseen")
    return out


def _own_vital(req: Requirement) -> str | None:
    """The vital the achievement itself fills (drink for collect_drink, food for eat_*)."""
    if req.achievement.startswith("eat_"):
        return "food"
    return "drink" if req.achievement == "collect_drink" else None


def _state(
    kind: str, req: Requirement, lay: dict[str, Any], inv: dict[str, int], budget: int,
    radius: int,
) -> tuple[dict[str, Any], dict[str, Any], dict[str, int], int]:  # fmt: skip
    """(layout, what the state adds, inventory, steps) of one state."""
    extra: dict[str, Any] = {"effect": "optional"}
    steps = min(budget, LATER_STEPS)
    if kind in ("dusk", "night"):
        extra["daylight"] = DUSK if kind == "dusk" else NIGHT
        steps = min(budget, DARK_STEPS)
    elif kind == "low_vitals":
        own = _own_vital(req)
        inv |= {v: LOW_VITAL for v in ("food", "drink") if v != own}
    elif kind == "hostile":  # a state that requires the effect gets the whole budget for it
        extra = {"effect": "required", "hostiles": {"zombie": hostile_at(lay)}}
        steps = budget
    elif kind == "hazard":
        extra, steps = {"effect": "required"}, budget
    elif kind == "remembered":
        lay = out_of_view(lay, req.stations, radius)
        required = req.target != PLANT
        extra = {"effect": "required" if required else "optional", "memory": "remembered"}
        steps = budget if required else steps
    elif kind == "unseen":
        lay = {k: v for k, v in lay.items() if k != "target_at"}
        extra["memory"] = "unseen"
    elif kind == "closed_ladder":  # one kill short of an open ladder, the floor's fighter near
        melee = F.floor_mobs()[req.floor]["melee"]
        extra["hostiles"] = {melee: hostile_at(lay)}
        if not any(k.endswith("_sword") for k in inv):  # a blade to make the kill with
            inv["stone_sword"] = 1
        steps = min(budget, CLOSED_STEPS)
    elif kind == "monster_near":
        extra["hostiles"] = {"zombie": MONSTER_AT}
        inv["health"] = SLEEPER_HEALTH
        steps = min(budget, DARK_STEPS)
    return lay, extra, inv, steps


def episode_states(
    req: Requirement, inventory: dict[str, int], layouts: list[dict[str, Any]], *,
    seed_base: int, budget: int, floor: str | None, radius: int = 4,
) -> list[Scenario]:  # fmt: skip
    """The states of `kinds(req)`, each on its own seed; `inventory` is what a met state
    gives, `layouts[k]` the k-th met layout (scenarios.py; the first has a straight way in,
    where a hazard is laid)."""
    out = []
    for k, kind in enumerate(kinds(req)):
        lay = dict(layouts[0 if kind == "hazard" else k % len(layouts)])
        lay, extra, inv, steps = _state(kind, req, lay, dict(inventory), budget, radius)
        spec = Scenario(
            name=kind, seed=seed_base + SEED_OFFSET + k, precondition="met", inventory=inv,
            max_steps=steps, state=kind, floor=floor, **lay, **extra,
        )  # fmt: skip
        if kind == "hazard":
            spec = spec.model_copy(update={"hazards": hazard_cells(spec)})
        out.append(spec)
    return out
