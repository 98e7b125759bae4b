"""Learned actions: a sub-action left to RL, trained as its own policy (docs/design.md).

Its episodes start where the sub-action starts (rlgpt/rl/starts.py) and end at its effect, a
death or its step budget (rlgpt/rl/shaping.py); its action space is the config's primitives and
coded actions (which run in their sandboxed workers, as in any training). It is judged as a
coded action is, on start states it never trained from: how often it reaches its effect
(its reach) before and after training, beside its coded version alone where one exists, with
its deaths and the calls that ran out of steps. A training that diverges (a weight that is not
finite) or in which no episode ends is excluded with the reason; a killed training resumes
from its last checkpoint.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from pydantic import BaseModel, Field
from sb3_contrib import MaskablePPO
from stable_baselines3.common.base_class import BaseAlgorithm
from stable_baselines3.common.callbacks import BaseCallback

from rlgpt.config import LearnParams, SandboxParams, TrainParams
from rlgpt.messages import CodedAction, LearnedConfig
from rlgpt.rl.envs import macro_faults
from rlgpt.rl.options import space_of
from rlgpt.rl.policy import Policy
from rlgpt.rl.runtime import MacroActionWrapper
from rlgpt.rl.shaping import LearnedEpisode, StartStates, signals
from rlgpt.rl.starts import (
    Start,
)
from rlgpt.sandbox.pool import MacroPool
from rlgpt.trial import LearnedAction
from rlgpt.worlds.base import World

log = logging.getLogger(__name__)


class LearnedResult(BaseModel):
    """One learned action's training and its judgement (train/learned/<name>/learned.json)."""

    name: str
    ok: bool
    reason: str = Field(default="", description="Why it stays out of the action space.")
    config: LearnedConfig | None = None
    policy: str = ""
    policy_sha256: str = ""
    config_sha256: str = ""
    samples: int = Field(default=0, description="Its training's steps and its start episodes'.")
    train_samples: int = 0
    start_samples: int = 0
    wall_s: float = 0.0
    samples_per_s: float = 0.0
    reach_before: float | None = None
    reach_after: float | None = None
    skill_reach: float | None = Field(default=None, description="Its coded version alone.")
    deaths_after: float | None = None
    out_of_steps_after: float | None = None
    held_out: int = 0
    starts: dict[str, int] = Field(default_factory=dict)
    resumed_from: int = 0
    warm_start_from: str | None = None
    first_success: int | None = None
    macro_faults: dict[str, str] = Field(
        default_factory=dict, description="Coded actions of its space that failed in training."
    )
    stopped: str = Field(default="", description="Why its training ended before its budget.")
    kept_start: str = Field(
        default="", description="Why the policy it started from joins instead of the trained one."
    )

    def action(self) -> LearnedAction:
        """The trained policy as training and evaluation insert it (it must have trained)."""
        if self.config is None or not self.policy:
            raise ValueError(f"learned action {self.name} has no trained policy")
        return LearnedAction(
            name=self.name, config=self.config, policy=self.policy, policy_sha256=self.policy_sha256
        )


def check_config(
    cfg: LearnedConfig, world: World, coded: list[str], params: LearnParams
) -> list[str]:
    """What keeps `cfg` from training, one sentence each (empty: it can train): the fast agent
    gets them back to repair its config."""
    problems = []
    achievements = set(world.achievement_rewards())
    if cfg.name not in achievements:
        problems.append(
            f"'{cfg.name}' is no achievement of the game: a learned action must be "
            "named after the achievement it reaches"
        )
    unknown = [t.achievement for t in cfg.reward_terms if t.achievement not in achievements]
    if unknown:
        problems.append(f"unknown reward term achievement(s) {unknown}")
    known = signals(world.vitals)
    bad = [t.signal for t in cfg.shaping if t.signal not in known]
    if bad:
        problems.append(f"unknown shaping signal(s) {bad}; the signals are {sorted(known)}")
    odd = [m for m in cfg.macro_actions if m not in coded]
    if odd:
        problems.append(
            f"macro_actions {odd} are not coded actions that passed validation (those are {coded})"
        )
    prims = world.primitives()
    if cfg.primitive_actions is not None:
        wrong = [p for p in cfg.primitive_actions if p not in prims]
        if wrong:
            problems.append(f"unknown primitive action(s) {wrong}")
        if not cfg.primitive_actions and not cfg.macro_actions:
            problems.append("its action space is empty: keep primitives or coded actions")
    if cfg.sample_budget > params.sample_budget:
        problems.append(
            f"sample_budget {cfg.sample_budget} is beyond the run's "
            f"{params.sample_budget} per learned action "
            "(learn.sample_budget)"
        )
    if cfg.step_budget > params.step_budget:
        problems.append(
            f"step_budget {cfg.step_budget} is beyond the run's {params.step_budget}"
            " (learn.step_budget)"
        )
    if cfg.step_budget * 4 > cfg.sample_budget:
        problems.append(
            f"step_budget {cfg.step_budget} leaves fewer than 4 episodes in a "
            f"sample_budget of {cfg.sample_budget}"
        )
    return problems


