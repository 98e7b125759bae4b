"""rlgpt.rl.train: PPO over the enlarged action space, budgeted in primitive env steps."""

from __future__ import annotations

from pathlib import Path

from stable_baselines3 import PPO

from rlgpt.rl.train import PrimitiveBudget


def test_tiny_run_writes_a_loadable_policy(tiny_run):
    result = tiny_run["result"]
    path = Path(result.checkpoint)
    assert path == tiny_run["root"] / "train" / "policy.zip"
    assert path.is_file()
    assert not list(path.parent.glob("*.tmp*")), "the temp file was renamed away"
    model = PPO.load(path, device="cpu")
    assert model.action_space.n == 17 + len(tiny_run["cfg"].macro_actions) == 19


def test_tiny_run_spends_its_budget_in_primitive_steps(tiny_run):
    result = tiny_run["result"]
    budget = tiny_run["cfg"].sample_budget
    assert result.samples >= budget
    # the last decision may be a macro call: overshoot is at most one call's budget
    assert result.samples < budget + 80
    assert 0 < result.decisions <= result.samples
    assert result.wall_s > 0 and result.samples_per_s > 0


def test_primitive_budget_counts_macro_steps_and_stops():
    cb = PrimitiveBudget(100, show=False)

    def step(*infos):
        cb.locals = {"infos": list(infos)}
        return cb._on_step()

    assert step({"primitive_steps": 1}, {"primitive_steps": 1}) is True
    assert step({"primitive_steps": 40}, {}) is True  # an info without the key counts 1
    assert cb.samples == 43
    assert step({"primitive_steps": 50}, {"primitive_steps": 6}) is True
    assert cb.samples == 99
    assert step({"primitive_steps": 1}) is False
    assert cb.samples == 100
