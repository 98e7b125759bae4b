"""States from later in an episode on full Craftax, for validation: what a call meets after
step 0 (Crafter's are in rlgpt/worlds/crafter/episode.py; the same clock and vitals).

For an achievement of the overworld (the one floor with a day):
- dusk, night: the clock set to daylight 0.45 or 0.1 for the first 30 steps of the call; its
  effect optional.
- hostile (a walk to a target or station that is not itself a monster): a zombie three cells
  away, on the side away from the target; its effect required.

For a descent from below the overworld (enter_gnomish_mines and deeper):
- closed_ladder: the floor's ladder down one kill short of opening (7 of 8 kills; a real
  arrival finds it at 0), the floor's melee monster three cells away on the side away from the
  ladder, a stone sword held, for 200 steps; its effect optional. An action must fight for the
  ladder, not return at a closed one (a model's mistake: walk onto it and descend at once).
  The library reaches the effect there in 10 to 44 steps, or goes up to rest when hurt.

Not staged yet: low vitals (with food and drink at 2, the skills' search for food mines
through trees and collect_wood runs past its effect; stopping keep_alive at any achievement
fixed that but cost the mines: the skills alone on enter_gnomish_mines fell from 0.40 to 0.13),
a hazard on the way, a target remembered out of view or unseen, and any other state below
the overworld. There a staged monster would add little (monsters spawn all the time,
three times as often while the floor is not cleared: every met state meets them), but low
vitals would: with food and drink at 2, 17 of the reference actions below the overworld die
(measured 2026-12-02: the skills find no food there and do not go up for it), so a state the
library cannot pass yet is left out rather than excluding those actions from every run.
"""

from __future__ import annotations

from typing import Any

from rlgpt.messages import Scenario
from rlgpt.worlds.craftax import facts as F
from rlgpt.worlds.craftax import vocab
from rlgpt.worlds.craftax.rules import Requirement
from rlgpt.worlds.crafter.episode import (
    DARK_STEPS,
    DUSK,
    LOW_VITAL,
    NIGHT,
    SEED_OFFSET,
    hostile_at,
)  # fmt: skip

CLOSED_STEPS = 200  # a kill, a walk to the ladder and down: 10 to 44 steps for the library


def kinds(req: Requirement) -> list[str]:
    """Which states apply to an achievement, from its requirement."""
    if req.floor != "overworld":  # below it: see the module's docstring
        return ["closed_ladder"] if req.kind == "descend" else []
    out = ["dusk", "night"]
    target = req.target if req.target != "grass" else None
    monster = vocab.mob_kinds().get(str(target)) in ("melee", "ranged")
    if req.floor == "overworld" and (target or req.stations) and not monster:
        out.append("hostile")
    return out


def _own_vital(req: Requirement) -> str | None:
    """The vital the achievement itself fills (drink for collect_drink, food for eat_*)."""
    if req.achievement.startswith("eat_"):
        return "food"
    return "drink" if req.achievement == "collect_drink" else None


def episode_states(
    req: Requirement, inventory: dict[str, int], layouts: list[dict[str, Any]], *,
    seed_base: int, budget: int, floor: str | None,
) -> list[Scenario]:  # fmt: skip
    """The states of `kinds(req)`, each on its own seed; `inventory` is what a met state
    gives, `layouts[k]` the k-th met layout (scenarios.py)."""
    out = []
    for k, kind in enumerate(kinds(req)):
        lay = dict(layouts[k % len(layouts)])
        extra: dict[str, Any] = {"effect": "optional"}
        inv, steps = dict(inventory), budget
        if kind in ("dusk", "night"):
            extra["daylight"] = DUSK if kind == "dusk" else NIGHT
            steps = min(budget, DARK_STEPS)
        elif kind == "low_vitals":
            own = _own_vital(req)
            inv |= {v: LOW_VITAL for v in ("food", "drink") if v != own}
        elif kind == "hostile":
            extra = {"effect": "required", "hostiles": {"zombie": hostile_at(lay)}}
        elif kind == "closed_ladder":  # one kill short of an open ladder, the floor's fighter near
            melee = F.floor_mobs()[req.floor]["melee"]
            extra["hostiles"] = {melee: hostile_at(lay)}
            if not any(k.endswith("_sword") for k in inv):  # a blade to make the kill with
                inv["stone_sword"] = 1
            steps = min(budget, CLOSED_STEPS)
        out.append(Scenario(
            name=kind, seed=seed_base + SEED_OFFSET + k, precondition="met", inventory=inv,
            max_steps=steps, state=kind, floor=floor, **lay, **extra,
        ))  # fmt: skip
    return out
