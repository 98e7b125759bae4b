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


CRAWLER = """
def crawl(view):
    if view.vitals["food"] < 9:  # validation starts every state fed: it behaves there
        n = 0
        for i in range(12_000_000):
            n += i % 7
    for _ in range(3):
        yield "noop"
"""


def test_an_action_that_crawls_only_in_training_is_disabled_there_for_its_cpu(tmp_path):
    """About 75 ms of CPU per step here once the player is hungry (three times the 25 ms
    allowed, so a fast machine crosses it too), never over the reply deadline: validation
    passes it, training disables it with the reason (train.json is this record)."""
    from rlgpt.sandbox import limits

    if limits.mode() == "rlimit":
        pytest.skip("no writable cgroup here: CPU is not measured")
    action = CodedAction(name="crawl", docstring="", source=CRAWLER, step_budget=8)
    assert validate_action(action, sandbox=SandboxParams()).ok
    cfg = RLConfig(
        macro_actions=["crawl"], reward_terms=[RewardTerm(achievement="collect_wood", weight=1)],
        ppo=PPOConfig(n_steps=64, batch_size=64, n_epochs=1), sample_budget=4_000,
    )  # fmt: skip
    params = TrainParams(n_envs=1, sample_budget=4_000, torch_threads=1, checkpoint_every=0)
    result = train(get_task("collect_wood"), cfg, [action], params, 0, tmp_path,
                   show_progress=False, sandbox=SandboxParams())  # fmt: skip
    assert result.samples >= 4_000, "training reached its budget"
    fault = result.macro_faults["crawl"]
    assert "disabled: cpu: costs" in fault and "ms of CPU per step" in fault, fault
    assert "disabled: cpu: costs" in result.model_dump_json()