def learned_env(
    world: World, cfg: LearnedConfig, coded: list[CodedAction], starts: StartStates,
    train: TrainParams, sandbox: SandboxParams,
) -> MacroActionWrapper:  # fmt: skip
    """One env of a learned action: its episodes over the world's validation env (episodes go
    on after an effect there, so the start state decides), its space and its recipe mask."""
    base = world.validation_env(cfg.name, train.view_radius)
    episode = LearnedEpisode(base, cfg, starts, world.vitals)  # type: ignore[arg-type]
    prims, names, rule = space_of(world, cfg)
    inserted = [c for c in coded if c.name in names]
    pool = MacroPool(
        inserted, world.skills(), sandbox.isolation, sandbox.reply_timeout_s,
        step_cpu_ms=sandbox.step_cpu_ms, run_memory_mib=sandbox.run_memory_mib,
    )  # fmt: skip
    budget = max([train.macro_step_budget, *[c.step_budget for c in inserted]])
    budget = min(budget, cfg.code_steps or budget)
    return MacroActionWrapper(
        episode, [c.name for c in inserted], pool, all_primitives=world.primitives(),
        vitals=world.vitals, step_budget=budget, no_effect_penalty=0.0, primitives=prims,
        mask=rule, recall=world.recalls(cfg.name),
    )  # fmt: skip


class Reach(BaseModel):
    """How a policy did from held-out start states."""

    reach: float
    deaths: float
    out_of_steps: float
    steps: int
    faults: dict[str, str] = {}  # coded actions that failed in these episodes, and how


def reach(
    world: World, cfg: LearnedConfig, coded: list[CodedAction], held: list[Start],
    act: Callable[[np.ndarray, MacroActionWrapper], int], train: TrainParams,
    *, sandbox: SandboxParams, seed: int,
) -> Reach:  # fmt: skip
    """Play one episode from each held-out start (in order) with `act`."""
    starts = StartStates([[s.blob for s in held]], seed)
    order = iter(range(len(held)))
    starts.draw = lambda: held[next(order)].blob  # type: ignore[method-assign]
    env = learned_env(world, cfg, coded, starts, train, sandbox)
    effect = deaths = out = steps = 0
    try:
        for i in range(len(held)):
            torch.manual_seed(seed + i)
            obs, _ = env.reset()
            done = False
            info: dict[str, Any] = {}
            while not done:
                obs, _, term, trunc, info = env.step(act(obs, env))
                steps += int(info["primitive_steps"])
                done = term or trunc
            effect += int(bool(info.get("success")))
            deaths += int(bool(info.get("died")))
            out += int(not info.get("success") and not info.get("died"))
        faults = macro_faults([env])
    finally:
        env.close()
    n = max(1, len(held))
    return Reach(
        reach=effect / n, deaths=deaths / n, out_of_steps=out / n, steps=steps, faults=faults
    )


def policy_act(model: Policy) -> Callable[[np.ndarray, MacroActionWrapper], int]:
    def act(obs: np.ndarray, env: MacroActionWrapper) -> int:
        if isinstance(model, MaskablePPO):
            a, _ = model.predict(obs, deterministic=False, action_masks=env.action_masks())
        else:
            a, _ = model.predict(obs, deterministic=False)
        return int(np.asarray(a).item())

    return act


