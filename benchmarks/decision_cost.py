"""What one PPO decision costs the training process, with and without what `lean()` and the
mask's memo leave out (rlgpt/rl/train.py, rlgpt/worlds/crafter/masking.py).

Measured on rlgpt's own policy (MaskablePPO's MlpPolicy, the default net_arch, the symbolic
observation of Crafter) in this one process, in interleaved rounds (medians):
- `forward`: the policy's forward pass for one vec step (n_envs observations, their masks),
  as collect_rollouts calls it;
- `update`: one PPO minibatch (evaluate_actions on batch_size samples, backward), as
  MaskablePPO.train runs it;
each with torch's distribution argument checks on (as before) and off (inside `lean()`), and
with rlgpt.rl.lean's policy calls (checks off), and with them and train.sparse_input's input
layers (what a training runs now);
- `mask`: the plan mask of make_stone_pickaxe over the states of a random episode, planned
  for each decision (as before) and from the memo (each state's second look).

    python benchmarks/decision_cost.py        # ~1 min here

Ends with one JSON line of microseconds per call and the ratios before / now.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable

import gymnasium as gym
import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from rlgpt.config import Params
from rlgpt.rl.lean import lean_policy
from rlgpt.worlds.crafter.env import CrafterEnv
from rlgpt.worlds.crafter.masking import ActionMask
from rlgpt.worlds.crafter.recipes import actions
from rlgpt.worlds.crafter.tasks import get_task

CODED = ["place_table", "make_wood_pickaxe", "make_stone_pickaxe"]


def _us(fn: Callable[[], object], n: int) -> float:
    for _ in range(max(5, n // 20)):
        fn()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--scale", type=float, default=1.0, help="share of the default calls timed")
    args = ap.parse_args()

    def n(calls: int) -> int:
        return max(1, int(calls * args.scale))

    params = Params().train
    torch.set_num_threads(params.torch_threads)
    env = CrafterEnv(get_task("make_stone_pickaxe"))
    obs, info = env.reset(seed=0)
    prims = actions()
    n_act = len(prims) + len(CODED)
    policy, leaner, sparse = (
        MaskableActorCriticPolicy(
            env.observation_space,
            gym.spaces.Discrete(n_act),
            lambda _: params.ppo.learning_rate,
            net_arch=list(params.ppo.net_arch),
        )
        for _ in range(3)
    )
    leaner.load_state_dict(policy.state_dict())
    lean_policy(leaner)
    sparse.load_state_dict(policy.state_dict())
    lean_policy(sparse, sparse_input=True)
    rule = ActionMask("make_stone_pickaxe", CODED, prims, ordered=True)
    rng = np.random.default_rng(0)
    states, observations = [], []
    for _ in range(2000):  # a random episode's decisions
        obs, _, term, trunc, info = env.step(int(rng.integers(len(prims))))
        states.append((info["inventory"], info["achievements"], env.standing()))
        observations.append(obs)
        if term or trunc:
            obs, info = env.reset(seed=1)
    # a minibatch as PPO draws one: observations from all over the rollout, shuffled
    drawn = rng.choice(len(observations), params.ppo.batch_size, replace=False)
    batch = torch.as_tensor(np.stack([observations[i] for i in drawn]))
    acts = torch.zeros(params.ppo.batch_size)
    masks = np.ones((params.ppo.batch_size, n_act), bool)
    held = torch.as_tensor(masks)  # as the rollout buffer hands them to PPO's update
    vec = batch[: params.n_envs]

    def forward(policy: MaskableActorCriticPolicy = policy) -> None:
        with torch.no_grad():
            policy(vec, action_masks=masks[: params.n_envs])

    def update(policy: MaskableActorCriticPolicy = policy) -> None:
        values, log_prob, entropy = policy.evaluate_actions(batch, acts, action_masks=held)
        assert entropy is not None
        policy.optimizer.zero_grad()
        (values.mean() + log_prob.mean() + entropy.mean()).backward()

    def planned() -> None:
        for inv, ach, standing in states:
            rule._mask(inv, ach, lambda n: False, standing)

    def memo() -> None:
        for inv, ach, standing in states:
            rule(inv, ach, lambda n: False, standing)

    memo()  # every state once in the memo: the timed passes are second looks
    runs: dict[str, list[float]] = {}
    for _ in range(args.rounds):
        for checks in (True, False):
            torch.distributions.Distribution.set_default_validate_args(checks)
            tag = "checks" if checks else "lean"
            runs.setdefault(f"forward_{tag}", []).append(_us(forward, n(1000)))
            runs.setdefault(f"update_{tag}", []).append(_us(update, n(200)))
        runs.setdefault("forward_lean_policy", []).append(_us(lambda: forward(leaner), n(1000)))
        runs.setdefault("update_lean_policy", []).append(_us(lambda: update(leaner), n(200)))
        runs.setdefault("update_sparse_input", []).append(_us(lambda: update(sparse), n(200)))
        runs.setdefault("mask_planned", []).append(_us(planned, n(3)) / len(states))
        runs.setdefault("mask_memo", []).append(_us(memo, n(3)) / len(states))
    us = {k: round(statistics.median(v), 1) for k, v in runs.items()}
    out = {
        "us_per_call": us,
        "rounds": args.rounds,
        "forward_before_over_now": round(us["forward_checks"] / us["forward_lean"], 2),
        "update_before_over_now": round(us["update_checks"] / us["update_lean"], 2),
        "forward_over_lean_policy": round(us["forward_lean"] / us["forward_lean_policy"], 2),
        "update_over_lean_policy": round(us["update_lean"] / us["update_lean_policy"], 2),
        "update_over_sparse_input": round(us["update_lean"] / us["update_sparse_input"], 2),
        "mask_before_over_now": round(us["mask_planned"] / us["mask_memo"], 2),
    }
    print(
        f"policy forward, {params.n_envs} envs: {us['forward_checks']:.0f} -> "
        f"{us['forward_lean']:.0f} us; PPO minibatch of {params.ppo.batch_size}: "
        f"{us['update_checks']:.0f} -> {us['update_lean']:.0f} us; with rlgpt.rl.lean's policy: "
        f"forward {us['forward_lean_policy']:.0f} us, minibatch {us['update_lean_policy']:.0f} us "
        f"({us['update_sparse_input']:.0f} with train.sparse_input); "
        f"plan mask: "
        f"{us['mask_planned']:.1f} -> {us['mask_memo']:.1f} us per decision"
    )
    print(json.dumps(out))


if __name__ == "__main__":
    main()
