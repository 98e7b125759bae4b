"""Evaluate a trained policy: success, sub-goal rates, macro usage, dead loops, a table."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch
from sb3_contrib import MaskablePPO

from rlgpt.config import EvalParams, SandboxParams, TrainParams
from rlgpt.messages import EvalReport
from rlgpt.rl.envs import macro_faults, make_env
from rlgpt.rl.policy import load_policy
from rlgpt.rl.progress import Progress
from rlgpt.rl.runtime import MacroActionWrapper, items
from rlgpt.rl.schema import EPISODES
from rlgpt.rl.train import lean
from rlgpt.trial import Trial

EVAL_SEED_BASE = 1_000_000
# Selection episodes (eval.selection_episodes) play other worlds: what chooses a policy never
# sees the episodes that report it.
SELECTION_SEED_BASE = 2_000_000
# A policy that is not a checkpoint (the coded actions chained by the plan, no RL): the action
# for an observation, the last step's info and the env.
Act = Callable[[np.ndarray, dict[str, Any], MacroActionWrapper], int]


class _Progress:
    """Tracks when an episode last made progress and where it walked since."""

    def __init__(self, info: dict[str, Any], vitals: frozenset[str]) -> None:
        self.vitals = vitals
        self.key = self._key(info)
        self.last_step = 0
        self.cells: set[tuple[int, int]] = set()

    def _key(self, info: dict[str, Any]) -> tuple[Any, ...]:
        held = items(info["inventory"], self.vitals)
        return (tuple(held.items()), tuple(info["achievements"].items()))

    def update(self, info: dict[str, Any], step: int) -> None:
        key = self._key(info)
        if key != self.key:
            self.key, self.last_step, self.cells = key, step, set()
        self.cells.add(info["player_pos"])

    def stuck(self, step: int, window: int) -> bool:
        return step - self.last_step >= window and len(self.cells) <= max(4, window // 10)


@dataclass(frozen=True, kw_only=True)
class EvalSettings:
    """How a trial's policy is judged: `params.episodes` episodes on held-out seeds (from
    `seed_base`: the evaluation's, or the selection's, apart from training's `seed`), played
    with the training's env settings `train`; `samples`: what the policy was trained on (the
    report carries it)."""

    params: EvalParams
    train: TrainParams
    seed: int
    samples: int
    show_progress: bool = True
    sandbox: SandboxParams | None = None
    seed_base: int = EVAL_SEED_BASE


def evaluate(
    trial: Trial, checkpoint: Path | None, *, settings: EvalSettings, act: Act | None = None
) -> tuple[EvalReport, pd.DataFrame]:
    """Play the trial's action space with the checkpoint's policy, or `act` when given (then
    `checkpoint` is not read); the report and the episode table."""
    dec, params, train = trial.dec, settings.params, settings.train
    seed, seed_base = settings.seed, settings.seed_base
    env = make_env(
        trial.task, trial.cfg, list(trial.coded), seed, train.view_radius,
        train.macro_step_budget, sandbox=settings.sandbox, masking=train.action_masking,
        learned=list(trial.learned),
    )  # fmt: skip
    if act is None:
        if checkpoint is None:
            raise ValueError("evaluate needs a checkpoint or an act function")
        model = load_policy(checkpoint)

        def act(obs: np.ndarray, info: dict[str, Any], env: MacroActionWrapper) -> int:
            if isinstance(model, MaskablePPO):  # it plays with the masks it was trained with
                action, _ = model.predict(
                    obs, deterministic=params.deterministic, action_masks=env.action_masks()
                )
            else:
                action, _ = model.predict(obs, deterministic=params.deterministic)
            return int(np.asarray(action).item())

    rows, usage, loops, errors = [], Counter[str](), Counter[str](), Counter[str]()
    reached: Counter[str] = Counter()
    died_at: Counter[str] = Counter()
    traces: list[str] = []
    try:
        what = "eval" if seed_base == EVAL_SEED_BASE else "select"
        bar = Progress(params.episodes, what, "episodes", enabled=settings.show_progress)
        with lean():  # rlgpt/rl/train.py
            for ep in range(params.episodes):
                ep_seed = seed_base + seed * 10_000 + ep
                obs, info = env.reset(seed=ep_seed)
                torch.manual_seed(ep_seed)  # sampled actions: the same episodes on every rerun
                progress, steps, decisions, calls = _Progress(info, env.vitals), 0, 0, 0
                trace: list[str] = []
                done = False
                while not done:
                    a = act(obs, info, env)
                    obs, _, term, trunc, info = env.step(a)
                    decisions += 1
                    steps += info["primitive_steps"]
                    name, coded_call = env.action_name(a)
                    usage[name if coded_call else "primitive"] += 1
                    if coded_call:
                        calls += 1
                        loops[name] += int(info.get("dead_loop", False))
                        errors[name] += int(bool(info.get("macro_error")))
                    if len(trace) < 12:
                        trace.append(name)
                    progress.update(info, steps)
                    done = term or trunc
                ach = info["achievements"]
                for sub in dec.sub_actions:
                    reached[sub.name] += int(ach.get(sub.name, 0) >= sub.count)
                died = term and not info.get("won")  # a won game (Craftax's boss) is no death
                if died:  # the step it died on: the plan's first one not yet done
                    todo = [
                        s.name
                        for s in dec.sub_actions
                        if not s.survival and ach.get(s.name, 0) < s.count
                    ]
                    if todo:
                        died_at[todo[0]] += 1
                end = "success" if info["success"] else ("death" if died else "time_limit")
                dead = end != "success" and progress.stuck(steps, params.dead_loop_window)
                if end != "success" and len(traces) < 3:
                    traces.append(f"seed {ep_seed}: {end} after {steps} steps: {' '.join(trace)}")
                unlocked = ",".join(sorted(a for a, n in ach.items() if n))  # for world scores
                rows.append(
                    {"episode": ep, "seed": ep_seed, "success": bool(info["success"]),
                     "steps": steps, "decisions": decisions, "macro_calls": calls,
                     "dead_loop": dead, "end": end, "unlocked": unlocked}
                )  # fmt: skip
                bar.update(1)
        bar.close()
        faults = macro_faults([env])
    finally:
        env.close()  # and the coded actions' workers
    table = EPISODES.validate(pd.DataFrame(rows))
    total = max(1, sum(usage.values()))
    report = EvalReport(
        success_rate=float(table["success"].mean()),
        episodes=len(table),
        samples=settings.samples,
        mean_episode_steps=float(table["steps"].mean()),
        dead_loop_ratio=float(table["dead_loop"].mean()),
        subgoal_rates={s.name: reached[s.name] / len(table) for s in dec.sub_actions},
        macro_usage={k: v / total for k, v in sorted(usage.items())},
        macro_dead_loops=dict(loops),
        macro_errors={k: v for k, v in errors.items() if v},
        macro_faults=faults,
        failure_traces=traces,
        ends={e: float((table["end"] == e).mean()) for e in ("success", "death", "time_limit")},
        deaths_at={k: v / len(table) for k, v in sorted(died_at.items())},
    )
    return report, table