def skill_act(name: str) -> Callable[[np.ndarray, MacroActionWrapper], int]:
    """Its coded version alone: called again and again (a noop tick while the mask forbids)."""

    def act(obs: np.ndarray, env: MacroActionWrapper) -> int:
        i = env.index_of(name)
        return i if env.action_masks()[i] else env.primitives.index("noop")

    return act


def all_finite(model: BaseAlgorithm) -> bool:
    """Whether every weight of the policy is a finite number."""
    return all(bool(torch.isfinite(p).all()) for p in model.policy.parameters())


class Finite(BaseCallback):
    """Stops a training whose weights are no longer finite (it diverged)."""

    def __init__(self) -> None:
        super().__init__()
        self.diverged = False

    def _on_step(self) -> bool:
        return not self.diverged

    def _on_rollout_end(self) -> None:
        if not all_finite(self.model):
            self.diverged = True


class Learnt(BaseCallback):
    """Stops a training once `share` of its last `window` finished training episodes reached
    the effect (the rows of `rows()`, the curve's: `samples,return,steps,won`), and as large a
    share of those among them that started from each group of start states (`groups()`: each
    row's group, for the rows since the process began; staged states, the task's own): a
    learned action that reaches its effect from easy staged states while the task's own states
    still fail trains on. `why` says when. With `share` None it never stops one."""

    def __init__(
        self, rows: Callable[[], list[str]], share: float | None, window: int,
        groups: Callable[[], list[int]] | None = None,
    ) -> None:  # fmt: skip
        super().__init__()
        self.rows, self.share, self.window = rows, share, window
        self.groups = groups or (lambda: [])
        self.why = ""
        self._seen = 0

    def _on_step(self) -> bool:
        rows = self.rows()
        if self.share is None or len(rows) == self._seen or len(rows) < self.window:
            return True
        self._seen = len(rows)
        recent = [r.endswith(",1") for r in rows[-self.window :]]
        won = sum(recent)
        if won < self.share * self.window:
            return True
        groups = self.groups()
        tags = ([-1] * len(rows) + groups)[-self.window :]  # -1: a row from before a resume
        for g in set(tags) - {-1}:
            mine = [w for w, t in zip(recent, tags, strict=True) if t == g]
            if sum(mine) < self.share * len(mine):
                return True
        samples = int(rows[-1].split(",", 1)[0])
        self.why = (
            f"reached its effect in {won} of its last {self.window} training episodes at "
            f"{samples:,} samples, from each group of start states alike "
            f"(learn.stop_reach {self.share:g})"
        )
        return False


# How much a fresh learned action prefers its own code: e^3, about 20 times any other action,
# so it calls its code about half the time at first (of 17 primitives and a few coded actions)
CODE_PRIOR = 3.0


def start_as_its_code(model: BaseAlgorithm, cfg: LearnedConfig, world: World) -> bool:
    """A fresh learned action whose own code is in its space starts out calling it: the bias
    of that action's logit is raised by CODE_PRIOR, so learning starts from the code and
    learns where to do otherwise (eat, flee, rest, fight), rather than from chance. The
    weights are the network's own; nothing else changes. Returns whether it applied."""
    prims, coded, _ = space_of(world, cfg)
    if cfg.name not in coded:
        return False
    index = len(prims) + coded.index(cfg.name)
    with torch.no_grad():
        model.policy.action_net.bias[index] += CODE_PRIOR  # type: ignore[union-attr,index,operator]
    return True


def space_key(cfg: LearnedConfig, world: World, train: TrainParams) -> str:
    """What a learned action's weights mean: its space, observation (what its world recalls
    into it: World.recalls) and network."""
    recall = world.recalls(cfg.name)
    parts = [cfg.name, cfg.primitive_actions, cfg.macro_actions, cfg.ppo.model_dump(mode="json"),
             train.view_radius, *([list(recall)] if recall else [])]  # fmt: skip
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()
