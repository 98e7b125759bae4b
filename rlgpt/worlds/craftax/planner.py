"""Full Craftax's tech tree as plans: which achievements, how often, in which order, across
floors.

`plan_steps(target)` returns ordered (achievement, count) pairs whose completion unlocks the
target: the recipe graph on the overworld (tools, stations, materials), then the floors down
to where the target is (a floor's ladder down opens once 8 of its monsters are killed: the
`enter_*` step clears the floor and descends), then the target. What a descent needs beyond
the ladder (weapons, arrows, torches) is `GEAR`, made on the overworld before the first step
down, where the table and furnace stand. Derived from the facts and the rules, never scripted
per task.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Mapping

from rlgpt.worlds.craftax import facts as F
from rlgpt.worlds.craftax.rules import requirement

# Made on the overworld before going below it, by the deepest floor the plan reaches: swords
# (an orc soldier has 9 health: 5 hits with a wood sword, 2 with an iron one), arrows (the
# dungeon's first chest holds a bow; orc mages keep their distance) and torches (the gnomish
# mines and deeper dark floors show nothing a torch does not light).
GEAR: dict[int, tuple[tuple[str, int], ...]] = {
    1: (("make_wood_pickaxe", 1), ("make_wood_sword", 1), ("make_stone_pickaxe", 1),
        ("make_stone_sword", 1)),
    2: (("make_iron_sword", 1), ("make_arrow", 3)),
    3: (("make_torch", 2),),
}  # fmt: skip
# special prerequisites (achievements before the achievement itself)
BEFORE: dict[str, tuple[str, ...]] = {
    "fire_bow": ("make_arrow", "find_bow"),  # arrows are made at a table: on the overworld
    "find_bow": ("enter_dungeon",),
    "open_chest": ("enter_dungeon",),
    "drink_potion": ("open_chest",),
    "learn_fireball": ("enter_sewers", "open_chest"),
    "learn_iceball": ("enter_sewers", "open_chest"),
    "cast_fireball": ("learn_fireball",),
    "cast_iceball": ("learn_iceball",),
    "eat_plant": ("place_plant",),
    "place_plant": ("collect_sapling",),
    "place_torch": ("make_torch",),
    "enter_gnomish_mines": ("find_bow",),  # the dungeon's first chest: a bow for its mages
}
# items no recipe makes: the achievement that brings them
GIVES = {
    "bow": "find_bow",
    "book": "open_chest",
    "fireball": "learn_fireball",
    "iceball": "learn_iceball",
    **{f"potion_{c}": "open_chest" for c in F.POTIONS},
}
SURVIVAL = ("collect_drink", "eat_cow", "wake_up")
LONG_PLAN = 12


class _Planner:
    """Walks the tech tree from a state (inventory, stations standing, floor reached)."""

    def __init__(
        self,
        inventory: Mapping[str, int] | None = None,
        stations: frozenset[str] = frozenset(),
        floor: int = 0,
        deepest: int = 0,
    ) -> None:
        self.deepest = deepest  # the gear is for the deepest floor the plan reaches
        self.inv: Counter[str] = Counter({k: int(v) for k, v in (inventory or {}).items()})
        self.stations = set(stations)
        self.floor = floor
        self.steps: list[str] = []

    def ensure(self, item: str, qty: int) -> None:
        missing = qty - self.inv[item]
        if missing <= 0:
            return
        tools = {t: f"make_{t}" for t in (*F.PICKAXES, *F.SWORDS)}
        if item in tools:
            self.achieve(tools[item])
            return
        if item in F.MAKE:
            gives = int(F.MAKE[item].get("gives", 1))
            for _ in range(-(-missing // gives)):
                self.achieve(f"make_{item}")
            return
        req = requirement(f"collect_{item}")
        if req is None or req.kind != "collect":
            raise ValueError(f"no recipe yields '{item}'")
        for tool, n in req.items.items():
            self.ensure(tool, n)
        depth = F.floors().index(req.floor)
        if depth > self.floor:
            self.achieve(f"enter_{req.floor}")
        self.steps.extend([f"collect_{item}"] * missing)
        self.inv[item] += missing

    def achieve(self, ach: str) -> None:
        req = requirement(ach)
        if req is None:
            raise ValueError(f"unknown achievement '{ach}'")
        for pre in BEFORE.get(ach, ()):
            if pre not in self.steps or pre.startswith("collect_"):
                self.achieve(pre)
        kind, _, name = ach.partition("_")
        if req.kind in ("place", "plant", "make"):
            for station in req.stations:
                if station not in self.stations:
                    self.achieve(f"place_{station}")
            for item, n in req.items.items():
                self.ensure(item, n)
                self.inv[item] -= n
            if req.kind != "make":
                self.stations.add(name)
            else:
                gives = int(F.MAKE[name].get("gives", 1))
                self.inv[name] += gives
            self.steps.append(ach)
        elif req.kind == "collect":
            self.ensure(name, self.inv[name] + 1)
        elif req.kind == "descend":
            self._descend(F.floors().index(req.floor) + 1)
        else:
            for item, n in req.items.items():
                if item in GIVES:
                    if GIVES[item] not in self.steps:
                        self.achieve(GIVES[item])
                    self.inv[item] = max(self.inv[item], n)
                elif item not in F.VITALS:
                    self.ensure(item, n)
            depth = F.floors().index(req.floor)
            if depth > self.floor:
                self._descend(depth)
            self.steps.append(ach)

    def _descend(self, depth: int) -> None:
        """Down to floor `depth`: the gear for it first (while on the overworld), then each
        floor's `enter_*` in turn."""
        if depth <= self.floor:
            return
        if self.floor == 0:
            for d in sorted(GEAR):
                if d <= max(depth, self.deepest):
                    for ach, times in GEAR[d]:
                        for _ in range(times - self.steps.count(ach)):
                            self.achieve(ach)
        for d in range(self.floor + 1, depth + 1):
            enter = f"enter_{F.floors()[d]}"
            for pre in BEFORE.get(enter, ()):
                if pre not in self.steps:
                    self.achieve(pre)
            self.floor = d
            self.stations = set()  # the stations stay on the floor above
            self.steps.append(enter)


