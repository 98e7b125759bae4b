"""The offline author's Crafter knowledge: its planner (the recipe graph) and its reference
library (library/ templates). rlgpt/llm/offline.py plays the roles; this says what to plan
and what code to write."""

from __future__ import annotations

from typing import Any

from rlgpt.messages import CodedAction, Decomposition, SubAction, TaskSpec
from rlgpt.worlds.crafter.library import library_hash, template
from rlgpt.worlds.crafter.planner import (
    ARMED_FIGHTS,
    climb_steps,
    effect_of,
    is_long,
    meets_night,
    precondition_of,
    survival_steps,
    waits_outside,
)
from rlgpt.worlds.crafter.preconditions import max_energy, requirement
from rlgpt.worlds.crafter.recipes import CRAFTER, Recipes, stations


def _diggable(recipes: Recipes) -> dict[str, dict[str, int]]:
    """Materials a path may be mined through, with the tools each needs (from the recipes)."""
    collect = recipes.data["collect"]
    keep = {m: dict(c["require"]) for m, c in collect.items() if c["require"] and m != "lava"}
    return {m: r for m, r in keep.items() if collect[m]["leaves"] == "path"}


def _companions(station: str, recipes: Recipes) -> tuple[str, ...]:
    """Stations that some recipe needs next to `station` (a furnace goes beside the table)."""
    out: list[str] = []
    for info in recipes.data["make"].values():
        if station in info["nearby"]:
            out += [s for s in info["nearby"] if s != station and s not in out]
    return tuple(out)


def write_action(
    ach: str, step_budget: int, revised: bool = False, recipes: Recipes = CRAFTER
) -> CodedAction:
    """Fill the reference template for one achievement. `revised`: the critic faulted the
    first version; a make_* action then places its missing stations itself."""
    data = recipes.data
    kind, _, name = ach.partition("_")
    values: dict[str, Any] = {"name": ach, "achievement": ach, "dig": _diggable(recipes)}
    if ach == "place_plant":  # a sapling grows ~300 steps: where its pen will stand
        tpl, doc = "sow", "Plant the sapling held where its pen will stand (sow), else in front."
        values["action"] = ach
    elif kind == "place" and name in data["place"]:
        info = data["place"][name]
        tpl, doc = "place", f"Place a {name} in front of the player."
        values |= {"where": tuple(info["where"]), "uses": info["uses"], "action": ach,
                   "beside": _companions(name, recipes), "station": name,
                   "one": name in stations()}  # fmt: skip
    elif kind == "make" and name in data["make"] and revised:
        info = data["make"][name]
        costs = {st: data["place"][st]["uses"] for st in info["nearby"]}
        where = tuple(data["place"][info["nearby"][0]]["where"])
        tpl = "make_place"
        doc = f"Make a {name} next to {' and '.join(info['nearby'])}, placing any that is missing."
        values |= {"stations": costs, "uses": info["uses"], "action": ach, "where": where,
                   "item": name}  # fmt: skip
    elif kind == "make" and name in data["make"]:
        info = data["make"][name]
        tpl, doc = "make", f"Walk next to {' and '.join(info['nearby'])} and make a {name}."
        values |= {"stations": tuple(info["nearby"]), "uses": info["uses"], "action": ach,
                   "item": name}  # fmt: skip
    elif ach == "eat_plant":
        tpl = "tend"
        doc = "Plant a sapling in a nook (grass walled on three sides), guard it, eat it ripe."
    elif ach == "wake_up":
        tpl, doc = "sleep", "Wall the player in if a stone face is near, then sleep until awake."
        values["max_energy"] = max_energy(recipes)
    else:
        req = requirement(ach, recipes)
        if req is None or req.target is None:
            raise ValueError(f"no target for {ach}")
        tpl, doc = "interact", f"Walk to the nearest {req.target} and hit it until '{ach}' rises."
        # a target that needs a tool lies in the mountains: search there (no zombies spawn)
        prefer = ("stone", "path") if req.items else ()
        values |= {"target": req.target, "requires": req.items, "prefer": prefer}
    source = template(tpl).substitute(values | {"doc": doc})
    return CodedAction(name=ach, docstring=doc, source=source, step_budget=step_budget)


def decompose(
    task: TaskSpec, modes: dict[str, str], notes: dict[str, str], recipes: Recipes = CRAFTER
) -> Decomposition:
    """The plan from the recipe graph, each step in the mode the evidence chose (`modes`:
    coded where nothing says otherwise; `notes`: why a step is learned or coded again), with
    survival sub-actions on long plans."""
    target = task.achievement
    subs = []
    for ach, count in climb_steps(target, recipes):
        subs.append(
            SubAction(
                name=ach, description=f"reach '{ach}' {count}x",
                mode=modes.get(ach, "code"), count=count,  # type: ignore[arg-type]
                precondition=precondition_of(ach, recipes),
                expected_effect=effect_of(ach, count),
            )
        )  # fmt: skip
    for ach in survival_steps(target, recipes):
        subs.append(
            SubAction(
                name=ach, description=f"keep alive: '{ach}' when needed", mode="code",
                count=1, precondition=precondition_of(ach, recipes),
                expected_effect=effect_of(ach, 1), survival=True,
            )
        )  # fmt: skip
    why = "Sub-actions follow the game's recipe graph. Each is coded (the reference library "
    why += "has code for it) unless the evidence says its code fails."
    why += "".join(f" {name}: {note}." for name, note in notes.items())
    if is_long(target, recipes):
        why += (
            " The plan is long enough to meet nights: swords come first, and coded survival"
            " actions keep the player fed and rested."
        )
    elif target in ARMED_FIGHTS:
        why += f" '{target}' is a fight with a foe that fights back: swords come first."
    elif meets_night(target, recipes):
        why += (
            f" '{target}' waits out a night (a sapling ripens in"
            f" ~{recipes.rules['plant_ripens_after']} steps)."
        )
        if waits_outside(target, recipes):
            why += " No creature harms a plant here: the wait is in the open, swords first."
    return Decomposition(task=task.name, sub_actions=subs, reasoning=why)


class CrafterAuthor:
    """The WorldAuthor of Crafter, and of a game with the same recipe graph (`recipes`)."""

    def __init__(self, recipes: Recipes = CRAFTER) -> None:
        self.recipes = recipes

    def library_hash(self) -> str:
        return library_hash()

    def decompose(
        self, task: TaskSpec, modes: dict[str, str], notes: dict[str, str]
    ) -> Decomposition:
        return decompose(task, modes, notes, self.recipes)

    def write_action(self, name: str, step_budget: int, revised: bool = False) -> CodedAction:
        return write_action(name, step_budget, revised, self.recipes)
