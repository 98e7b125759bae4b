"""rlgpt.rl.train: PPO over the enlarged action space, budgeted in primitive env steps."""

from __future__ import annotations

import json
from pathlib import Path

from rlgpt.rl.policy import load_policy
from rlgpt.rl.train import PrimitiveBudget, TrainSettings
from rlgpt.trial import Trial


def _settings(params, seed: int) -> TrainSettings:
    return TrainSettings(params=params, seed=seed, show_progress=False)


def test_tiny_run_writes_a_loadable_policy(tiny_run):
    result = tiny_run["result"]
    path = Path(result.checkpoint)
    assert path == tiny_run["root"] / "train" / "policy.zip"
    assert path.is_file()
    assert not list(path.parent.glob("*.tmp*")), "the temp file was renamed away"
    model = load_policy(path)
    assert model.action_space.n == 17 + len(tiny_run["cfg"].macro_actions) == 19
    rows = (path.parent / "curve.csv").read_text().splitlines()
    assert rows[0] == "samples,return,steps,success"
    samples = [int(r.split(",")[0]) for r in rows[1:]]
    assert samples == sorted(samples) and all(0 < s <= result.samples for s in samples)


def test_the_tiny_run_steps_a_fused_adam_which_its_saved_policy_keeps(tiny_run):
    """train.fused_adam (default): SB3's own Adam settings, fused into one kernel per step; a
    loaded policy (resume, warm start) goes on with the kind it was made with."""
    model = load_policy(tiny_run["result"].checkpoint)
    adam = model.policy.optimizer
    assert type(adam).__name__ == "Adam"
    assert adam.defaults["fused"] is True and adam.defaults["eps"] == 1e-5
    assert adam.state, "the saved optimizer state came back with it"


def test_fused_and_unfused_adam_take_the_same_steps_up_to_rounding():
    """The same algorithm: after many steps the two agree to float rounding, and they are
    not bit for bit the same (which is why it is an option, docs/speed.md)."""
    import torch

    runs = []
    for fused in (False, True):
        torch.manual_seed(0)
        net = torch.nn.Sequential(torch.nn.Linear(300, 64), torch.nn.Tanh(), torch.nn.Linear(64, 8))
        opt = torch.optim.Adam(net.parameters(), lr=5e-4, eps=1e-5, fused=fused)
        data = torch.Generator().manual_seed(1)
        for _ in range(200):
            x = (torch.rand(64, 300, generator=data) < 0.05).float()
            loss = net(x).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        runs.append(torch.cat([p.detach().flatten() for p in net.parameters()]))
    assert torch.allclose(runs[0], runs[1], rtol=1e-4, atol=1e-5)
    assert not torch.equal(runs[0], runs[1])


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


def test_the_learning_curve_has_a_row_per_training_episode_and_survives_a_resume(tmp_path):
    curve = tmp_path / "curve.csv"
    cb = PrimitiveBudget(1000, show=False, curve=curve)

    def step(rewards, dones, *infos):
        cb.locals = {"infos": list(infos), "rewards": rewards, "dones": dones}
        return cb._on_step()

    step([1.0, 0.5], [False, False], {"primitive_steps": 10}, {"primitive_steps": 3})
    step([2.0, 0.0], [True, False], {"primitive_steps": 5, "success": True}, {})
    step([0.0, -1.0], [False, True], {}, {"primitive_steps": 7})
    cb._on_training_end()
    rows = curve.read_text().splitlines()
    assert rows[0] == "samples,return,steps,success"
    # env 0 ended after 15 of its steps with return 3 and success; env 1 after 11, return -0.5
    assert rows[1:] == ["19,3.000,15,1", "27,-0.500,11,0"]
    resumed = PrimitiveBudget(1000, show=False, start=20, curve=curve)
    assert resumed.rows == ["19,3.000,15,1"], "rows after the checkpoint are played again"


