"""Sleepers: coded actions that pass validation and hang later (after some calls, or in a
`finally` when they are cut off) are killed and restarted during training, counted, disabled
after a few hangs, and training goes on to its budget."""

from __future__ import annotations

import time

import pytest

from rlgpt.config import SandboxParams, TrainParams
from rlgpt.messages import CodedAction, PPOConfig, RewardTerm, RLConfig
from rlgpt.rl.train import train
from rlgpt.sandbox.validate import validate_action
from rlgpt.worlds.crafter.tasks import get_task

BOMB = """
CALLS = [0]


def bomb(view):
    CALLS[0] += 1
    for _ in range(3):
        yield "noop"
    if CALLS[0] > 20:
        while True:
            pass
"""
FINALLY = """
def stuck(view):
    try:
        while True:
            yield "noop"
    finally:
        while True:
            pass
"""


@pytest.mark.parametrize(
    ("name", "source", "validates"),
    [("bomb", BOMB, True), pytest.param("stuck", FINALLY, False, marks=pytest.mark.slow)],
)
def test_sleeper_hangs_in_training_is_restarted_disabled_and_training_goes_on(
    tmp_path, name, source, validates
):
    """The bomb looks harmless in validation; the finally-sleeper is caught there (the next
    scenario's start closes the last generator), and training survives it anyway."""
    action = CodedAction(name=name, docstring="", source=source, step_budget=8)
    verdict = validate_action(action, sandbox=SandboxParams(timeout_s=10.0, reply_timeout_s=1.0))
    assert verdict.ok is validates, verdict.feedback()
    task = get_task("collect_wood")
    cfg = RLConfig(
        macro_actions=[name], reward_terms=[RewardTerm(achievement="collect_wood", weight=1)],
        ppo=PPOConfig(n_steps=32, batch_size=32, n_epochs=1), sample_budget=6_000,
    )  # fmt: skip
    params = TrainParams(n_envs=1, sample_budget=6_000, torch_threads=1, checkpoint_every=0)
    t0 = time.monotonic()
    fast = SandboxParams(reply_timeout_s=1.0)  # a hang costs this long, then a restart
    result = train(task, cfg, [action], params, 0, tmp_path, show_progress=False, sandbox=fast)
    assert result.samples >= 6_000, "training reached its budget"
    assert "timeout" in result.macro_faults[name], result.macro_faults
    assert time.monotonic() - t0 < 120
