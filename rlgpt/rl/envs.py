"""Build the training/evaluation env stack: Crafter -> reward terms -> coded actions."""

from __future__ import annotations

from collections.abc import Callable

import gymnasium as gym
import numpy as np

from rlgpt.envs.crafter_env import CrafterEnv
from rlgpt.messages import CodedAction, RLConfig, TaskSpec
from rlgpt.rl.rewards import AchievementReward
from rlgpt.sandbox.client import MacroWorker
from rlgpt.skills.runtime import MacroActionWrapper


def make_env(
    task: TaskSpec, cfg: RLConfig, coded: list[CodedAction], seed: int, view_radius: int,
    macro_step_budget: int, workers: list[MacroWorker],
) -> MacroActionWrapper:  # fmt: skip
    """One env; its sandboxed worker is appended to `workers` so the caller can close it."""
    inserted = [c for c in coded if c.name in cfg.macro_actions]
    base = CrafterEnv(task, cfg.observation, view_radius, seed)
    shaped = AchievementReward(base, cfg.reward_terms, cfg.success_bonus)
    worker = MacroWorker(inserted)
    workers.append(worker)
    budget = max([macro_step_budget, *[c.step_budget for c in inserted]])
    env = MacroActionWrapper(
        shaped, [c.name for c in inserted], worker, budget, cfg.no_effect_penalty
    )
    env.reset(seed=seed)
    return env


def env_factories(
    task: TaskSpec, cfg: RLConfig, coded: list[CodedAction], seed: int, n_envs: int,
    view_radius: int, macro_step_budget: int, workers: list[MacroWorker],
) -> list[Callable[[], gym.Env[np.ndarray, int]]]:  # fmt: skip
    def factory(rank: int) -> Callable[[], gym.Env[np.ndarray, int]]:
        return lambda: make_env(
            task, cfg, coded, seed * 1000 + rank, view_radius, macro_step_budget, workers
        )

    return [factory(i) for i in range(n_envs)]
