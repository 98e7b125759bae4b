"""A vectorized env whose envs step at the same time, each in its own thread.

A coded action's step is a round trip to its sandboxed worker, and a training process that
waits for one sleeps: on a busy machine the scheduler then wakes it late, after whatever took
its core (measured here, benchmarks/step_profile.py: more time went to those waits than to
the game). With each env stepping in its own thread, while one waits for its worker another
steps its game, and the process keeps its core. Python runs one thread at a time, so this
overlaps waiting, not computing.

What each env does is exactly what stable-baselines3's DummyVecEnv does with it (step; on the
episode's end the terminal observation in `info` and a reset), and the results are gathered
in env order: every env owns its game, its random stream and its workers, so the transitions
are the same as DummyVecEnv's, step for step (tests/unit/test_vec.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from copy import deepcopy

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvStepReturn


class ThreadedVecEnv(DummyVecEnv):
    """DummyVecEnv with each env's step (and reset at the episode's end) in a thread of its
    own; closes its threads with its envs."""

    def __init__(self, env_fns: Sequence[Callable[[], gym.Env]]) -> None:
        super().__init__(list(env_fns))
        self._pool = ThreadPoolExecutor(self.num_envs, thread_name_prefix="rlgpt-env")

    def _step_env(self, i: int) -> None:
        """DummyVecEnv.step_wait's body for env `i` (it writes only env i's slots)."""
        obs, reward, terminated, truncated, info = self.envs[i].step(self.actions[i])
        self.buf_rews[i] = reward
        self.buf_dones[i] = terminated or truncated
        self.buf_infos[i] = info
        info["TimeLimit.truncated"] = truncated and not terminated
        if self.buf_dones[i]:
            info["terminal_observation"] = obs
            obs, self.reset_infos[i] = self.envs[i].reset()
        self._save_obs(i, obs)

    def step_wait(self) -> VecEnvStepReturn:
        if self.num_envs == 1:
            self._step_env(0)
        else:
            for job in [self._pool.submit(self._step_env, i) for i in range(self.num_envs)]:
                job.result()  # in env order: the first env's error is the one raised
        return (
            self._obs_from_buf(), np.copy(self.buf_rews), np.copy(self.buf_dones),
            deepcopy(self.buf_infos),
        )  # fmt: skip

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        super().close()
