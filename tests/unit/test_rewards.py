"""rlgpt.rl.rewards.AchievementReward: reward terms computed in the trusted process."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from rlgpt.messages import RewardTerm
from rlgpt.rl.rewards import AchievementReward
from rlgpt.worlds.crafter.author import write_action
from rlgpt.worlds.crafter.env import CrafterEnv
from rlgpt.worlds.crafter.tasks import get_task
from tests.support.world import wrap


class Scripted(gym.Env):
    """Replays achievement counters; crafter's own reward is a constant 100 (must be ignored)."""

    observation_space = gym.spaces.Box(0, 1, (1,), np.float32)
    action_space = gym.spaces.Discrete(1)

    def __init__(self, counts, success=None, dead_at=None):
        self.counts = counts
        self.success = success or [False] * len(counts)
        self.dead_at = dead_at
        self.t = 0

    def reset(self, *, seed=None, options=None):
        self.t = 0
        return np.zeros(1, np.float32), self._info()

    def step(self, action):
        self.t += 1
        term = self.success[self.t] or self.t == self.dead_at
        return np.zeros(1, np.float32), 100.0, term, False, self._info()

    def _info(self):
        return {
            "achievements": {"collect_wood": self.counts[self.t]},
            "success": self.success[self.t],
        }


def rewards_of(env, n):
    env.reset()
    return [env.step(0)[1] for _ in range(n)]


def test_pays_weight_per_rise_up_to_cap():
    inner = Scripted([0, 1, 1, 3, 5, 6])
    env = AchievementReward(inner, [RewardTerm(achievement="collect_wood", weight=0.5, cap=3)], 5.0)
    assert rewards_of(env, 5) == [0.5, 0.0, 1.0, 0.0, 0.0]


def test_counts_already_reached_at_reset_are_not_paid():
    inner = Scripted([2, 2, 3])
    env = AchievementReward(inner, [RewardTerm(achievement="collect_wood", weight=1.0, cap=5)], 0.0)
    assert rewards_of(env, 2) == [0.0, 1.0]


def test_cap_resets_each_episode():
    inner = Scripted([0, 1, 2])
    env = AchievementReward(inner, [RewardTerm(achievement="collect_wood", weight=1.0, cap=1)], 0.0)
    assert rewards_of(env, 2) == [1.0, 0.0]
    assert rewards_of(env, 2) == [1.0, 0.0]


def test_success_bonus_and_death_penalty():
    terms = [RewardTerm(achievement="collect_wood", weight=1.0)]
    win = AchievementReward(Scripted([0, 0, 1], success=[False, False, True]), terms, 5.0)
    assert rewards_of(win, 2) == [0.0, 6.0]
    lose = AchievementReward(Scripted([0, 0, 0], dead_at=2), terms, 5.0)
    assert rewards_of(lose, 2) == [0.0, -1.0]


def test_terms_on_other_achievements_pay_nothing():
    env = AchievementReward(
        Scripted([0, 1]), [RewardTerm(achievement="place_table", weight=1.0)], 0
    )
    assert rewards_of(env, 1) == [0.0]


def test_on_real_crafter_under_a_macro(make_worker):
    task = get_task("collect_wood")
    shaped = AchievementReward(
        CrafterEnv(task), [RewardTerm(achievement="collect_wood", weight=2.0)], 5.0
    )
    worker = make_worker([write_action("collect_wood", 200)])
    env = wrap(shaped, ["collect_wood"], worker, 200, 0.1)
    env.reset(seed=0)
    _, reward, term, _, info = env.step(17)
    assert info["success"] and term
    assert reward == pytest.approx(2.0 + 5.0)
