"""Task registry: one task per Crafter achievement, with the RL-GPT paper's names as aliases."""

from __future__ import annotations

import functools

from rlgpt.messages import TaskSpec
from rlgpt.worlds.crafter.recipes import CRAFTER, Recipes, achievements
from rlgpt.worlds.grid.tasks import PAPER_NAMES, find_task


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


def get_task(name: str) -> TaskSpec:
    """A Crafter task by name (a UserError when there is none)."""
    return find_task(registry(), name)
