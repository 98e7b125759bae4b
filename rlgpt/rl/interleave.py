"""Envs that take turns while their coded actions' workers work.

With coded actions inserted, most primitive steps of a training wait for a sandboxed worker's
answer (rlgpt/sandbox/client.py). Stepped one after another (SB3's DummyVecEnv), the host sleeps
through each of those waits, and is woken once per answer. Here each env's step is a generator
(`step_waits`) that yields its worker's reply pipe once it has written a request; the vec env
then steps the next env's game, and comes back to an env when its reply is readable. The host
steps one env while another's worker computes on the other core, and takes the answers that
came in meanwhile without sleeping. Threads did this worse: they only took turns at the GIL
(docs/speed.md, envs in turn).

Each env runs exactly the operations it runs under DummyVecEnv, in the same order; only the
order across envs changes, and envs share nothing (each has its own game, its own RNG, its own
workers). So the transitions are the same, step for step (tests/unit/test_interleave.py).
"""

from __future__ import annotations

import select
from copy import deepcopy
from typing import Any, SupportsFloat

import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvStepReturn

from rlgpt.sandbox.pipes import Waits

# No reply readable for this long: the oldest waiting step resumes and waits in its own read,
# which holds its deadline (rlgpt/sandbox/patience.py decides about a late or silent worker).
POLL_S = 0.1

Step = tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]


class InterleavedVecEnv(DummyVecEnv):
    """SB3's DummyVecEnv whose envs, when they have `step_waits`, wait for their workers in
    turns rather than one after another."""

    def _steps(self) -> list[Step]:
        results: list[Step | None] = [None] * self.num_envs
        waiting: dict[int, tuple[int, Waits[Step]]] = {}  # reply fd -> (env, its paused step)

        def resume(i: int, steps: Waits[Step]) -> None:
            try:
                fd = next(steps)
            except StopIteration as done:
                results[i] = done.value
            else:
                waiting[fd] = (i, steps)

        try:
            for i, env in enumerate(self.envs):
                step_waits = getattr(env, "step_waits", None)
                if step_waits is None:
                    results[i] = env.step(self.actions[i])
                else:
                    resume(i, step_waits(self.actions[i]))
            while waiting:
                poller = select.poll()
                for fd in waiting:
                    poller.register(fd, select.POLLIN)
                ready = [fd for fd, _ in poller.poll(POLL_S * 1000)] or [next(iter(waiting))]
                for fd in ready:
                    resume(*waiting.pop(fd))
        except BaseException:
            for _, steps in waiting.values():  # their workers are killed when the envs close
                steps.close()
            raise
        assert all(r is not None for r in results)
        return results  # type: ignore[return-value]

    def step_wait(self) -> VecEnvStepReturn:
        """DummyVecEnv.step_wait, with the envs' steps taken in turns first."""
        for i, (obs, reward, term, trunc, info) in enumerate(self._steps()):
            self.buf_rews[i], self.buf_infos[i] = reward, info
            self.buf_dones[i] = term or trunc
            info["TimeLimit.truncated"] = trunc and not term
            if self.buf_dones[i]:
                info["terminal_observation"] = obs
                obs, self.reset_infos[i] = self.envs[i].reset()
            self._save_obs(i, obs)
        return (self._obs_from_buf(), np.copy(self.buf_rews), np.copy(self.buf_dones),
                deepcopy(self.buf_infos))  # fmt: skip
