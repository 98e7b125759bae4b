"""rlgpt.rl.lean: a masked policy's forward and evaluate_actions without the distribution objects
give bit for bit what sb3-contrib's give: samples, log-probabilities, values, entropy,
gradients, and a whole training's weights."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.envs import InvalidActionEnvDiscrete
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3 import PPO

from rlgpt.rl.lean import lean_policy
from rlgpt.rl.policy import load_policy

N_ACT = 20


def _pair() -> tuple[MaskableActorCriticPolicy, MaskableActorCriticPolicy]:
    obs_space = gym.spaces.Box(0.0, 1.0, (37,), np.float32)
    plain = MaskableActorCriticPolicy(obs_space, gym.spaces.Discrete(N_ACT), lambda _: 5e-4)
    lean = MaskableActorCriticPolicy(obs_space, gym.spaces.Discrete(N_ACT), lambda _: 5e-4)
    lean.load_state_dict(plain.state_dict())
    lean_policy(lean)
    return plain, lean


def _masks(rng: np.random.Generator, n: int) -> np.ndarray:
    masks = rng.random((n, N_ACT)) < 0.4
    masks[0] = False
    masks[0, 7] = True  # one row with a single action allowed
    masks[np.arange(n), rng.integers(N_ACT, size=n)] = True  # every row allows one at least
    return masks


def test_forward_samples_the_same_actions_with_the_same_numbers():
    plain, lean = _pair()
    rng = np.random.default_rng(0)
    for seed in range(5):
        obs = torch.as_tensor(rng.random((4, 37), dtype=np.float32))
        masks = _masks(rng, 4)
        out = []
        for policy in (plain, lean):
            torch.manual_seed(seed)
            with torch.no_grad():
                out.append(policy(obs, action_masks=masks))
        for a, b in zip(*out, strict=True):
            assert a.shape == b.shape and torch.equal(a, b)
        assert all(masks[i, a] for i, a in enumerate(out[1][0].tolist()))


def test_evaluate_actions_gives_the_same_values_entropy_and_gradients():
    plain, lean = _pair()
    rng = np.random.default_rng(1)
    obs = torch.as_tensor(rng.random((64, 37), dtype=np.float32))
    masks = torch.as_tensor(_masks(rng, 64))
    actions = torch.as_tensor([int(rng.choice(np.flatnonzero(m))) for m in masks.numpy()])
    grads = []
    for policy in (plain, lean):
        values, log_prob, entropy = policy.evaluate_actions(obs, actions, action_masks=masks)
        assert entropy is not None
        policy.optimizer.zero_grad()
        (values.mean() - log_prob.mean() - 0.01 * entropy.mean()).backward()
        grads.append(([values, log_prob, entropy], [p.grad for p in policy.parameters()]))
    (out_a, grad_a), (out_b, grad_b) = grads
    assert all(torch.equal(a, b) for a, b in zip(out_a, out_b, strict=True))
    assert all(torch.equal(a, b) for a, b in zip(grad_a, grad_b, strict=True))
    assert any(bool(g.abs().sum() > 0) for g in grad_b)


def test_without_masks_and_deterministic_it_is_sb3_contribs_own():
    plain, lean = _pair()
    obs = torch.rand(3, 37)
    with torch.no_grad():
        assert torch.equal(plain(obs, deterministic=True)[0], lean(obs, deterministic=True)[0])
        torch.manual_seed(3)
        a = plain(obs)
        torch.manual_seed(3)
        b = lean(obs)
    assert all(torch.equal(x, y) for x, y in zip(a, b, strict=True))


def test_a_training_ends_with_the_same_weights_and_a_saved_policy_loads_lean(tmp_path):
    weights = []
    for lean in (False, True):
        env = InvalidActionEnvDiscrete(dim=N_ACT, n_invalid_actions=8)
        model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=2, seed=0)
        if lean:
            lean_policy(model.policy)
            assert "forward" in vars(model.policy)
        model.learn(256)
        weights.append(model.policy.state_dict())
    assert all(torch.equal(weights[0][k], weights[1][k]) for k in weights[0])
    model.save(tmp_path / "policy.zip")
    loaded = load_policy(tmp_path / "policy.zip")
    assert isinstance(loaded, MaskablePPO) and "evaluate_actions" in vars(loaded.policy)
    plain = PPO("MlpPolicy", "CartPole-v1", n_steps=32, batch_size=32, device="cpu")
    lean_policy(plain.policy)  # not a masked policy: left as it is
    assert "forward" not in vars(plain.policy)


def test_sparse_input_updates_are_the_dense_products_up_to_rounding():
    """train.sparse_input: an update's input layers skip the columns zero in every row of the
    minibatch: the same values and gradients up to float rounding, a zero gradient for each
    skipped column, and the dense product itself where no gradient is taken (rollouts)."""
    dense, sparse = _pair()
    lean_policy(sparse, sparse_input=True)
    first = sparse.mlp_extractor.policy_net[0]
    assert type(first).__name__ == "ActiveColumns"
    assert type(sparse.mlp_extractor.value_net[0]).__name__ == "ActiveColumns"
    assert sparse.state_dict().keys() == dense.state_dict().keys()
    rng = np.random.default_rng(2)
    obs = np.zeros((64, 37), np.float32)
    obs[:, :30] = rng.random((64, 30)) < 0.1  # one-hot-like: columns 30.. zero in every row
    obs = torch.as_tensor(obs)
    masks = torch.as_tensor(_masks(rng, 64))
    actions = torch.as_tensor([int(rng.choice(np.flatnonzero(m))) for m in masks.numpy()])
    outs, grads = [], []
    for policy in (dense, sparse):
        values, log_prob, entropy = policy.evaluate_actions(obs, actions, action_masks=masks)
        assert entropy is not None
        policy.optimizer.zero_grad()
        (values.mean() - log_prob.mean() - 0.01 * entropy.mean()).backward()
        outs.append(torch.cat([values.flatten(), log_prob, entropy]))
        grads.append([p.grad.clone() for p in policy.parameters()])
    assert torch.allclose(outs[0], outs[1], rtol=1e-5, atol=1e-6)
    assert all(torch.allclose(a, b, rtol=1e-4, atol=1e-7) for a, b in zip(*grads, strict=True))
    skipped = obs.abs().sum(0) == 0
    assert bool(skipped.any()) and bool((first.weight.grad[:, skipped] == 0).all())
    with torch.no_grad():  # a rollout's forward: the dense product, bit for bit
        torch.manual_seed(5)
        a = dense(obs[:4], action_masks=masks[:4].numpy())
        torch.manual_seed(5)
        b = sparse(obs[:4], action_masks=masks[:4].numpy())
        assert all(torch.equal(x, y) for x, y in zip(a, b, strict=True))
        assert torch.equal(first(obs), torch.nn.functional.linear(obs, first.weight, first.bias))


def test_sparse_input_leaves_an_image_policy_dense():
    from stable_baselines3.common.policies import ActorCriticCnnPolicy

    space = gym.spaces.Box(0, 255, (3, 64, 64), np.uint8)
    image = ActorCriticCnnPolicy(space, gym.spaces.Discrete(4), lambda _: 1e-3)
    lean_policy(image, sparse_input=True)
    assert all(type(m).__name__ != "ActiveColumns" for m in image.modules())
    plain = PPO("MlpPolicy", "CartPole-v1", n_steps=32, batch_size=32, device="cpu")
    lean_policy(plain.policy, sparse_input=True)  # an unmasked MLP policy: its input layers too
    assert type(plain.policy.mlp_extractor.value_net[0]).__name__ == "ActiveColumns"


def test_active_columns_are_the_columns_any_row_holds_found_once_per_minibatch():
    """The active columns are `input.any(dim=0)`'s for every kind of column (one whose values
    cancel, a negative zero, a subnormal), found once for the two input layers of a minibatch
    and again after the minibatch changes in place."""
    from rlgpt.rl import lean

    x = torch.zeros(32, 10)
    x[0, 1], x[1, 1] = 1.0, -1.0  # sums to zero, yet held
    x[:, 2] = -0.0  # zero in every row
    x[3, 4] = 1e-45  # a subnormal
    x[5, 7] = 1.0
    active, narrow = lean._active(x)
    assert torch.equal(active, x.any(dim=0).nonzero().squeeze(1))
    assert active.tolist() == [1, 4, 7] and narrow is not None
    assert torch.equal(narrow, x[:, [1, 4, 7]])
    again, narrow_again = lean._active(x)
    assert again is active and narrow_again is narrow  # the second layer's: the same
    x[6, 9] = 2.0  # changed in place: found afresh
    assert lean._active(x)[0].tolist() == [1, 4, 7, 9]
    dense = torch.ones(32, 10)  # every column held: no narrowed copy
    assert lean._active(dense)[1] is None
