"""The offline author's knowledge of full Craftax: its planner (the tech tree across floors) and
its reference library (library/ templates). rlgpt/llm/offline.py plays the roles; this says what
to plan and what code to write."""

from __future__ import annotations

from typing import Any

from rlgpt.messages import CodedAction, Decomposition, SubAction, TaskSpec
from rlgpt.worlds.craftax import facts as F
from rlgpt.worlds.craftax.library import library_hash, template
from rlgpt.worlds.craftax.planner import (
    depth,
    effect_of,
    plan_steps,
    precondition_of,
    survival_steps,
)
from rlgpt.worlds.craftax.rules import requirement

# the fewest primitive steps a call of each kind gets (a descent finds a ladder, clears a floor
# of 8 monsters and walks there; a search explores a 48x48 floor)
KIND_BUDGET = {
    "descend": 1500, "collect": 400, "hunt": 400, "chest": 600, "enchant": 600, "boss": 1000,
    "plant": 80, "place": 80, "make": 120, "sleep": 400, "use": 40,
}  # fmt: skip
USE_BODIES = {
    "fire_bow": [
        "foes = hostiles(view)",
        "if not (foes and (yield from shoot(view, foes[0][:2]))):",
        '    yield "shoot_arrow"',
    ],
    "drink_potion": ["if not (yield from drink_a_potion(view)):", "    return"],
}


def _floors_with(target: str) -> tuple[str, ...]:
    blocks, mobs = F.floor_blocks(), F.floor_mobs()
    return tuple(f for f in F.floors() if target in blocks[f] or target in mobs[f].values())


def _use_body(ach: str) -> list[str]:
    if ach in USE_BODIES:
        return USE_BODIES[ach]
    kind, _, spell = ach.partition("_")
    if kind == "learn":
        return ['if view.inventory["book"] < 1:', "    return", 'yield "read_book"']
    if kind == "cast":
        return [f'yield from cast(view, "{spell}")']
    return ['yield "noop"']


def write_action(ach: str, step_budget: int, revised: bool = False) -> CodedAction:
    """Fill the reference template for one achievement. `revised`: the critic faulted the
    first version; a make_* action then places its missing stations itself."""
    req = requirement(ach)
    if req is None:
        raise ValueError(f"no achievement '{ach}' in full Craftax")
    kind, _, name = ach.partition("_")
    values: dict[str, Any] = {"name": ach, "achievement": ach, "action": ach}
    prefer = ("stone", "path") if req.items or req.target in ("ladder_down",) else ()
    if req.kind == "collect":
        tpl, doc = "collect", f"Walk to the nearest {req.target} and mine it until '{ach}' rises."
        values |= {"target": req.target, "requires": req.items, "prefer": prefer,
                   "floors": _floors_with(str(req.target))}  # fmt: skip
    elif req.kind == "hunt" and ach == "eat_plant":
        tpl, doc = "tend", "Plant a sapling, keep alive while it ripens (~600 steps), eat it."
    elif req.kind == "hunt":
        hostile = ach.startswith("defeat_")
        tpl, doc = (
            "hunt",
            f"Find a {req.target} on its floor and {'kill' if hostile else 'eat'} it.",
        )
        values |= {"target": req.target, "hostile": hostile, "prefer": (), "requires": req.items,
                   "floors": _floors_with(str(req.target))}  # fmt: skip
    elif req.kind == "descend":
        below = F.floors()[F.floors().index(req.floor) + 1]
        tpl = "descend"
        doc = (
            f"On the {req.floor}: clear the floor if its ladder down is closed, find the "
            f"ladder, stand on it and descend to the {below}."
        )
        depth = F.floors().index(req.floor)
        back = f'view.floor < {depth} and view.achievements["enter_{req.floor}"] > 0'
        values |= {"floor": req.floor, "target": below, "depth": depth,
                   "back": back if depth else "False"}  # fmt: skip
    elif req.kind == "chest":
        tpl, doc = "chest", f"Find a chest on a dungeon floor and open it until '{ach}' rises."
        values["floors"] = ("dungeon", "sewers", "vault") if ach == "open_chest" else ("dungeon",)
    elif req.kind == "plant":
        tpl, doc = "sow", "Plant the sapling held on a free grass cell in front."
    elif req.kind == "place":
        info = F.PLACE[name]
        tpl, doc = "place", f"Place a {name} in front of the player."
        values |= {"uses": info["uses"], "where": tuple(info["where"]), "station": name,
                   "one": name in F.STATIONS, "beside": _companions(name)}  # fmt: skip
    elif req.kind == "make":
        info = F.MAKE[name]
        one = name in (*F.PICKAXES, *F.SWORDS)
        values |= {"uses": info["uses"], "item": name, "one": one}
        if revised:
            costs = {st: F.PLACE[st]["uses"] for st in info["nearby"]}
            tpl = "make_place"
            doc = (
                f"Make {name} next to {' and '.join(info['nearby'])}, placing any that is missing."
            )
            values |= {"stations": costs, "where": F.GROUND}
        else:
            tpl = "make"
            doc = f"Walk next to {' and '.join(info['nearby'])} and make {name}."
            values["stations"] = tuple(info["nearby"])
    elif req.kind == "sleep":
        tpl, doc = "sleep", "Wall the player in if it can, then sleep until awake."
    elif req.kind == "enchant":
        what = "sword" if ach == "enchant_sword" else "armour"
        tpl, doc = "enchant", f"Walk to the fire enchantment table and enchant the {what}."
        values |= {"what": what, "element": "fire", "requires": req.items,
                   "floors": _floors_with("enchantment_table_fire")}  # fmt: skip
    elif req.kind == "boss":
        tpl, doc = "boss", "Clear the necromancer's waves, then hit it while it is alone."
        values["requires"] = req.items
    else:
        tpl, doc = "use", f"Use what is held until '{ach}' rises."
        body = "\n        ".join(_use_body(ach))
        values |= {
            "requires": {k: v for k, v in req.items.items() if not k.startswith("potion")},
            "body": body,
        }
    source = template(tpl).substitute(values | {"doc": doc})
    budget = max(step_budget, KIND_BUDGET.get(req.kind, 0))
    return CodedAction(name=ach, docstring=doc, source=source, step_budget=min(2000, budget))


