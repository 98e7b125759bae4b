"""A coded action that passes validation and hangs later is killed by the watchdog during
training, and training fails with a clear error instead of hanging."""

from __future__ import annotations

import time

import pytest

from rlgpt.config import SandboxParams, TrainParams
from rlgpt.envs.tasks import get_task
from rlgpt.messages import CodedAction, PPOConfig, RewardTerm, RLConfig
from rlgpt.rl.train import train
from rlgpt.sandbox.client import MacroError
from rlgpt.sandbox.validate import validate_action

BOMB = """
CALLS = [0]


def bomb(view):
    CALLS[0] += 1
    for _ in range(3):
        yield "noop"
    if CALLS[0] > 40:
        while True:
            pass
"""


def test_time_bomb_passes_validation_then_the_watchdog_stops_training(tmp_path):
    action = CodedAction(name="bomb", docstring="", source=BOMB)
    task = get_task("collect_wood")
    assert validate_action(action, sandbox=SandboxParams(timeout_s=10.0)).ok  # harmless at first
    cfg = RLConfig(
        macro_actions=["bomb"], reward_terms=[RewardTerm(achievement="collect_wood", weight=1)],
        ppo=PPOConfig(n_steps=32, batch_size=32, n_epochs=1), sample_budget=50_000,
    )  # fmt: skip
    params = TrainParams(n_envs=1, sample_budget=50_000, torch_threads=1)
    t0 = time.monotonic()
    with pytest.raises(MacroError) as exc:
        train(task, cfg, [action], params, 0, tmp_path, show_progress=False)
    assert exc.value.kind == "timeout" and "killed" in exc.value.message
    assert time.monotonic() - t0 < 120
