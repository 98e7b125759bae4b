"""Action masks on full Craftax: the coded actions the policy may call now, from the tech tree.

The rule of the Crafter world (rlgpt/worlds/crafter/masking.py), across floors: a coded action
named after an achievement is hidden while its precondition cannot hold (an item it needs is
not held and the action space can bring it, a station it needs is not standing on this floor,
the player is not on a floor where its target is found, or, for `enter_*`, not on the floor
above) or while its effect already holds (the tool is held, the station stands, the floor was
reached, the plan needs no more of the material, the achievement was reached as often as the
plan asks). With `ordered` ('plan' masks), among the plan's steps only the first one not yet
done may be called; survival actions (drink, eat, sleep) are free while their vital is low.
The floor is the deepest one entered this episode (the skills never climb back). Primitives
are never masked; a state where nothing would be allowed allows everything.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from rlgpt.worlds.craftax import facts as F
from rlgpt.worlds.craftax.planner import SURVIVAL, is_plannable, plan_steps, still_to_collect
from rlgpt.worlds.craftax.rules import requirement
from rlgpt.worlds.craftax.scenarios import floors_of

# survival sub-action -> (its vital, the highest value at which it may be called)
NEED: dict[str, tuple[str, int]] = {
    "collect_drink": ("drink", 6),
    "eat_cow": ("food", 6),
    "wake_up": ("energy", 3),
}
TOOLS = frozenset((*F.PICKAXES, *F.SWORDS))


def floor_reached(achieved: Mapping[str, int]) -> int:
    """The deepest floor entered this episode (0: the overworld)."""
    deepest = 0
    for ach, n in achieved.items():
        floor = F.floor_of(ach)
        if n and floor is not None:
            deepest = max(deepest, floor)
    return deepest


class CraftaxMask:
    """The rule for one action space: `names` (coded actions, in order) after the primitives
    `prim_names`, for a task whose achievement is `target`."""

    def __init__(self, target: str, names: list[str], prim_names: list[str], ordered: bool) -> None:
        self.task = target
        self.names = list(names)
        self.n_prim = len(prim_names)
        self.ordered = ordered
        self.plannable = is_plannable(target)
        self.counts = dict(plan_steps(target)) if self.plannable else {}
        known = set(F.achievements())
        self.chain = [n for n in names if n in known and (n == target or n not in SURVIVAL)]
        yields: set[str] = set()
        for name in [*names, *prim_names]:
            kind, _, obj = name.partition("_")
            if kind in ("collect", "make", "place") and obj:
                yields.add(obj)
        if any(p in ("do", "noop") for p in prim_names):  # the policy mines by itself
            yields.update(item for item, _ in F.COLLECT.values())
        self.yields = frozenset(yields)

    def _effect_holds(
        self, name: str, inventory: Mapping[str, int], achieved: Mapping[str, int],
        standing: Mapping[str, bool], floor: int, todo: Mapping[str, int],
    ) -> bool:  # fmt: skip
        kind, _, obj = name.partition("_")
        if floor > 0 and kind in ("make", "place"):
            return True  # made on the overworld, where the stations stand: left behind now
        if kind == "make" and obj in TOOLS:
            return inventory.get(obj, 0) >= 1
        if kind == "place" and obj in F.STATIONS:
            return bool(standing.get(obj)) and achieved.get(name, 0) >= 1
        if kind == "enter":
            return floor >= (F.floor_of(name) or 0)
        if kind == "collect" and self.plannable and obj not in F.VITALS:
            return todo.get(obj, 0) == 0
        return achieved.get(name, 0) >= self.counts.get(name, 1)

    def allowed(
        self, name: str, inventory: Mapping[str, int], achieved: Mapping[str, int],
        standing: Mapping[str, bool], floor: int, todo: Mapping[str, int],
    ) -> bool:  # fmt: skip
        """Whether calling coded action `name` can make progress now."""
        if name in NEED and name != self.task:
            vital, most = NEED[name]
            return inventory.get(vital, 0) <= most
        req = requirement(name)
        if req is None:
            return True
        for item, n in req.items.items():
            if item in self.yields and inventory.get(item, 0) < n:
                return False
        if any(s in self.yields and not standing.get(s) for s in req.stations):
            return False
        here = F.floors()[floor]
        if req.kind == "descend" and here != req.floor:
            return False
        if req.target is not None and req.kind != "descend" and here not in floors_of(req):
            return False
        return not self._effect_holds(name, inventory, achieved, standing, floor, todo)

    def __call__(self, inventory: Mapping[str, int], achieved: Mapping[str, int],
                 disabled: Callable[[str], bool],
                 standing: Mapping[str, bool] | None = None) -> np.ndarray:  # fmt: skip
        """The mask over the whole action space (primitives first)."""
        standing = standing or {}
        floor = floor_reached(achieved)
        todo: Mapping[str, int] = {}
        if self.plannable:
            built = frozenset(s for s, up in standing.items() if up)
            todo = still_to_collect(self.task, inventory, built, floor)
        ok = {
            n: self.allowed(n, inventory, achieved, standing, floor, todo) and not disabled(n)
            for n in self.names
        }
        if self.ordered:
            step = next((n for n in self.chain if not self._effect_holds(
                n, inventory, achieved, standing, floor, todo)), None)  # fmt: skip
            if step is not None and ok[step]:  # else: the recipes' mask alone
                ok.update({n: n == step for n in self.chain})
        mask = np.array([True] * self.n_prim + [ok[n] for n in self.names], dtype=bool)
        return mask if mask.any() else np.ones_like(mask)