def _companions(station: str) -> tuple[str, ...]:
    """Stations that some recipe needs next to `station` (a furnace goes beside the table)."""
    out: list[str] = []
    for info in F.MAKE.values():
        if station in info["nearby"]:
            out += [s for s in info["nearby"] if s != station and s not in out]
    return tuple(out)


def decompose(task: TaskSpec, modes: dict[str, str], notes: dict[str, str]) -> Decomposition:
    """The plan from the tech tree, each step in the mode the evidence chose (`modes`: coded
    where nothing says otherwise; `notes`: why); a plan that goes below the overworld or meets
    nights gets survival sub-actions."""
    target = task.achievement
    subs = []
    for ach, count in plan_steps(target):
        subs.append(SubAction(
            name=ach, description=f"reach '{ach}' {count}x",
            mode=modes.get(ach, "code"),  # type: ignore[arg-type]
            count=count, precondition=precondition_of(ach), expected_effect=effect_of(ach, count),
        ))  # fmt: skip
    for ach in survival_steps(target):
        subs.append(SubAction(
            name=ach, description=f"keep alive: '{ach}' when needed", mode="code", count=1,
            precondition=precondition_of(ach), expected_effect=effect_of(ach, 1), survival=True,
        ))  # fmt: skip
    why = (
        "Sub-actions follow Craftax's tech tree: tools and weapons on the overworld, then "
        "each floor down (a floor's ladder opens once 8 of its monsters are killed). Each "
        "is coded (the reference library has code for it) unless the evidence says its "
        "code fails."
    )
    why += "".join(f" {name}: {note}." for name, note in notes.items())
    if survival_steps(target) or depth(target) > 0:
        why += " The plan goes below the overworld or meets nights: survival actions keep the "
        why += "player alive."
    return Decomposition(task=task.name, sub_actions=subs, reasoning=why)


class CraftaxAuthor:
    """The WorldAuthor of full Craftax."""

    def library_hash(self) -> str:
        return library_hash()

    def decompose(
        self, task: TaskSpec, modes: dict[str, str], notes: dict[str, str]
    ) -> Decomposition:
        return decompose(task, modes, notes)

    def write_action(self, name: str, step_budget: int, revised: bool = False) -> CodedAction:
        return write_action(name, step_budget, revised)
