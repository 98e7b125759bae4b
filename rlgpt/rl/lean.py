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

    python benchmarks/decision_cost.py    # one forward and one minibatch, before and after
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np
import torch as th
from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

# sb3-contrib's MaskableCategorical sets a masked action's logit to this before normalising
HUGE_NEG = -1e8


def lean_policy(policy: Any) -> None:
    """Give a MaskablePPO policy over one discrete action (the only kind rlgpt trains with masks)
    the lean `forward` and `evaluate_actions`; leave any other policy as it is."""
    if not isinstance(policy, MaskableActorCriticPolicy) or not isinstance(
        policy.action_dist, MaskableCategoricalDistribution
    ):
        return
    if not policy.share_features_extractor:
        return
    setattr(policy, "forward", types.MethodType(_forward, policy))  # noqa: B010 - the object's own
    setattr(policy, "evaluate_actions", types.MethodType(_evaluate_actions, policy))  # noqa: B010


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
