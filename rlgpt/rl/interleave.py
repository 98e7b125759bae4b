"""Envs that take turns while their coded actions' workers work.

With coded actions inserted, most primitive steps of a training wait for a sandboxed worker's
answer (rlgpt/sandbox/client.py). Stepped one after another (SB3's DummyVecEnv), the host sleeps
through each of those waits, and is woken once per answer. Here each env's step is a generator
(`step_waits`) that yields its worker's reply pipe once it has written a request; the vec env
then steps the next env's game, and comes back to an env when its reply is readable. The host
steps one env while another's worker computes on the other core, and takes the answers that
came in meanwhile without sleeping. Threads did this worse: they only took turns at the GIL
(docs/speed.md, envs in turn).

Each env runs exactly the operations it runs under DummyVecEnv, in the same order (its step,
then its reset when its episode ended); only the order across envs changes, and envs share
nothing (each has its own game, its own RNG, its own workers). So the transitions are the
same, step for step (tests/unit/test_interleave.py). An env resets as soon as its step ends,
while the others may still wait for their workers: a vec step lasts as long as its longest
coded action, and the host would be idle then.
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any, SupportsFloat

import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvStepReturn

from rlgpt.sandbox.pipes import Waits, in_turns

Step = tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]


def _now(env: Any, action: Any) -> Waits[Step]:
    """An env without `step_waits`: its step, as steps that never wait."""
    return env.step(action)
    yield  # a generator


def _step_and_reset(env: Any, action: Any) -> Waits[tuple[Step, Any]]:
    """One env's step and, when its episode ended, its reset (None otherwise): an env whose
    call ended resets at once, while the others' workers still compute (a vec step waits for
    its longest coded action, and the host is otherwise idle then)."""
    if hasattr(env, "step_waits"):
        step = yield from env.step_waits(action)
    else:
        step = yield from _now(env, action)
    _, _, term, trunc, _ = step
    return step, env.reset() if term or trunc else None


class InterleavedVecEnv(DummyVecEnv):
    """SB3's DummyVecEnv whose envs, when they have `step_waits`, wait for their workers in
    turns rather than one after another."""

    def step_wait(self) -> VecEnvStepReturn:
        """DummyVecEnv.step_wait, with the envs' steps (and resets) taken in turns first."""
        steps = [_step_and_reset(env, a) for env, a in zip(self.envs, self.actions, strict=True)]
        for i, (step, reset) in enumerate(in_turns(steps)):
            obs, reward, term, trunc, info = step
            self.buf_rews[i], self.buf_infos[i] = reward, info
            self.buf_dones[i] = term or trunc
            info["TimeLimit.truncated"] = trunc and not term
            if self.buf_dones[i]:
                info["terminal_observation"] = obs
                obs, self.reset_infos[i] = reset
            self._save_obs(i, obs)
        return (self._obs_from_buf(), np.copy(self.buf_rews), np.copy(self.buf_dones),
                deepcopy(self.buf_infos))  # fmt: skip
