"""Reward terms of an RLConfig, computed in the trusted process from achievement counters."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from rlgpt.messages import RewardTerm


class AchievementReward(gym.Wrapper[np.ndarray, int, np.ndarray, int]):
    """Replaces the game's reward: +weight per rise of a term's achievement counter (up to its
    cap per episode), +success_bonus when the task succeeds, -1 on death."""

    def __init__(
        self, env: gym.Env[np.ndarray, int], terms: list[RewardTerm], success_bonus: float
    ) -> None:
        super().__init__(env)
        self.terms = list(terms)
        self.success_bonus = success_bonus
        self._counts: dict[str, int] = {}
        self._paid: dict[str, int] = {}

    def reset(self, **kwargs: Any) -> tuple[np.ndarray, dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        self._counts = dict(info["achievements"])
        self._paid = {t.achievement: 0 for t in self.terms}
        return obs, info

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        obs, _, term, trunc, info = self.env.step(action)
        reward = 0.0
        ach = info["achievements"]
        if ach != self._counts:  # most steps raise no counter: no term pays, the same 0.0
            for t in self.terms:
                rise = ach.get(t.achievement, 0) - self._counts.get(t.achievement, 0)
                pay = max(0, min(rise, t.cap - self._paid[t.achievement]))
                self._paid[t.achievement] += pay
                reward += t.weight * pay
        self._counts = dict(ach)
        if info["success"]:
            reward += self.success_bonus
        elif term and not info.get("won"):  # a death (a won game ends an episode too)
            reward -= 1.0
        return obs, reward, term, trunc, info
