"""Validation scenarios on full Craftax: which states a sub-action is run in before it trains.

For a sub-action named after an achievement, states in which its precondition holds ("met"):
on the floor where its target is found, the player holds exactly what it needs (and what the
rules make certain: two books to learn a given spell), the stations it needs stand in view
but out of reach, its target (a block, a mob, a chest, the ladder down of a cleared floor) is
in view but not beside the player, so the action must walk. And states in which one
requirement is short ("unmet": an item, a station, tiredness, or the floor: the player is on
one where the target is not found): there the action must end by itself, quickly. stage.py
builds each on a real world of the seed.
"""

from __future__ import annotations

from typing import Any

from rlgpt.messages import Scenario
from rlgpt.worlds.craftax import facts as F
from rlgpt.worlds.craftax import vocab
from rlgpt.worlds.craftax.episode import episode_states
from rlgpt.worlds.craftax.planner import is_plannable, plan_steps
from rlgpt.worlds.craftax.rules import Requirement, requirement
from rlgpt.worlds.grid.layout import (
    APART_OFFSETS,
    CLOSE_OFFSETS,
    OFFSETS,
    axes,
    offset,
    withhold,
)

FACINGS = ((0, 1), (-1, 0), (0, -1), (1, 0))
BLOCKERS = (None, "tree", "stone")  # what the player faces in place-style layouts
TIRED_BY = 3


def floors_of(req: Requirement) -> tuple[str, ...]:
    """The floors where the requirement's target is found (all floors without a target)."""
    target = req.target
    if target is None or target in ("ladder_down",):
        return (req.floor,) if target else F.floors()
    names = {target, "fountain"} if target == "water" else {target}
    blocks, mobs = F.floor_blocks(), F.floor_mobs()
    return tuple(f for f in F.floors() if names & (set(blocks[f]) | set(mobs[f].values())))


def _layout(req: Requirement, i: int, radius: int) -> dict[str, Any]:
    facing = FACINGS[i % len(FACINGS)]
    out: dict[str, Any] = {"facing": facing}
    ranged = vocab.mob_kinds().get(str(req.target)) == "ranged"
    t = offset(i, radius, CLOSE_OFFSETS if ranged else OFFSETS)
    if req.stations:
        apart = len(req.stations) > 1 and i % 3 != 0 and radius >= 4
        if apart:
            t = APART_OFFSETS[i % len(APART_OFFSETS)]
        second = (
            (t[0] + 2 * axes(t)[0][0], t[1] + 2 * axes(t)[0][1])
            if apart
            else (t[0] + axes(t)[1][0], t[1] + axes(t)[1][1])
        )
        out["stations"] = dict(zip(req.stations[:2], (t, second), strict=False))
    elif req.target and req.target != "grass":
        out["target"], out["target_at"] = req.target, t
    if req.kind in ("place", "plant") or req.target == "grass":
        out["front"] = BLOCKERS[i % len(BLOCKERS)]
    return out


def _met_inventory(req: Requirement) -> dict[str, int]:
    inv = {**req.items, **req.extra}
    if req.kind == "sleep":
        inv["energy"] = 9 - TIRED_BY
    return inv


def _tier(item: str) -> int:
    """The pickaxe level a player needed to come by `item` (the recipe graph: a material's
    level in COLLECT, a made thing's its ingredients' highest; a tool's own level for a
    pickaxe; 0 for what no recipe yields: a bow, a book, a vital)."""
    if item in F.PICKAXES:
        return F.PICKAXES.index(item) + 1
    levels = [lvl for got, lvl in F.COLLECT.values() if got == item]
    if levels:
        return min(levels)
    if item in F.MAKE:
        return max((_tier(k) for k in F.MAKE[item]["uses"]), default=0)
    return 0


