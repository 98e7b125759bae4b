"""A crafter world to test skills in: a plain of grass around the player with no creatures,
the skill API's view of it, and a driver that steps a coded action's generator (its plans as
the host steps them: rlgpt/sandbox/stepping.py)."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from rlgpt.rl.runtime import MacroActionWrapper
from rlgpt.sandbox import plans
from rlgpt.sandbox.stepping import PlanStepper
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
    env: CrafterEnv, view: ObsView, gen: Generator[Any, Any, Any], limit: int = 300
) -> tuple[list[str], Any]:  # fmt: skip
    """Step the env with what `gen` yields until it returns: (actions taken, its value). A
    plan's steps are taken as the host takes them, and its `yield` gets how many were."""
    index = {a: i for i, a in enumerate(actions())}
    taken: list[str] = []
    stepper = PlanStepper(CRAFTER_SKILLS)
    state = env.view_state(env.last_info)
    sent = None
    try:
        while len(taken) < limit:
            act = gen.send(sent)
            sent = None
            prim = act
            if isinstance(act, plans.Plan):
                reply = plans.reply(act)
                prim = stepper.begin(reply["plan"], state, reply.get("ends"))
            while prim is not None and len(taken) < limit:
                taken.append(prim)
                _, _, _, _, info = env.step(index[prim])
                state = env.view_state(info)
                view.update(state)
                prim = stepper.after(state) if stepper.active else None
            if stepper.ended:  # the plan ended the call: its code is closed, as the host does
                gen.close()
                return taken, None
            if stepper.active:
                sent = stepper.report()[1]
    except StopIteration as stop:
        return taken, stop.value
    raise AssertionError(f"no end within {limit} steps: {taken[-10:]}")


def one_at_a_time(gen: Generator[Any, Any, Any]) -> Generator[str, None, Any]:
    """`gen`'s actions one step at a time, for tests that step the game themselves: each plan
    is cut after its first step, as a host that checks nothing cuts it (its `yield` gets 1)."""
    sent = None
    while True:
        try:
            act = gen.send(sent)
        except StopIteration as stop:
            return stop.value
        if isinstance(act, plans.Plan):
            act, sent = plans.steps_of(act)[0].action, 1
        else:
            sent = None
        yield act


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
