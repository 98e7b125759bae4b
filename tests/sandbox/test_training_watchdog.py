"""Sleepers: coded actions that pass validation and hang later (in states it did not show, or in a
`finally` when they are cut off) are killed and restarted during training, counted, disabled
after a few hangs, and training goes on to its budget."""

from __future__ import annotations

import os
import time

import pytest

from rlgpt.config import SandboxParams, TrainParams
from rlgpt.messages import CodedAction, PPOConfig, RewardTerm, RLConfig, ValidationReport
from rlgpt.rl.train import TrainSettings, train
from rlgpt.trial import Trial
from rlgpt.validation.validate import validate_action
from rlgpt.worlds.crafter.tasks import get_task

# Every call starts from the code as written (rlgpt/sandbox/worker.py), so a sleeper cannot
# count its calls; it waits for a state validation does not show: the player far from where a
# world starts it (Crafter's spawn, the middle of the 64 x 64 world).
BOMB = """
def bomb(view):
    for _ in range(3):
        yield "noop"
    x, y = view.position
    if abs(x - 32) + abs(y - 32) > 4:
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
    settings = TrainSettings(params=params, seed=0, show_progress=False, sandbox=fast)
    result = train(Trial.of(task, cfg, [action]), tmp_path, settings=settings)
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
    settings = TrainSettings(params=params, seed=0, show_progress=False, sandbox=SandboxParams())
    result = train(Trial.of(get_task("collect_wood"), cfg, [action]), tmp_path, settings=settings)
    assert result.samples >= 4_000, "training reached its budget"
    fault = result.macro_faults["crawl"]
    assert "disabled: cpu: costs" in fault and "ms of CPU per step" in fault, fault
    assert "disabled: cpu: costs" in result.model_dump_json()


# five steps a call, about 0.5 s of CPU before each once the player is hungry (every
# validation state starts fed, and a call here ends after five steps): validation passes it
RED_TEAM = """
def crawl5(view):
    for _ in range(5):
        if view.vitals["food"] < 9:
            n = 0
            for i in range(12_000_000):
                n += i % 7
        yield "noop"
"""


def _train_with(tmp_path, name: str, source: str | None, budget: int = 3_000):
    """Training on collect_wood with the action (None: with no coded action at all)."""
    usable = []
    if source is not None:
        action = CodedAction(name=name, docstring="", source=source, step_budget=8)
        verdict = validate_action(action, sandbox=SandboxParams())
        assert verdict.ok, verdict.feedback()
        cpu = verdict.cpu_ms_per_step
        assert cpu is None or cpu < 5, cpu
        usable = ValidationReport(actions=[verdict]).passed([action])
    cfg = RLConfig(
        macro_actions=[name], reward_terms=[RewardTerm(achievement="collect_wood", weight=1)],
        ppo=PPOConfig(n_steps=64, batch_size=64, n_epochs=1), sample_budget=budget,
    )  # fmt: skip
    params = TrainParams(n_envs=1, sample_budget=budget, torch_threads=1, checkpoint_every=0)
    settings = TrainSettings(params=params, seed=0, show_progress=False, sandbox=SandboxParams())
    return train(
        Trial.of(get_task("collect_wood"), cfg, usable), tmp_path / name, settings=settings
    )


def _measured() -> None:
    from rlgpt.sandbox import limits

    if limits.mode() == "rlimit" and limits.tree_cpu_ns(os.getpid()) is None:
        pytest.skip("neither a cgroup nor /proc measures CPU here")


def test_a_crawl_in_training_is_disabled_at_its_first_steps_not_after_sixteen(tmp_path):
    """The red-team program: about 0.5 s of CPU before each of its five steps once hungry.
    Judged from a worker's first step, it is disabled within the steps of one call (a one-off
    0.4 s is allowed), and the reason reaches train.json."""
    _measured()
    result = _train_with(tmp_path, "crawl5", RED_TEAM)
    assert result.samples >= 3_000, "training reached its budget"
    fault = result.macro_faults["crawl5"]
    assert "disabled: cpu: costs" in fault and "ms of CPU per step over" in fault, fault
    steps = int(fault.split(" ms of CPU per step over ")[1].split()[0])
    assert steps <= 3, fault
    assert "disabled: cpu: costs" in result.model_dump_json()


@pytest.mark.slow
def test_a_run_with_the_crawler_keeps_the_pace_of_the_same_run_without_it(tmp_path):
    """The sandbox-3 target: within 20% of the samples/s of the same training without the
    action (measured in the same test, one after the other): once disabled, each choice of
    it is one no-op tick, as a primitive is."""
    _measured()
    base = _train_with(tmp_path, "crawl5", None, budget=6_000)
    crawled = _train_with(tmp_path, "crawl5", RED_TEAM, budget=6_000)
    assert "disabled: cpu" in crawled.macro_faults["crawl5"]
    assert crawled.samples_per_s >= 0.8 * base.samples_per_s, (crawled.samples_per_s,
                                                               base.samples_per_s)  # fmt: skip
