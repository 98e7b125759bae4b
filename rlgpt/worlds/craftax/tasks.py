"""Task registry: one task per full Craftax achievement (67), each with its step limit.

The step limit grows with the plan (`planner.plan_steps`): 100 steps per achievement the plan
reaches (materials counted one by one), 2,000 more per floor below the overworld (finding a
floor's ladder, clearing the floor of 8 monsters, surviving its nights of no sleep), plus 500;
at most 10,000 (craftax's own episodes last up to 100,000 steps). docs/worlds-craftax.md lists
the limits of the benchmark's tasks.
"""

from __future__ import annotations

import functools

from rlgpt.messages import TaskSpec
from rlgpt.worlds.craftax import facts as F
from rlgpt.worlds.craftax.planner import depth, plan_steps
from rlgpt.worlds.grid.tasks import PAPER_NAMES, find_task

BASE, PER_STEP, PER_FLOOR, MOST = 500, 100, 2000, 10_000


def step_limit(achievement: str) -> int:
    """The episode step limit of the task whose goal is `achievement`."""
    steps = sum(n for _, n in plan_steps(achievement))
    return min(MOST, BASE + PER_STEP * steps + PER_FLOOR * depth(achievement))


@functools.cache
def registry(world: str = "craftax") -> dict[str, TaskSpec]:
    """All tasks by name, in craftax's achievement order."""
    out: dict[str, TaskSpec] = {}
    for ach in F.achievements():
        paper = PAPER_NAMES.get(ach)
        desc = f"unlock the Craftax achievement '{ach}'"
        if paper:
            desc += f" (RL-GPT task: {paper})"
        out[ach] = TaskSpec(
            name=ach, achievement=ach, description=desc, max_episode_steps=step_limit(ach),
            paper_name=paper, world=world,
        )  # fmt: skip
    return out


def get_task(name: str) -> TaskSpec:
    """A Craftax task by name (a UserError naming a few valid ones when there is none)."""
    return find_task(registry(), name)
