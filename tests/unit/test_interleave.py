"""rlgpt.rl.interleave: envs that wait for their workers in turns give DummyVecEnv's
transitions, step for step."""

from __future__ import annotations

import numpy as np
import pytest
from stable_baselines3.common.vec_env import DummyVecEnv

from rlgpt.config import Params
from rlgpt.messages import RewardTerm, RLConfig
from rlgpt.rl.envs import env_factories
from rlgpt.rl.interleave import InterleavedVecEnv
from rlgpt.worlds.crafter.author import write_action
from rlgpt.worlds.crafter.tasks import get_task

NAMES = ["collect_wood", "place_table", "make_wood_pickaxe"]


def _factories(n_envs: int) -> list:
    params = Params()
    coded = [write_action(n, 40) for n in NAMES]
    cfg = RLConfig(macro_actions=NAMES, ppo=params.train.ppo, sample_budget=1000,
                   reward_terms=[RewardTerm(achievement=n, weight=1.0) for n in NAMES])  # fmt: skip
    return env_factories(get_task("make_wood_pickaxe"), cfg, coded, 7, n_envs, 4,
                         macro_step_budget=40, masking="plan")  # fmt: skip


def _same(a: object, b: object) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(a, b)  # type: ignore[arg-type]
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


class _Spy:
    """Counts how many envs' steps are paused at once, waiting for a worker."""

    def __init__(self) -> None:
        self.paused = self.most = self.pauses = 0

    def watch(self, env):  # type: ignore[no-untyped-def]
        inner = env.step_waits

        def step_waits(action):  # type: ignore[no-untyped-def]
            steps = inner(action)
            try:
                while True:
                    fd = next(steps)
                    self.paused += 1
                    self.pauses += 1
                    self.most = max(self.most, self.paused)
                    try:
                        yield fd
                    finally:
                        self.paused -= 1
            except StopIteration as done:
                return done.value

        env.step_waits = step_waits


def test_interleaved_envs_give_the_sequential_transitions():
    """Coded actions in sandboxed workers, primitives, episode ends and resets: the same
    observations, rewards, dones, infos and masks as DummyVecEnv, and envs did wait at once."""
    rng = np.random.default_rng(0)
    # coded actions often (one in three), so envs wait on workers at the same time
    actions = [
        [int(rng.integers(17, 20)) if rng.random() < 0.35 else int(rng.integers(0, 17))
         for _ in range(3)]
        for _ in range(120)
    ]  # fmt: skip
    runs = []
    spy = _Spy()
    for kind in (DummyVecEnv, InterleavedVecEnv):
        venv = kind(_factories(3))
        if kind is InterleavedVecEnv:
            for env in venv.envs:
                spy.watch(env)
        try:
            out = [venv.reset()]
            for acts in actions:
                out.append(venv.env_method("action_masks"))
                venv.step_async(np.array(acts))
                out.append(venv.step_wait())
        finally:
            venv.close()
        runs.append(out)
    dummy, interleaved = runs
    assert len(dummy) == len(interleaved)
    for i, (a, b) in enumerate(zip(dummy, interleaved, strict=True)):
        if isinstance(a, tuple):
            assert all(_same(x, y) for x, y in zip(a[:3], b[:3], strict=True)), i
            assert all(_same(x, y) for x, y in zip(a[3], b[3], strict=True)), i
        else:
            assert _same(a, b) if isinstance(a, np.ndarray) else all(
                _same(x, y) for x, y in zip(a, b, strict=True)
            ), i  # fmt: skip
    assert any(d for step in dummy[2::2] for d in step[2]), "an episode ended on the way"
    assert spy.pauses > 100 and spy.most >= 2, (spy.pauses, spy.most)


def test_an_env_error_reaches_the_caller_and_the_other_steps_are_closed():
    venv = InterleavedVecEnv(_factories(2))
    closed: list[bool] = []
    inner = venv.envs[0].step_waits

    def step_waits(action):  # type: ignore[no-untyped-def]
        try:
            return (yield from inner(action))
        except GeneratorExit:
            closed.append(True)
            raise

    def boom(action):  # type: ignore[no-untyped-def]
        raise RuntimeError("env 1 failed")
        yield  # a generator, like step_waits

    venv.envs[0].step_waits = step_waits
    venv.envs[1].step_waits = boom
    venv.reset()
    venv.step_async(np.array([17, 0]))  # env 0 calls collect_wood: it waits for its worker
    with pytest.raises(RuntimeError, match="env 1 failed"):
        venv.step_wait()
    assert closed == [True]
    venv.close()