def test_training_checkpoints_and_resumes_where_it_stopped(tmp_path):
    from rlgpt.config import TrainParams
    from rlgpt.messages import PPOConfig, RewardTerm, RLConfig
    from rlgpt.rl.train import train
    from rlgpt.worlds.crafter.author import write_action
    from rlgpt.worlds.crafter.tasks import get_task

    task = get_task("collect_wood")
    coded = [write_action("collect_wood", 40)]
    cfg = RLConfig(macro_actions=["collect_wood"], sample_budget=900,
                   reward_terms=[RewardTerm(achievement="collect_wood", weight=1.0)],
                   ppo=PPOConfig(n_steps=32, batch_size=32, n_epochs=1))  # fmt: skip
    params = TrainParams(n_envs=1, torch_threads=1, checkpoint_every=300)
    first = train(Trial.of(task, cfg, coded), tmp_path, settings=_settings(params, 0))
    meta = json.loads((tmp_path / "checkpoint.json").read_text())
    assert first.resumed_from == 0 and 300 <= meta["samples"] < 900
    assert (tmp_path / "checkpoint.zip").is_file()
    # a rerun of the same training (a retry after a crash) continues from the checkpoint
    again = train(Trial.of(task, cfg, coded), tmp_path, settings=_settings(params, 0))
    assert again.resumed_from == meta["samples"] and again.samples >= 900
    assert again.decisions > meta["num_timesteps"]
    # another seed is another training: no resume
    other = train(Trial.of(task, cfg, coded), tmp_path, settings=_settings(params, 1))
    assert other.resumed_from == 0


def test_the_next_iteration_continues_the_policy_only_on_the_same_action_space(tmp_path):
    import torch

    from rlgpt.config import TrainParams
    from rlgpt.messages import PPOConfig, RewardTerm, RLConfig
    from rlgpt.rl.train import train
    from rlgpt.worlds.crafter.author import write_action
    from rlgpt.worlds.crafter.tasks import get_task

    task = get_task("collect_wood")
    coded = [write_action("collect_wood", 40)]
    cfg = RLConfig(macro_actions=["collect_wood"], sample_budget=300, primitive_actions=[],
                   reward_terms=[RewardTerm(achievement="collect_wood", weight=1.0)],
                   ppo=PPOConfig(n_steps=32, batch_size=32, n_epochs=1))  # fmt: skip
    params = TrainParams(n_envs=1, torch_threads=1, checkpoint_every=0)
    first = train(Trial.of(task, cfg, coded), tmp_path / "a", settings=_settings(params, 0))
    assert first.warm_start_from is None and first.space
    # iteration 2 revises the code (same name, same place): the policy continues
    revised = [coded[0].model_copy(update={"source": coded[0].source + "\n"})]
    second = train(Trial.of(task, cfg, revised), tmp_path / "b", settings=_settings(params, 1),
                   previous=first)  # fmt: skip
    assert second.warm_start_from == first.checkpoint
    assert second.warm_start_sha256 and second.space == first.space
    before = load_policy(first.checkpoint).policy.state_dict()
    after = load_policy(second.checkpoint).policy.state_dict()
    fresh = train(Trial.of(task, cfg, coded), tmp_path / "c", settings=_settings(params, 1))
    scratch = load_policy(fresh.checkpoint).policy.state_dict()
    key = next(k for k in before if k.endswith("weight"))
    # continued weights stay near the first policy's; a fresh start is elsewhere
    assert torch.dist(after[key], before[key]) < torch.dist(scratch[key], before[key])
    # another action space (all 17 primitives back): a new policy
    wider = cfg.model_copy(update={"primitive_actions": None})
    third = train(Trial.of(task, wider, coded), tmp_path / "d", settings=_settings(params, 2),
                  previous=second)  # fmt: skip
    assert third.warm_start_from is None and third.space != second.space


def test_lean_turns_the_checks_and_the_full_collections_off_only_inside_and_restores_them():
    import gc

    import pytest
    import torch

    from rlgpt.rl.train import lean

    before = torch.distributions.Distribution._validate_args
    with pytest.raises(RuntimeError), lean():
        assert gc.get_freeze_count() > 0  # what existed before the loop is left alone
        assert torch.distributions.Distribution._validate_args is False
        # a bad distribution is no longer refused inside (the policy only makes valid ones)
        torch.distributions.Categorical(logits=torch.tensor([[float("nan"), 0.0]]))
        raise RuntimeError("the loop fails")
    assert gc.get_freeze_count() == 0
    assert torch.distributions.Distribution._validate_args is before
    # a freeze made before it (an outer lean, the caller) outlives a lean inside it: its count
    # stays (less the frozen objects freed meanwhile, which leave it), never unfrozen to 0
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with lean(), lean():
            assert frozen - 1000 < gc.get_freeze_count() <= frozen
        assert frozen - 1000 < gc.get_freeze_count() <= frozen
    finally:
        gc.unfreeze()