def as_reached(ach: str, inventory: dict[str, int]) -> dict[str, int]:
    """A deep floor's inventory as a player who reached that floor holds it: pickaxes are
    never used up, so it keeps every pickaxe the plan for `ach` makes on the way (its
    `make_*_pickaxe` steps: the gear made before the first step down, and those that mine
    what the plan collects), and the one that mined what it holds (an iron pickaxe for a
    diamond sword). An entry the state sets itself (an unmet state's withheld pickaxe) is
    kept as it is."""
    steps = plan_steps(ach) if is_plannable(ach) else []
    made = [s.removeprefix("make_") for s, _ in steps if s.endswith("_pickaxe")]
    held = [k for k, n in inventory.items() if n > 0]
    level = max((_tier(k) for k in (*held, *made)), default=0)
    tools = [t for t in F.PICKAXES[:level] if t not in inventory]  # a tier holds those below
    return {**inventory, tools[-1]: 1} if tools else inventory


def _unmet(req: Requirement) -> list[tuple[dict[str, int], str, str | None, str | None]]:
    """States that withhold one requirement each, read from craftax's recipe data: every
    ingredient in turn (one short), every station in turn (the others stay in view),
    tiredness, the floor. (inventory, what is short, floor, the station withheld or None)."""
    out: list[tuple[dict[str, int], str, str | None, str | None]] = []
    base = _met_inventory(req)
    for item, n in req.items.items():
        inv = {**base, item: n - 1 if n > 1 else 0}
        out.append((inv, f"{item} (has {inv[item]}, needs {n})", req.floor, None))
    for station in req.stations:
        others = [s for s in req.stations if s != station]
        seen = f"; {' and '.join(others)} in view" if others else ""
        out.append((base, f"a {station} (none in view{seen})", req.floor, station))
    if req.kind == "sleep":
        out.append(({"energy": 9}, "tiredness (energy is full, 9)", req.floor, None))
    if req.kind in ("collect", "hunt", "chest", "descend", "enchant", "boss"):
        elsewhere = [f for f in F.floors() if f not in floors_of(req)]
        if elsewhere:
            found = ", ".join(floors_of(req))
            out.append((base, f"the floor (on the {elsewhere[0]}; {req.target} is found on: "
                              f"{found})", elsewhere[0], None))  # fmt: skip
    return out


def plan_scenarios(
    ach: str, *, count: int, seed_base: int, budget: int, radius: int, unmet_steps: int,
    unknown_steps: int, episode: bool = True,
) -> list[Scenario]:  # fmt: skip
    """`count` met scenarios (several seeds and layouts), the unmet ones, and with `episode`
    the states from later in an episode that apply (episode.py) for `ach`; for a name that is
    no achievement, `count` fresh worlds ("unknown": nothing to check)."""
    req = requirement(ach)
    if req is None:
        return [Scenario(name=f"fresh-{i + 1}", seed=seed_base + i, precondition="unknown",
                         max_steps=unknown_steps) for i in range(count)]  # fmt: skip
    floor = None if req.floor == "overworld" else req.floor
    out = [
        Scenario(name=f"met-{i + 1}", seed=seed_base + i, precondition="met",
                 inventory=_met_inventory(req), max_steps=budget, floor=floor,
                 **_layout(req, i, radius))
        for i in range(count)
    ]  # fmt: skip
    for j, (inv, missing, where, station) in enumerate(_unmet(req)):
        layout = withhold(_layout(req, j, radius), station)
        if where != req.floor:  # nothing of the target on a floor where it is not found
            layout.pop("target", None)
            layout.pop("target_at", None)
        out.append(Scenario(
            name=f"unmet-{j + 1}", seed=seed_base + 50 + j, precondition="unmet", inventory=inv,
            max_steps=unmet_steps, missing=missing,
            floor=None if where in (None, "overworld") else where, **layout,
        ))  # fmt: skip
    if episode:  # last: the dearest to run, and a failure before them ends validation
        layouts = [_layout(req, i, radius) for i in range(max(count, 1))]
        out += episode_states(req, _met_inventory(req), layouts, seed_base=seed_base,
                              budget=budget, floor=floor, radius=radius)  # fmt: skip
    # below the overworld the player got there by the plan: it holds the pickaxes that left
    return [
        o.model_copy(update={"inventory": as_reached(ach, o.inventory)}) if o.floor else o
        for o in out
    ]
