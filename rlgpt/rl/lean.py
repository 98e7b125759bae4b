"""A masked policy's two hot calls without the distribution objects around them.

MaskablePPO calls its policy's `forward` once per vec step of a rollout and `evaluate_actions`
once per minibatch of an update. Both build a `MaskableCategorical`, which normalises the logits,
masks them and normalises them again, each through a torch `Distribution` (its constructor, its
lazy properties, `broadcast_tensors` in `log_prob`): about a quarter of a rollout's forward pass
here, for a tensor of n_envs x actions. `lean_policy` gives a MaskablePPO's policy the same
arithmetic without those objects: the same torch operations on the same tensors in the same
order, so the actions sampled (the same draw of torch's generator), their log-probabilities, the
values, the entropy and every gradient are bit for bit those of sb3-contrib's
(tests/unit/test_lean_policy.py). It is set on the policy object, not its class: a saved policy
is sb3-contrib's as before, and `rlgpt.rl.policy` sets it again on every load.

With `sparse_input` (train.sparse_input), an MLP policy's two input layers (policy and value)
also skip, in an update's minibatch, the input columns that are zero in every row: a symbolic
observation is one-hot (about 116 of Crafter's 1,687 inputs are 1 in an observation, about 450
columns in a minibatch of 64), and these two products are most of a minibatch's arithmetic. A
zero column adds nothing to the product and gets a zero gradient either way, so the update is
the same algorithm; its sums run in another order, so its float rounding is not the dense
product's (hence an option, as train.fused_adam). Rollouts and evaluations (no gradient) keep
the dense product.

    python benchmarks/decision_cost.py    # one forward and one minibatch, before and after
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np
import torch as th
from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.policies import ActorCriticPolicy
from stable_baselines3.common.torch_layers import FlattenExtractor
from torch import nn
from torch.nn import functional as F  # noqa: N812 - torch's own name

# sb3-contrib's MaskableCategorical sets a masked action's logit to this before normalising
HUGE_NEG = -1e8


def lean_policy(policy: Any, *, sparse_input: bool = False) -> None:
    """Give a MaskablePPO policy over one discrete action (the only kind rlgpt trains with masks)
    the lean `forward` and `evaluate_actions`; with `sparse_input`, give an MLP policy's input
    layers the sparse product of its updates. Leave any other policy as it is."""
    mlp = isinstance(policy, ActorCriticPolicy | MaskableActorCriticPolicy) and isinstance(
        policy.features_extractor, FlattenExtractor
    )
    for net in (policy.mlp_extractor.policy_net, policy.mlp_extractor.value_net) if mlp else ():
        if sparse_input and len(net) and type(net[0]) is nn.Linear:
            net[0].__class__ = ActiveColumns  # the same parameters, names and state
    if not (
        isinstance(policy, MaskableActorCriticPolicy)
        and isinstance(policy.action_dist, MaskableCategoricalDistribution)
        and policy.share_features_extractor
    ):
        return
    setattr(policy, "forward", types.MethodType(_forward, policy))  # noqa: B010 - the object's own
    setattr(policy, "evaluate_actions", types.MethodType(_evaluate_actions, policy))  # noqa: B010


class ActiveColumns(nn.Linear):
    """nn.Linear whose product, where a gradient is taken over a batch, leaves out the input
    columns that are zero in every row of it (when they are at least half the columns).

    The policy's and the value's input layers read the same minibatch: its active columns and
    its narrowed copy are found once, by the first (`_active`), and reused by the second."""

    MIN_ROWS = 16  # a rollout's few rows gain nothing: the weights are read whole either way

    def forward(self, input: th.Tensor) -> th.Tensor:  # noqa: A002 - nn.Linear's own name
        if input.dim() != 2 or input.shape[0] < self.MIN_ROWS or not th.is_grad_enabled():
            return F.linear(input, self.weight, self.bias)
        active, narrow = _active(input)
        if narrow is None:
            return F.linear(input, self.weight, self.bias)
        return F.linear(narrow, self.weight.index_select(1, active), self.bias)


# the last minibatch's (tensor, its version, active columns, narrowed copy or None): one entry,
# replaced whole, so a reader in another thread sees one consistent tuple or misses
_last_active: tuple[th.Tensor, int, th.Tensor, th.Tensor | None] | None = None


def _active(input: th.Tensor) -> tuple[th.Tensor, th.Tensor | None]:  # noqa: A002
    """The input's columns that are not zero in every row (`input.any(dim=0)`, read as a sum of
    magnitudes: only an all-zero column sums to zero, and a NaN stays nonzero), and the input
    narrowed to them, or None where they are more than half its columns."""
    global _last_active
    last = _last_active
    if last is not None and last[0] is input and last[1] == input._version:
        return last[2], last[3]
    active = input.detach().abs().sum(dim=0).nonzero().squeeze(1)
    narrow = None if 2 * active.numel() > input.shape[1] else input.index_select(1, active)
    _last_active = (input, input._version, active, narrow)
    return active, narrow


def _masked_logits(logits: th.Tensor, masks: Any) -> tuple[th.Tensor, th.Tensor]:
    """MaskableCategorical's logits: normalised, masked, normalised again; and the masks."""
    normal = logits - logits.logsumexp(dim=-1, keepdim=True)
    held = th.as_tensor(masks, dtype=th.bool, device=logits.device).reshape(normal.shape)
    masked = th.where(held, normal, th.tensor(HUGE_NEG, dtype=normal.dtype, device=normal.device))
    return masked - masked.logsumexp(dim=-1, keepdim=True), held


def _log_prob(logits: th.Tensor, actions: th.Tensor) -> th.Tensor:
    """Categorical.log_prob: the normalised logit of each action."""
    return logits.gather(-1, actions.long().unsqueeze(-1)).squeeze(-1)


def _forward(
    self: MaskableActorCriticPolicy,
    obs: th.Tensor,
    deterministic: bool = False,
    action_masks: np.ndarray | None = None,
) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
    if deterministic or action_masks is None:
        return MaskableActorCriticPolicy.forward(self, obs, deterministic, action_masks)
    latent_pi, latent_vf = self.mlp_extractor(self.extract_features(obs))
    values = self.value_net(latent_vf)
    logits, _ = _masked_logits(self.action_net(latent_pi), action_masks)
    probs = th.softmax(logits, dim=-1)
    # Categorical.sample: one draw per row of the probabilities
    actions = th.multinomial(probs.reshape(-1, probs.shape[-1]), 1, True).T
    actions = actions.reshape(probs.shape[:-1])
    log_prob = _log_prob(logits, actions)
    return actions.reshape(-1), values, log_prob  # a Discrete action space: shape ()


def _evaluate_actions(
    self: MaskableActorCriticPolicy,
    obs: th.Tensor,
    actions: th.Tensor,
    action_masks: th.Tensor | None = None,
) -> tuple[th.Tensor, th.Tensor, th.Tensor | None]:
    if action_masks is None:
        return MaskableActorCriticPolicy.evaluate_actions(self, obs, actions, action_masks)
    latent_pi, latent_vf = self.mlp_extractor(self.extract_features(obs))
    logits, held = _masked_logits(self.action_net(latent_pi), action_masks)
    log_prob = _log_prob(logits, actions)
    values = self.value_net(latent_vf)
    # MaskableCategorical.entropy: a masked action adds nothing
    p_log_p = logits * th.softmax(logits, dim=-1)
    p_log_p = th.where(held, p_log_p, th.tensor(0.0, device=logits.device))
    return values, log_prob, -p_log_p.sum(-1)
