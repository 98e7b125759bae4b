"""Task registry: one task per Crafter achievement, with the RL-GPT paper's names as aliases."""

from __future__ import annotations

import difflib
import functools

from rlgpt.errors import UserError
from rlgpt.messages import TaskSpec
from rlgpt.worlds.crafter.recipes import CRAFTER, Recipes, achievements

# RL-GPT (MineDojo) task -> Crafter achievement (docs/design.md, The method).
PAPER_NAMES: dict[str, str] = {
    "collect_wood": "harvest log",
    "place_table": "crafting table",
    "make_wood_pickaxe": "wooden pickaxe",
    "collect_stone": "stone",
    "make_stone_pickaxe": "stone pickaxe",
    "place_furnace": "furnace",
    "make_iron_pickaxe": "iron pickaxe",
    "collect_diamond": "ObtainDiamond",
    "eat_cow": "milk / beef",
}


def _steps_for(achievement: str, recipes: Recipes) -> int:
    from rlgpt.worlds.crafter.planner import is_plannable, plan_counts

    plannable = is_plannable(achievement, recipes)
    depth = sum(plan_counts(achievement, recipes).values()) if plannable else 4
    return min(10_000, 250 + 100 * depth)


@functools.cache
def registry(
    world: str = "crafter", game: str = "Crafter", recipes: Recipes = CRAFTER
) -> dict[str, TaskSpec]:
    """All tasks by name (one per achievement of crafter's data.yaml), of `world` (Crafter, or
    a game with the same achievements and its own `recipes`), described as `game`'s."""
    out: dict[str, TaskSpec] = {}
    for ach in achievements():
        paper = PAPER_NAMES.get(ach)
        desc = f"unlock the {game} achievement '{ach}'"
        if paper:
            desc += f" (RL-GPT task: {paper})"
        out[ach] = TaskSpec(
            name=ach,
            achievement=ach,
            description=desc,
            max_episode_steps=_steps_for(ach, recipes),
            paper_name=paper,
            world=world,
        )
    return out


def find_task(tasks: dict[str, TaskSpec], name: str) -> TaskSpec:
    """Look a task up; an unknown name is a UserError listing a few valid ones."""
    if name not in tasks:
        near = difflib.get_close_matches(name, list(tasks), n=3, cutoff=0.6)
        close = near or [t for t in tasks if name.split("_")[-1] in t] or list(tasks)
        raise UserError(f"unknown task '{name}'; try one of: {', '.join(close[:6])} (rlgpt tasks)")
    return tasks[name]


def get_task(name: str) -> TaskSpec:
    """A Crafter task by name (a UserError when there is none)."""
    return find_task(registry(), name)
