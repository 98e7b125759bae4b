"""A crafter world to test skills in: a plain of grass around the player with no creatures,
the skill API's view of it, and a driver that steps a coded action's generator."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from rlgpt.envs.crafter_env import CrafterEnv
from rlgpt.envs.recipes import achievements, actions, game_data, semantic_names
from rlgpt.envs.tasks import get_task
from rlgpt.skills.api import ObsView
from rlgpt.skills.runtime import view_state


def grass_plain(seed: int = 3, task: str = "collect_diamond", reach: int = 12) -> CrafterEnv:
    """A reset env whose cells within `reach` of the player are grass, with no creatures."""
    env = CrafterEnv(get_task(task), seed=seed)
    env.reset(seed=seed)
    world = env.world
    x, y = (int(v) for v in env.player.pos)
    for dx in range(-reach, reach + 1):
        for dy in range(-reach, reach + 1):
            world[(x + dx, y + dy)] = "grass"
    for obj in list(world.objects):
        if obj is not env.player:
            world.remove(obj)
    env.refresh()
    return env


def view_of(env: CrafterEnv) -> ObsView:
    view = ObsView(semantic_names(), game_data()["items"], achievements())
    view.update(view_state(env, env.last_info, start=True))
    return view


def drive(
    env: CrafterEnv, view: ObsView, gen: Generator[str, None, Any], limit: int = 300
) -> tuple[list[str], Any]:  # fmt: skip
    """Step the env with what `gen` yields until it returns: (actions taken, its value)."""
    index = {a: i for i, a in enumerate(actions())}
    taken: list[str] = []
    try:
        while len(taken) < limit:
            act = next(gen)
            taken.append(act)
            _, _, _, _, info = env.step(index[act])
            view.update(view_state(env, info))
    except StopIteration as stop:
        return taken, stop.value
    raise AssertionError(f"no end within {limit} steps: {taken[-10:]}")