def _deepest(steps: list[str]) -> int:
    return max((F.floor_of(s) or 0 for s in steps), default=0)


@functools.cache
def _plan(target: str) -> tuple[tuple[str, int], ...]:
    first = _Planner()
    first.achieve(target)
    planner = _Planner(deepest=_deepest(first.steps))
    planner.achieve(target)
    counts = Counter(planner.steps)
    order: list[str] = []
    for step in planner.steps:  # the first occurrence keeps its place; repeats merge into it
        if step not in order:
            order.append(step)
    return tuple((s, counts[s]) for s in order)


def plan_steps(target: str) -> list[tuple[str, int]]:
    """Ordered (achievement, times) whose completion unlocks `target`."""
    return list(_plan(target))


def is_plannable(target: str) -> bool:
    try:
        _plan(target)
    except ValueError:
        return False
    return True


def depth(target: str) -> int:
    """The deepest floor the plan for `target` reaches."""
    deepest = 0
    for ach, _ in plan_steps(target):
        floor = F.floor_of(ach)
        deepest = max(deepest, floor or 0)
    return deepest


def survival_steps(target: str) -> list[str]:
    """The survival sub-actions a plan for `target` carries ([] for short plans): drink
    drops one point every 20 steps, food every 25, energy every 30."""
    counts = dict(plan_steps(target))
    if sum(counts.values()) < LONG_PLAN and not depth(target):
        return []
    return [s for s in SURVIVAL if s not in counts and s != target]


def still_to_collect(
    target: str, inventory: Mapping[str, int], stations: frozenset[str], floor: int
) -> dict[str, int]:
    """What the plan for `target` still collects from this state (the items held, the
    stations standing, the floor the player is on)."""
    held = {k: v for k, v in inventory.items() if k not in F.VITALS and v}
    return dict(_still(target, tuple(sorted(held.items())), stations, floor))


@functools.lru_cache(maxsize=4096)
def _still(
    target: str, held: tuple[tuple[str, int], ...], stations: frozenset[str], floor: int
) -> tuple[tuple[str, int], ...]:
    planner = _Planner(dict(held), stations, floor, deepest=depth(target))
    try:
        planner.achieve(target)
    except ValueError:
        return ()
    out: Counter[str] = Counter()
    for step in planner.steps:
        kind, _, item = step.partition("_")
        if kind == "collect":
            out[item] += 1
    return tuple(sorted(out.items()))


def precondition_of(ach: str) -> str:
    req = requirement(ach)
    return req.describe() if req is not None else "none beyond staying alive"


def effect_of(ach: str, count: int) -> str:
    return f"achievement counter '{ach}' rises by 1 per call ({count} in all)"
