"""Action masks: the coded actions the policy may call now, from the recipe graph.

A coded action named after an achievement has a precondition and an effect in crafter's recipes
(preconditions.py). While its precondition does not hold (the materials or the tool are
not held, a station it needs was never placed this episode), or its effect already holds (the
tool is held, the station was placed, the rest of the plan needs no more of the material: the
recipe planner, run from the current inventory and stations), calling it can only waste the
episode's time; the mask hides it from the policy (sb3-contrib's MaskablePPO), so PPO learns
the order of a long chain among the calls that can make progress. The mask reads only the
trusted env's inventory, achievements and which stations still stand (a table an arrow turned
into a path is placed again while the plan still needs it), never the coded action's code. An
action whose name is not an achievement is always allowed; a disabled one (too many faults in
training) never is. A condition is enforced only when the action space can meet it (a coded
action or a primitive yields the item or places the station), so a model's action that gathers
its own materials is not locked out. A survival sub-action (collect_drink, eat_cow, wake_up,
when not the task itself) is hidden while its vital is above the need (NEED): the call would
walk to water or a cow, or sleep, for a point the player does not need, and such trips cost the
nights and deaths of long plans. Primitives are never masked, but in a learned action's own
space (`learned`): there a crafting or placing primitive other than its effect's is hidden,
but for placing a station its effect needs while the player has what it uses and keeps what
the effect needs (a learned make_stone_pickaxe that made a wood pickaxe with its one wood could
never finish; a learned collect_wood that made swords spent the task's wood), and sleep while
the player is not tired (as wake_up's NEED); a state where nothing would be allowed allows
everything. docs/design.md, action masks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from rlgpt.worlds.crafter.planner import SURVIVAL, is_plannable, still_to_collect
from rlgpt.worlds.crafter.preconditions import requirement
from rlgpt.worlds.crafter.recipes import CRAFTER, VITALS, Recipes, achievements, stations

# survival sub-action -> (its vital, the highest value at which it may be called): 2, where
# the skills' own keep_alive (inside every coded step) would act anyway. A call is a trip for
# one sip or one cow (water gives 1 drink of 9 a hit), and a sleeper takes 7 damage from a
# zombie, not 2: the skills in plan order calling every survival action the moment it opened
# at 6, 6 and 3 fell from 0.83 to 0.62 (make_iron_pickaxe) and from 0.60 to 0.38
# (collect_diamond), at 2 they held 0.84 and 0.62 (benchmarks/survival_calls.py, 6 seeds)
NEED: dict[str, tuple[str, int]] = {
    "collect_drink": ("drink", 2),
    "eat_cow": ("food", 2),
    "wake_up": ("energy", 2),
}
MEMO_SIZE = 4096  # masks kept per rule; an episode meets far fewer distinct states


class ActionMask:
    """The rule for one action space: `names` (coded actions, in order) after `n_prim`
    primitives (`prim_names`), for a task whose achievement is `target`. `ordered` ('plan'
    masks): among the chain's steps (achievements of the plan other than survival ones), only
    the first one not yet done in `names`' order (the plan's) may be called, when the recipes
    allow it; survival actions and names that are not achievements stay free."""

    def __init__(
        self, target: str, names: list[str], prim_names: list[str], ordered: bool = False,
        recipes: Recipes = CRAFTER, *, learned: bool = False,
    ) -> None:  # fmt: skip
        self.recipes = recipes
        data = recipes.data
        self.names = list(names)
        self.ordered = ordered
        self.n_prim = len(prim_names)
        # a learned action's space (`learned`): its crafting and placing primitives, other
        # than its own effect's, each with what it uses; and what that effect needs. Of those
        # only the placing of a station its effect needs may act (while it spares what the
        # effect needs); anything else it would make spends what the task's plan needs, which
        # its own reward never sees (a learned collect_wood made swords of the plan's wood)
        need = requirement(target, recipes)
        self.needs = dict(need.items) if learned and need is not None else {}
        own = {f"place_{s}" for s in (need.stations if need is not None else ())}
        uses = {i: _uses(p, recipes) for i, p in enumerate(prim_names) if learned and p != target}
        self.spending = [(i, u) for i, u in uses.items() if u is not None and prim_names[i] in own]
        self.barred = [i for i, u in uses.items() if u is not None and prim_names[i] not in own]
        # and its sleep, but when tired (NEED): a sleeper acts no more until its energy is
        # full, and a zombie's blow on one takes 7 health, not 2
        self.sleep = prim_names.index("sleep") if learned and "sleep" in prim_names else None
        if target == "wake_up":
            self.sleep = None
        known = set(achievements())
        self.task = target
        self.target = target if is_plannable(target, recipes) else None
        # make/place steps of the model's plan beyond the recipe plan (swords), done first
        self.extra = tuple(
            n
            for n in names
            if n in known and n != target and n.partition("_")[0] in ("make", "place")
        )
        self.stations = stations()
        # what was placed this episode, for the plan from here: stations, and objects a
        # recipe places (the sapling: eat_plant's plan plants one, grow_plant replants it)
        self.placeable = self.stations | {
            str(n) for n, info in data["place"].items() if info.get("type") == "object"
        }
        self.caps = {str(k): int(v["max"]) for k, v in data["items"].items()}  # the game's
        # the materials the whole plan collects: only these are ever capped
        self.plan_items = frozenset(
            still_to_collect(target, self.extra, {}, frozenset(), recipes) if self.target else ()
        )
        # what the action space can produce: items (collect_X, make_X) and stations (place_S)
        yields: set[str] = set()
        for name in [*names, *prim_names]:
            kind, _, obj = name.partition("_")
            if kind in ("collect", "make", "place") and obj:
                yields.add(obj)
        if any(p in ("do", "noop") for p in prim_names):  # the policy collects by itself
            yields.update(str(k) for info in data["collect"].values() for k in info["receive"])
        self.yields = frozenset(yields)
        # the chain: achievements of the plan that are not survival sub-actions
        self.chain = [
            n
            for n in names
            if n in known
            and (n == target or n not in SURVIVAL)
            and not (n.startswith("collect_") and n != target and n[8:] not in self.plan_items)
        ]
        # station -> the chain's steps that need it nearby (a lost one matters while they do)
        self.users = {
            s: tuple(n for n in self.chain if s in getattr(requirement(n, recipes), "stations", ()))
            for s in self.stations
        }
        # the mask is a function of its inputs alone: states met again (most decisions: the
        # inventory changes every few dozen steps) are looked up, not planned again
        self._memo: dict[tuple[object, ...], np.ndarray] = {}

    def to_collect(self, inventory: Mapping[str, int], placed: Mapping[str, int]) -> dict[str, int]:
        """What the rest of the plan still collects ({} when the task has no recipe plan)."""
        if self.target is None:
            return {}
        built = frozenset(s for s in self.placeable if placed.get(f"place_{s}", 0) >= 1)
        first = tuple(a for a in self.extra if not self._effect_holds(a, inventory, placed))
        held = {k: v for k, v in inventory.items() if k not in VITALS}
        return still_to_collect(self.target, first, held, built, self.recipes)

    def _effect_holds(
        self, name: str, inventory: Mapping[str, int], placed: Mapping[str, int]
    ) -> bool:
        kind, _, obj = name.partition("_")
        if kind == "make":
            return inventory.get(obj, 0) >= 1
        return kind == "place" and obj in self.placeable and placed.get(name, 0) >= 1

    def allowed(self, name: str, inventory: Mapping[str, int], placed: Mapping[str, int],
                todo: Mapping[str, int]) -> bool:  # fmt: skip
        """Whether calling coded action `name` can make progress now; `todo`: what the plan
        still collects."""
        if name in NEED and name != self.task:
            vital, most = NEED[name]
            return inventory.get(vital, 0) <= most
        req = requirement(name, self.recipes)
        if req is None:
            return True
        kind, _, obj = name.partition("_")
        for item, n in req.items.items():
            if item in self.yields and inventory.get(item, 0) < n:
                return False
        for station in req.stations:
            if station in self.yields and placed.get(f"place_{station}", 0) < 1:
                return False
        if self._effect_holds(name, inventory, placed):
            return False
        if kind == "collect" and self.target is not None and obj in self.plan_items:
            full = obj not in VITALS and inventory.get(obj, 0) >= self.caps.get(obj, 9)
            return todo.get(obj, 0) > 0 and not full  # drinking at drink 9 still unlocks it
        return True

    def done(self, name: str, inventory: Mapping[str, int], placed: Mapping[str, int],
             todo: Mapping[str, int]) -> bool:  # fmt: skip
        """Whether chain step `name` needs no more calls in this state."""
        kind, _, obj = name.partition("_")
        if kind == "collect" and obj in self.plan_items:
            return todo.get(obj, 0) == 0
        if kind == "make" or (kind == "place" and obj in self.stations):
            return self._effect_holds(name, inventory, placed)
        return placed.get(name, 0) >= 1

    def _without_lost(self, inventory: Mapping[str, int], achieved: Mapping[str, int],
                      standing: Mapping[str, bool]) -> dict[str, int]:  # fmt: skip
        """`achieved` with place_S at 0 for each station S that is gone and that a step of the
        chain not yet done still needs nearby (a furnace lost before the iron pickaxe, not a
        table lost once every tool it makes is held)."""
        out = dict(achieved)
        for _ in range(len(standing)):  # a lost furnace may bring back the table it needs
            for s, up in standing.items():
                key = f"place_{s}"
                users = self.users.get(s, ())
                if (
                    not up
                    and out.get(key, 0)
                    and any(not self._effect_holds(n, inventory, out) for n in users)
                ):
                    out[key] = 0
        return out

    def __call__(self, inventory: Mapping[str, int], achieved: Mapping[str, int],
                 disabled: Callable[[str], bool],
                 standing: Mapping[str, bool] | None = None) -> np.ndarray:  # fmt: skip
        """The mask over the whole action space (primitives first). `standing`: whether each
        station still stands (CrafterEnv.standing); one that was placed and is gone (an arrow
        turns a table into a path) counts as not placed while the rest of the plan needs it,
        so its place_* step comes back. The same inputs give the same mask, from a memo."""
        key = (
            tuple(inventory.items()),
            tuple(achieved.items()),
            tuple(standing.items()) if standing else (),
            tuple(map(disabled, self.names)),
        )
        mask = self._memo.get(key)
        if mask is None:
            if len(self._memo) >= MEMO_SIZE:
                self._memo.clear()
            mask = self._memo[key] = self._mask(inventory, achieved, disabled, standing)
        return mask.copy()

    def _mask(self, inventory: Mapping[str, int], achieved: Mapping[str, int],
              disabled: Callable[[str], bool],
              standing: Mapping[str, bool] | None) -> np.ndarray:  # fmt: skip
        if standing:
            achieved = self._without_lost(inventory, achieved, standing)
        todo = self.to_collect(inventory, achieved)
        ok = {n: self.allowed(n, inventory, achieved, todo) and not disabled(n) for n in self.names}
        if self.ordered:
            step = next(
                (n for n in self.chain if not self.done(n, inventory, achieved, todo)), None
            )
            if step is not None and ok[step]:  # else: the recipes' mask alone
                ok.update({n: n == step for n in self.chain})
        coded = [ok[n] for n in self.names]
        mask = np.array([True] * self.n_prim + coded, dtype=bool)
        for i, uses in self.spending:
            mask[i] = self._spares(uses, inventory)
        mask[self.barred] = False
        if self.sleep is not None:
            vital, most = NEED["wake_up"]
            mask[self.sleep] = inventory.get(vital, 0) <= most
        return mask if mask.any() else np.ones_like(mask)

    def _spares(self, uses: Mapping[str, int], inventory: Mapping[str, int]) -> bool:
        """Whether a crafting or placing primitive that uses `uses` may act in a learned
        action's space: it has what it uses, and leaves what the action's effect needs."""
        return all(inventory.get(k, 0) >= n for k, n in uses.items()) and all(
            inventory.get(k, 0) - uses.get(k, 0) >= n for k, n in self.needs.items()
        )


def _uses(primitive: str, recipes: Recipes) -> dict[str, int] | None:
    """What a crafting or placing primitive uses (recipe data); None for any other."""
    kind, _, name = primitive.partition("_")
    info = recipes.data.get(kind, {}).get(name) if kind in ("make", "place") else None
    return None if info is None else {str(k): int(v) for k, v in info["uses"].items()}
