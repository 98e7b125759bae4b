"""PPO (stable-baselines3) over the enlarged action space, budgeted in primitive env steps."""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

import torch
from pydantic import BaseModel
from stable_baselines3 import PPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import DummyVecEnv
from tqdm import tqdm

from rlgpt.config import TrainParams
from rlgpt.messages import CodedAction, RLConfig, TaskSpec
from rlgpt.rl.envs import env_factories
from rlgpt.sandbox.client import MacroWorker

log = logging.getLogger(__name__)


class TrainResult(BaseModel):
    checkpoint: str
    samples: int
    decisions: int
    wall_s: float
    samples_per_s: float


class PrimitiveBudget(BaseCallback):
    """Counts primitive env steps (macro steps included) and stops at the budget; shows progress."""

    def __init__(self, budget: int, show: bool) -> None:
        super().__init__()
        self.budget = budget
        self.samples = 0
        self.bar = tqdm(total=budget, unit="step", desc="train", disable=not show, leave=False)

    def _on_step(self) -> bool:
        n = sum(int(i.get("primitive_steps", 1)) for i in self.locals["infos"])
        self.samples += n
        self.bar.update(n)
        return self.samples < self.budget

    def _on_training_end(self) -> None:
        self.bar.close()


def save_atomic(model: PPO, path: Path) -> None:
    """Write to a temp file, then rename: a crash never leaves a half-written checkpoint."""
    tmp = path.with_suffix(".tmp.zip")
    model.save(tmp)
    os.replace(tmp, path)


def train(
    task: TaskSpec, cfg: RLConfig, coded: list[CodedAction], params: TrainParams, seed: int,
    out_dir: Path, show_progress: bool = True, isolation: str = "bwrap",
) -> TrainResult:  # fmt: skip
    """Train PPO for cfg.sample_budget primitive steps; save out_dir/policy.zip."""
    torch.set_num_threads(params.torch_threads)
    out_dir.mkdir(parents=True, exist_ok=True)
    workers: list[MacroWorker] = []
    factories = env_factories(
        task, cfg, coded, seed, params.n_envs, params.view_radius, params.macro_step_budget,
        workers, isolation,
    )  # fmt: skip
    venv = DummyVecEnv(factories)
    try:
        ppo = cfg.ppo
        model = PPO(
            "CnnPolicy" if cfg.observation == "image" else "MlpPolicy",
            venv,
            learning_rate=ppo.learning_rate,
            n_steps=ppo.n_steps,
            batch_size=ppo.batch_size,
            n_epochs=ppo.n_epochs,
            gamma=ppo.gamma,
            gae_lambda=ppo.gae_lambda,
            ent_coef=ppo.ent_coef,
            clip_range=ppo.clip_range,
            policy_kwargs={"net_arch": list(ppo.net_arch)},
            seed=seed,
            device=params.device,
            verbose=0,
        )
        budget = PrimitiveBudget(cfg.sample_budget, show_progress)
        t0 = time.perf_counter()
        model.learn(total_timesteps=10**9, callback=budget)
        wall = time.perf_counter() - t0
        path = out_dir / "policy.zip"
        save_atomic(model, path)
    finally:
        venv.close()
        for w in workers:
            w.close()
    return TrainResult(
        checkpoint=str(path),
        samples=budget.samples,
        decisions=int(model.num_timesteps),
        wall_s=wall,
        samples_per_s=budget.samples / max(wall, 1e-9),
    )
