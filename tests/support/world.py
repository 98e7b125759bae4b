"""A crafter world to test skills in: a plain of grass around the player with no creatures,
the skill API's view of it, and a driver that steps a coded action's generator."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from rlgpt.skills.runtime import MacroActionWrapper
from rlgpt.worlds import get_world
from rlgpt.worlds.crafter.env import CrafterEnv
from rlgpt.worlds.crafter.recipes import VITALS, achievements, actions, game_data, semantic_names
from rlgpt.worlds.crafter.skills.api import ObsView
from rlgpt.worlds.crafter.tasks import get_task


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
    view.update(env.view_state(env.last_info, start=True))
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
            view.update(env.view_state(info))
    except StopIteration as stop:
        return taken, stop.value
    raise AssertionError(f"no end within {limit} steps: {taken[-10:]}")


CRAFTER = get_world("crafter")
CRAFTER_SKILLS = CRAFTER.skills()


def wrap(
    env: Any, names: list[str], runner: Any, step_budget: int = 80,
    no_effect_penalty: float = 0.0, **kwargs: Any,
) -> MacroActionWrapper:  # fmt: skip
    """A MacroActionWrapper over a Crafter env (its primitives and vitals)."""
    return MacroActionWrapper(
        env, names, runner, all_primitives=actions(), vitals=VITALS, step_budget=step_budget,
        no_effect_penalty=no_effect_penalty, **kwargs,
    )  # fmt: skip
