"""Learned actions as options of a task's action space.

A learned action is a policy trained on its own sub-action (rlgpt/rl/learned.py). Inserted into
a task's action space beside the coded actions, choosing it runs its policy in the trusted
process: each decision picks one of its own actions (a primitive, or a coded action inserted
into *its* space, which runs in its sandboxed worker as any coded action does) until its
effect (its achievement rises once), the episode's end (a death), or its step budget. Samples
are primitive env steps, as for coded actions. No generated code runs here: the policy is a
network rlgpt trained.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
from sb3_contrib import MaskablePPO

from rlgpt.messages import LearnedConfig, TaskSpec
from rlgpt.rl.policy import load_policy
from rlgpt.trial import LearnedAction
from rlgpt.worlds.base import MaskRule, World


def option_task(world: World, name: str) -> TaskSpec:
    """The task a learned action's own space is masked for: its sub-action's achievement."""
    return TaskSpec(name=f"learn:{name}", achievement=name, description="learned action",
                    max_episode_steps=10_000, world=world.name)  # fmt: skip


def space_of(world: World, cfg: LearnedConfig) -> tuple[list[str], list[str], MaskRule]:
    """A learned action's own action space: its primitives, its coded actions, and the rule
    that masks them (the world's recipe mask: a coded action whose precondition fails, or
    whose effect already holds, is hidden; and, where the world can tell, a primitive that
    cannot act now or would spend what its effect needs)."""
    prims = world.primitives() if cfg.primitive_actions is None else list(cfg.primitive_actions)
    coded = list(cfg.macro_actions)
    rule = world.action_mask(option_task(world, cfg.name), coded, prims, False, learned=True)
    return prims, coded, rule


@functools.lru_cache(maxsize=32)
def _load(path: str, sha: str) -> Any:
    """One loaded policy per file and content in a process: the envs of a training share it."""
    return load_policy(path)


class LearnedOption:
    """One learned action, ready to run: its policy, its space, its mask, its budget."""

    def __init__(self, world: World, action: LearnedAction) -> None:
        self.name = action.name
        self.cfg = action.config
        self.prims, self.coded, self.rule = space_of(world, action.config)
        self.model = _load(action.policy, action.policy_sha256)
        self.step_budget = action.config.step_budget
        self.code_steps = action.config.code_steps
        self.recall = world.recalls(action.name)
        self._inputs = int(self.model.observation_space.shape[0])

    def mask(
        self,
        info: Mapping[str, Any],
        disabled: Callable[[str], bool],
        standing: Mapping[str, bool],
    ) -> np.ndarray:
        return self.rule(info["inventory"], info["achievements"], disabled, standing)

    def act(self, obs: np.ndarray, mask: np.ndarray, env: Any) -> tuple[str, bool]:
        """Its next action from the task's observation and world env `env` (what the world
        recalls is added where its policy was trained with it): a name, and whether it is a
        coded action."""
        if self.recall and obs.shape[0] < self._inputs:
            obs = np.concatenate([obs, env.recall(self.recall)])
        if isinstance(self.model, MaskablePPO):
            a, _ = self.model.predict(obs, deterministic=False, action_masks=mask)
        else:
            a, _ = self.model.predict(obs, deterministic=False)
        i = int(np.asarray(a).item())
        if i < len(self.prims):
            return self.prims[i], False
        return self.coded[i - len(self.prims)], True


def policy_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
