"""Build the training/evaluation env stack: the task's world env -> reward terms -> coded
actions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np

from rlgpt.config import Masking, SandboxParams
from rlgpt.messages import CodedAction, RLConfig, TaskSpec
from rlgpt.rl.options import LearnedOption
from rlgpt.rl.rewards import AchievementReward
from rlgpt.rl.runtime import MacroActionWrapper, Snapshots, Step
from rlgpt.sandbox.pipes import Waits, drive
from rlgpt.sandbox.pool import MacroPool
from rlgpt.trial import LearnedAction
from rlgpt.worlds import get_world


class SlimInfo(gym.Wrapper[np.ndarray, int, np.ndarray, int]):
    """Keeps only what training reads from `info`: SB3's vec env deep-copies every info dict on
    every step, and the full one (inventory, achievements) costs more than the step itself."""

    def reset(self, **kwargs: Any) -> tuple[np.ndarray, dict[str, Any]]:
        obs, _ = self.env.reset(**kwargs)
        return obs, {}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        return drive(self.step_waits(action))

    def step_waits(self, action: int) -> Waits[Step]:
        """step(), yielding where the coded action's call waits (MacroActionWrapper.step_waits)."""
        env: MacroActionWrapper = self.env  # type: ignore[assignment]
        obs, reward, term, trunc, info = yield from env.step_waits(action)
        slim = {"primitive_steps": info["primitive_steps"], "success": info["success"]}
        if "start_group" in info:  # a learned action's episode: where it started
            slim["start_group"] = info["start_group"]
        return obs, float(reward), term, trunc, slim


def make_env(
    task: TaskSpec, cfg: RLConfig, coded: list[CodedAction], seed: int, view_radius: int,
    macro_step_budget: int, *, sandbox: SandboxParams | None = None, masking: Masking = "off",
    learned: list[LearnedAction] | None = None, snapshots: Snapshots | None = None,
) -> MacroActionWrapper:  # fmt: skip
    """One env; each inserted coded action runs in its own sandboxed worker, which the env
    closes in its own close(). With `masking` ("recipes" or "plan"), the env's action_masks()
    hides the coded actions that cannot make progress now (the world's `action_mask`).
    `learned` actions named in `cfg.learned_actions` join the space after the coded ones, as
    options (rlgpt/rl/options.py); the coded actions they call run in the same pool."""
    world = get_world(task.world)
    options = {
        a.name: LearnedOption(world, a) for a in learned or [] if a.name in cfg.learned_actions
    }
    inserted = [c for c in coded if c.name in cfg.macro_actions]
    wanted = {n for o in options.values() for n in o.coded}
    pooled = [c for c in coded if c.name in cfg.macro_actions or c.name in wanted]
    base = world.make_env(task, observation=cfg.observation, view_radius=view_radius, seed=seed)
    shaped = AchievementReward(base, cfg.reward_terms, cfg.success_bonus)  # type: ignore[arg-type]
    sb = sandbox or SandboxParams()
    pool = MacroPool(pooled, world.skills(), sb.isolation, sb.reply_timeout_s,
                     step_cpu_ms=sb.step_cpu_ms, run_memory_mib=sb.run_memory_mib)  # fmt: skip
    budget = max([macro_step_budget, *[c.step_budget for c in pooled]])
    names = [c.name for c in inserted] + [n for n in cfg.learned_actions if n in options]
    prims = cfg.primitive_actions
    rule = world.action_mask(
        task, names, world.primitives() if prims is None else prims, ordered=masking == "plan"
    )
    env = MacroActionWrapper(
        shaped, names, pool, all_primitives=world.primitives(), vitals=world.vitals,
        step_budget=budget, no_effect_penalty=cfg.no_effect_penalty, primitives=prims,
        mask=rule if masking != "off" else None, options=options, snapshots=snapshots,
    )  # fmt: skip
    env.reset(seed=seed)
    return env


def env_factories(
    task: TaskSpec, cfg: RLConfig, coded: list[CodedAction], seed: int, n_envs: int,
    view_radius: int, *, macro_step_budget: int, sandbox: SandboxParams | None = None,
    masking: Masking = "off", learned: list[LearnedAction] | None = None,
    snapshots: Snapshots | None = None,
) -> list[Callable[[], gym.Env[np.ndarray, int]]]:  # fmt: skip
    def factory(rank: int) -> Callable[[], gym.Env[np.ndarray, int]]:
        return lambda: SlimInfo(
            make_env(
                task,
                cfg,
                coded,
                seed * 1000 + rank,
                view_radius,
                macro_step_budget,
                sandbox=sandbox,
                masking=masking,
                learned=learned,
                snapshots=snapshots,
            )
        )

    return [factory(i) for i in range(n_envs)]


def macro_faults(envs: list[gym.Env[np.ndarray, int]]) -> dict[str, str]:
    """Each coded action's failures over these envs: count, and the latest message."""
    counts: dict[str, int] = {}
    latest: dict[str, str] = {}
    for env in envs:
        wrapper = env if isinstance(env, MacroActionWrapper) else getattr(env, "env", None)
        if not isinstance(wrapper, MacroActionWrapper):
            continue
        for name, n in wrapper.errors.items():
            counts[name] = counts.get(name, 0) + n
            latest[name] = wrapper.faults[name]
    return {k: f"{counts[k]} failed call(s); latest: {latest[k]}" for k in sorted(counts)}
