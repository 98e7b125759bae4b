"""Recipe graph over crafter's data.yaml: which achievements, how often, in which order.

`plan_steps(target)` returns ordered (achievement, count) pairs whose completion unlocks the
target. It is derived from the recipes, never scripted per task.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Mapping

from rlgpt.worlds.crafter.preconditions import collect_source, requirement
from rlgpt.worlds.crafter.recipes import CRAFTER, Recipes, achievements

# Achievements with no recipe: what to do first (beyond the achievement itself). A plant
# ripens after ~300 steps and dies when a creature stands next to it, so it is eaten from a
# walled pen (skills/farm.py), walled with stone: a tree gives one wood and is gone, two
# make a table, while a wood pickaxe mines a stone per hit.
_SPECIAL_PREREQS: dict[str, list[str]] = {
    "eat_plant": ["make_wood_pickaxe", "place_plant"],
}


class _Planner:
    def __init__(self, recipes: Recipes) -> None:
        self.recipes = recipes
        self.data = recipes.data
        self.inv: Counter[str] = Counter()
        self.stations: set[str] = set()
        self.steps: list[str] = []

    def ensure(self, item: str, qty: int) -> None:
        missing = qty - self.inv[item]
        if missing <= 0:
            return
        if item in self.data["make"]:
            for _ in range(missing):
                self.achieve(f"make_{item}")
            return
        source = collect_source(item, self.recipes)
        if source is None:
            raise ValueError(f"no recipe yields '{item}'")
        for tool, n in self.data["collect"][source]["require"].items():
            self.ensure(tool, n)
        self.steps.extend([f"collect_{item}"] * missing)
        self.inv[item] += missing

    def achieve(self, ach: str) -> None:
        kind, _, name = ach.partition("_")
        if kind == "place" and name in self.data["place"]:
            for item, n in self.data["place"][name]["uses"].items():
                self.ensure(item, n)
                self.inv[item] -= n
            self.steps.append(ach)
            self.stations.add(name)
        elif kind == "make" and name in self.data["make"]:
            info = self.data["make"][name]
            for station in info["nearby"]:
                if station not in self.stations:
                    self.achieve(f"place_{station}")
            for item, n in info["uses"].items():
                self.ensure(item, n)
                self.inv[item] -= n
            self.steps.append(ach)
            self.inv[name] += info["gives"]
        elif kind == "collect" and collect_source(name, self.recipes) is not None:
            self.ensure(name, self.inv[name] + 1)
        else:
            for pre in _SPECIAL_PREREQS.get(ach, []):
                kind, _, obj = pre.partition("_")
                if (kind == "make" and self.inv[obj]) or (kind == "place" and obj in self.stations):
                    continue  # the tool is held, the sapling planted: not again
                self.achieve(pre)
            self.steps.append(ach)


@functools.cache
def _plan(
    target: str, first: tuple[str, ...] = (), recipes: Recipes = CRAFTER
) -> tuple[tuple[str, int], ...]:
    if target not in achievements():
        raise ValueError(f"unknown achievement '{target}'")
    planner = _Planner(recipes)
    for ach in first:  # e.g. a sword before a long climb; their stations are reused
        planner.achieve(ach)
    planner.achieve(target)
    counts: Counter[str] = Counter(planner.steps)
    order: list[str] = []
    for step in planner.steps:  # first occurrence keeps its place; repeats merge into it
        if step not in order:
            order.append(step)
    return tuple((s, counts[s]) for s in order)


def plan_steps(
    target: str, first: tuple[str, ...] = (), recipes: Recipes = CRAFTER
) -> list[tuple[str, int]]:
    """Ordered (achievement, times) whose completion unlocks `target`, after the achievements
    `first` (with what they need)."""
    return list(_plan(target, first, recipes))


@functools.lru_cache(maxsize=4096)
def _still_to_collect(
    target: str,
    first: tuple[str, ...],
    inventory: tuple[tuple[str, int], ...],
    stations: frozenset[str],
    recipes: Recipes,
) -> tuple[tuple[str, int], ...]:
    planner = _Planner(recipes)
    planner.inv.update(dict(inventory))
    planner.stations.update(stations)
    for ach in (*first, target):
        planner.achieve(ach)
    out: Counter[str] = Counter()
    for step in planner.steps:
        kind, _, item = step.partition("_")
        if kind == "collect":
            out[item] += 1
    return tuple(sorted(out.items()))


def still_to_collect(
    target: str,
    first: tuple[str, ...],
    inventory: Mapping[str, int],
    stations: frozenset[str],
    recipes: Recipes = CRAFTER,
) -> dict[str, int]:
    """What the plan still collects from this state (the items held, the stations placed): the
    achievements `first`, then `target`. A make/place step of `first` whose effect holds is
    left out by the caller."""
    inv = tuple(sorted((k, int(v)) for k, v in inventory.items() if v))
    return dict(_still_to_collect(target, first, inv, stations, recipes))


def plan_counts(target: str, recipes: Recipes = CRAFTER) -> dict[str, int]:
    return dict(_plan(target, (), recipes))


def is_plannable(target: str, recipes: Recipes = CRAFTER) -> bool:
    try:
        _plan(target, (), recipes)
    except ValueError:
        return False
    return True


def precondition_of(ach: str, recipes: Recipes = CRAFTER) -> str:
    """A one-line precondition for a sub-action, from the recipes."""
    req = requirement(ach, recipes)
    return req.describe() if req is not None else "none beyond staying alive"


def effect_of(ach: str, count: int) -> str:
    """A one-line expected effect of a sub-action (per call: the counter rises by one)."""
    return f"achievement counter '{ach}' rises by 1 per call ({count} in all)"


# Sub-actions that keep the player alive, for plans long enough to need them: drink drops one
# point every 20 steps and food one every 25 (crafter's objects.py), so an episode that takes
# more than about 300 steps dies of thirst unless it drinks. A plan of 12 or more achievement
# steps (about 25 steps each) is that long.
SURVIVAL = ("collect_drink", "eat_cow", "wake_up")
LONG_PLAN = 12


def survival_steps(target: str, recipes: Recipes = CRAFTER) -> list[str]:
    """The survival sub-actions a plan for `target` should carry ([] for short plans)."""
    counts = plan_counts(target, recipes)
    if sum(counts.values()) < LONG_PLAN:
        return []
    return [s for s in SURVIVAL if s not in counts and s != target]


# Swords before a long climb: a zombie (5 health) takes 5 hits bare-handed, 3 with a wood sword
# and 2 with a stone one, and every hit it gets in costs 2 health. Measured with the reference
# skills called in plan order (benchmarks/tech_tree.py --agents script, 50 episodes, same
# seeds): make_iron_pickaxe 0.52 without swords, 0.64 with both.
ARMS = ("make_wood_sword", "make_stone_sword")
# Fights armed first: a skeleton shoots from 4-5 cells (2 health an arrow), keeps its distance,
# and lives in tunnels that zombies reach too; armed, a skeleton falls in 1 hit and a zombie in
# 2. The skills alone (benchmarks/tech_tree.py --agents script, 30 episodes, seed 0) reach
# defeat_skeleton in 0.80 of episodes on Craftax-Classic armed, 0.47 with a wood sword, 0.40
# bare-handed; on Crafter 0.87 armed, 0.83 bare-handed. defeat_zombie, bare-handed, 1.00 on
# Craftax-Classic: not armed.
ARMED_FIGHTS = ("defeat_skeleton",)


def climb_steps(target: str, recipes: Recipes = CRAFTER) -> list[tuple[str, int]]:
    """The plan the offline author decomposes `target` into: `plan_steps(target)`, with swords
    first when the plan is long enough to meet nights (survival_steps is not empty), is a
    fight with an armed foe (ARMED_FIGHTS) or waits in the open (waits_outside)."""
    armed = target in ARMED_FIGHTS or waits_outside(target, recipes)
    if not is_long(target, recipes) and not armed:
        return plan_steps(target, (), recipes)
    return plan_steps(target, tuple(a for a in ARMS if a != target), recipes)


def is_long(target: str, recipes: Recipes = CRAFTER) -> bool:
    """A plan that meets nights and needs survival sub-actions."""
    return bool(survival_steps(target, recipes))


# Targets that wait out a night however short their plan: a sapling ripens after ~300 steps
# with the player near (a whole day), in a walled pen (rlgpt/worlds/crafter/skills/farm.py).
_WAITS_A_NIGHT = ("eat_plant",)


def waits_outside(target: str, recipes: Recipes = CRAFTER) -> bool:
    """A target that waits for a plant no creature harms (recipes.rules: Craftax-Classic's):
    it grows without a pen, so the player waits its ripening (600 steps there) in the open,
    leaving to eat, drink and shelter, and meets the zombies a night leaves behind. Armed
    first: the skills alone, called in plan order on Craftax-Classic, ate the plant in 7 of
    10 episodes armed against 2 of 10 bare-handed (an in-process replay, seeds 2000-2009)."""
    return target in _WAITS_A_NIGHT and not recipes.rules["plant_hurt_by"]


def meets_night(target: str, recipes: Recipes = CRAFTER) -> bool:
    """A plan that meets a night: a long one (is_long), or one whose target waits one out.
    RL would not explore that far from primitives: the offline author codes every step."""
    return is_long(target, recipes) or target in _WAITS_A_NIGHT
