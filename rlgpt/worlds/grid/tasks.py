"""What the grid worlds' task registries share: the RL-GPT paper's task names, and the lookup
of a task by name."""

from __future__ import annotations

import difflib

from rlgpt.errors import UserError
from rlgpt.messages import TaskSpec

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


def find_task(tasks: dict[str, TaskSpec], name: str) -> TaskSpec:
    """Look a task up; an unknown name is a UserError listing a few valid ones."""
    if name not in tasks:
        near = difflib.get_close_matches(name, list(tasks), n=3, cutoff=0.6)
        close = near or [t for t in tasks if name.split("_")[-1] in t] or list(tasks)
        raise UserError(f"unknown task '{name}'; try one of: {', '.join(close[:6])} (rlgpt tasks)")
    return tasks[name]
