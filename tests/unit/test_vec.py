"""rlgpt.rl.vec: envs stepped in threads give DummyVecEnv's transitions, step for step."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from stable_baselines3.common.vec_env import DummyVecEnv

from rlgpt.config import Params
from rlgpt.messages import RewardTerm, RLConfig
from rlgpt.rl.envs import env_factories
from rlgpt.rl.vec import ThreadedVecEnv
from rlgpt.worlds.crafter.author import write_action
from rlgpt.worlds.crafter.tasks import get_task

NAMES = ["collect_wood", "place_table", "make_wood_pickaxe"]


def _factories(n_envs: int) -> list:
    params = Params()
    coded = [write_action(n, 40) for n in NAMES]
    cfg = RLConfig(macro_actions=NAMES, ppo=params.train.ppo, sample_budget=1000,
                   reward_terms=[RewardTerm(achievement=n, weight=1.0) for n in NAMES])  # fmt: skip
    return env_factories(get_task("make_wood_pickaxe"), cfg, coded, 7, n_envs, 4, 40,
                         masking="plan")  # fmt: skip


def _same(a: object, b: object) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(a, b)  # type: ignore[arg-type]
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


def test_threaded_envs_give_the_sequential_transitions():
    """Coded actions in sandboxed workers, primitives, episode ends and resets: the same
    observations, rewards, dones, infos and masks as DummyVecEnv, and the steps ran in more
    than one thread."""
    rng = np.random.default_rng(0)
    # coded actions often (one in three), so envs wait on workers at the same time
    actions = [
        [int(rng.integers(17, 20)) if rng.random() < 0.35 else int(rng.integers(0, 17))
         for _ in range(3)]
        for _ in range(120)
    ]  # fmt: skip
    runs = []
    threads: set[int] = set()
    for kind in (DummyVecEnv, ThreadedVecEnv):
        venv = kind(_factories(3))
        if kind is ThreadedVecEnv:
            for env in venv.envs:  # note which threads step the envs
                step = env.step

                def spy(action, step=step):  # type: ignore[no-untyped-def]
                    threads.add(threading.get_ident())
                    return step(action)

                env.step = spy  # type: ignore[method-assign]
        try:
            out = [venv.reset()]
            for acts in actions:
                out.append(venv.env_method("action_masks"))
                venv.step_async(np.array(acts))
                out.append(venv.step_wait())
        finally:
            venv.close()
        runs.append(out)
    dummy, threaded = runs
    assert len(dummy) == len(threaded)
    for i, (a, b) in enumerate(zip(dummy, threaded, strict=True)):
        if isinstance(a, tuple):
            assert all(_same(x, y) for x, y in zip(a[:3], b[:3], strict=True)), i
            assert all(_same(x, y) for x, y in zip(a[3], b[3], strict=True)), i
        else:
            assert _same(a, b) if isinstance(a, np.ndarray) else all(
                _same(x, y) for x, y in zip(a, b, strict=True)
            ), i  # fmt: skip
    assert any(d for step in dummy[2::2] for d in step[2]), "an episode ended on the way"
    assert len(threads) > 1


def test_an_env_error_reaches_the_caller_and_close_ends_the_threads():
    venv = ThreadedVecEnv(_factories(2))

    def boom(action):  # type: ignore[no-untyped-def]
        raise RuntimeError("env 1 failed")

    venv.envs[1].step = boom  # type: ignore[method-assign]
    venv.reset()
    venv.step_async(np.array([0, 0]))
    with pytest.raises(RuntimeError, match="env 1 failed"):
        venv.step_wait()
    venv.close()
    assert not any(t.name.startswith("rlgpt-env") for t in threading.enumerate())
