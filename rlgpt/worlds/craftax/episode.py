"""States from later in an episode on full Craftax, for validation: what a call meets after
step 0 (Crafter's are in rlgpt/worlds/crafter/episode.py; the same clock and vitals).

For an achievement of the overworld (the one floor with a day):
- dusk, night: the clock set to daylight 0.45 or 0.1 for the first 30 steps of the call; its
  effect optional.
- hostile (a walk to a target or station that is not itself a monster): a zombie three cells
  away, on the side away from the target; its effect required.

Not staged yet: low vitals (with food and drink at 2, the skills' search for food mines
through trees and collect_wood runs past its effect; stopping keep_alive at any achievement
fixed that but cost the mines: the skills alone on enter_gnomish_mines fell from 0.40 to 0.13),
a hazard on the way, a target remembered out of view or unseen, and any state below the
overworld. There a staged monster would add little (monsters spawn all the time,
three times as often while the floor is not cleared: every met state meets them), but low
vitals would: with food and drink at 2, 17 of the reference actions below the overworld die
(measured 2026-12-02: the skills find no food there and do not go up for it), so a state the
library cannot pass yet is left out rather than excluding those actions from every run.
"""

from __future__ import annotations

from typing import Any

from rlgpt.messages import Scenario
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


def kinds(req: Requirement) -> list[str]:
    """Which states apply to an achievement, from its requirement."""
    if req.floor != "overworld":
        return []  # below it: see the module's docstring
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
        out.append(Scenario(
            name=kind, seed=seed_base + SEED_OFFSET + k, precondition="met", inventory=inv,
            max_steps=steps, state=kind, floor=floor, **lay, **extra,
        ))  # fmt: skip
    return out
