"""PPO (stable-baselines3) over the enlarged action space, budgeted in primitive env steps."""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import logging
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import torch
from pydantic import BaseModel
from sb3_contrib import MaskablePPO
from stable_baselines3 import PPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import configure as configure_logger
from stable_baselines3.common.vec_env import DummyVecEnv

from rlgpt.config import SandboxParams, TrainParams
from rlgpt.faults import maybe_crash
from rlgpt.messages import CodedAction, PPOConfig, RLConfig, TaskSpec
from rlgpt.rl.envs import env_factories, macro_faults
from rlgpt.rl.interleave import InterleavedVecEnv
from rlgpt.rl.lean import lean_policy
from rlgpt.rl.policy import Policy, load_policy
from rlgpt.rl.progress import Progress
from rlgpt.rl.slots import training_slot
from rlgpt.rl.starts import SnapshotLog
from rlgpt.trial import LearnedAction, Trial

log = logging.getLogger(__name__)


@contextlib.contextmanager
def lean() -> Iterator[None]:
    """The hot loop of a training or an evaluation, without two costs that buy it nothing:
    - torch's argument checks of every action distribution (a masked categorical checks its
      logits at each construction and its samples at each log_prob: about half of the
      distribution's cost here, for values the policy itself just made; the numbers are the
      same without them);
    - the collector's full passes over every object made before the loop (the modules, the
      model, the envs): frozen while it runs, so a full collection reads only what the loop
      made. Unfrozen after it: what became garbage is collected as before. Where something
      else (an outer `lean()`, the caller) froze objects already, the collector is left alone:
      unfreezing would undo its freeze too.
    """
    checks = torch.distributions.Distribution._validate_args
    torch.distributions.Distribution.set_default_validate_args(False)
    ours = gc.get_freeze_count() == 0
    if ours:
        gc.freeze()
    try:
        yield
    finally:
        if ours:
            gc.unfreeze()
        torch.distributions.Distribution.set_default_validate_args(checks)


class TrainResult(BaseModel):
    checkpoint: str
    samples: int
    decisions: int
    wall_s: float
    samples_per_s: float
    resumed_from: int = 0
    macro_faults: dict[str, str] = {}
    space: str = ""  # action_space_key: a policy continues only on the same space
    warm_start_from: str | None = None  # the policy this one continued, if any
    warm_start_sha256: str | None = None
    first_success: int | None = None  # samples when a training episode first succeeded


def action_space_key(cfg: RLConfig, coded: list[CodedAction], params: TrainParams) -> str:
    """What a policy's weights mean: the actions in their order (primitives, then coded
    actions by name), the observation, the network and PPO's settings. A policy trained on one
    key can continue training on another iteration with the same key, whatever the coded
    actions' code (a revised action keeps its name and its place)."""
    prims = cfg.primitive_actions
    inserted = [c.name for c in coded if c.name in cfg.macro_actions]
    parts: list[object] = [
        prims, inserted, cfg.observation, cfg.ppo.model_dump(mode="json"), params.view_radius
    ]  # fmt: skip
    if params.masked:  # the mask's kind: a policy continues only under the same rule
        parts.append("masked" if params.action_masking == "recipes" else params.action_masking)
    if cfg.learned_actions:  # learned actions follow the coded ones, in their order
        parts.append(["learned", *cfg.learned_actions])
    blob = json.dumps(parts, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def warm_start(previous: TrainResult | None, space: str) -> Path | None:
    """The previous iteration's policy, when it was trained on this very action space."""
    if previous is None or not previous.space or previous.space != space:
        return None
    path = Path(previous.checkpoint)
    return path if path.is_file() else None


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


CURVE_HEADER = "samples,return,steps,success"


class PrimitiveBudget(BaseCallback):
    """Counts primitive env steps (macro steps included) and stops at the budget; shows
    progress; notes the samples when a training episode first succeeded; every `every`
    samples calls `on_checkpoint(samples)`. With `curve`, every finished training episode is a
    row of that CSV (samples at its end, return, primitive steps, success): the learning curve,
    written at each checkpoint and at the end; a resumed training keeps the rows up to where it
    resumed."""

    def __init__(
        self, budget: int, show: bool, start: int = 0, every: int = 0,
        on_checkpoint: Callable[[int], None] | None = None, curve: Path | None = None,
        *, desc: str = "train",
    ) -> None:  # fmt: skip
        super().__init__()
        self.curve = curve
        self.rows: list[str] = []
        self.groups: list[int] = []  # each row's start group since this process began (a
        # learned action's episodes: StartStates)
        if curve is not None and start and curve.is_file():
            kept = curve.read_text().splitlines()[1:]
            self.rows = [r for r in kept if r and int(r.split(",")[0]) <= start]
        self._returns: list[float] = []
        self._steps: list[int] = []
        self.budget = budget
        self.samples = start
        self.every = every
        self.on_checkpoint = on_checkpoint
        self.first_success: int | None = None
        self._next = start + every if every else None
        self.bar = Progress(budget, desc, "samples", start, show)

    def _on_step(self) -> bool:
        infos = self.locals["infos"]
        n = sum(int(i.get("primitive_steps", 1)) for i in infos)
        self.samples += n
        if self.first_success is None and any(i.get("success") for i in infos):
            self.first_success = self.samples
        self._episodes(infos)
        self.bar.update(n)
        if self._next is not None and self.samples >= self._next < self.budget:
            self.write_curve()
            if self.on_checkpoint is not None:
                self.on_checkpoint(self.samples)
            self._next += self.every
        return self.samples < self.budget

    def _episodes(self, infos: list[dict[str, object]]) -> None:
        rewards, dones = self.locals.get("rewards"), self.locals.get("dones")
        if rewards is None or dones is None:
            return
        if len(self._returns) != len(infos):
            self._returns, self._steps = [0.0] * len(infos), [0] * len(infos)
        for k, info in enumerate(infos):
            self._returns[k] += float(rewards[k])
            self._steps[k] += int(info.get("primitive_steps", 1))  # type: ignore[call-overload]
            if dones[k]:
                won = int(bool(info.get("success")))
                self.rows.append(f"{self.samples},{self._returns[k]:.3f},{self._steps[k]},{won}")
                self.groups.append(int(info.get("start_group", 0)))  # type: ignore[call-overload]
                self._returns[k], self._steps[k] = 0.0, 0

    def write_curve(self) -> None:
        if self.curve is None:
            return
        tmp = self.curve.with_suffix(".tmp")
        tmp.write_text("\n".join([CURVE_HEADER, *self.rows]) + "\n")
        os.replace(tmp, self.curve)

    def _on_training_end(self) -> None:
        self.write_curve()
        self.bar.close()


def save_atomic(model: Policy, path: Path) -> None:
    """Write to a temp file, then rename: a crash never leaves a half-written checkpoint."""
    tmp = path.with_suffix(".tmp.zip")
    model.save(tmp)
    os.replace(tmp, path)


def run_key(
    task: TaskSpec, cfg: RLConfig, coded: list[CodedAction], seed: int, init: str | None = None,
    masking: str = "off", *, learned: list[LearnedAction] | None = None,
) -> str:  # fmt: skip
    """What a checkpoint belongs to: resuming under another config (or another starting
    policy, `init`: its sha256, or with masks switched, or other learned actions) would be
    wrong."""
    parts = [task.content_hash(), cfg.content_hash(), *[c.content_hash() for c in coded]]
    parts += [a.key() for a in learned or []]
    if init:
        parts.append(init)
    if masking != "off":  # "masked": the key recipe masks have had from the start
        parts.append("masked" if masking == "recipes" else masking)
    return hashlib.sha256(f"{parts}:{seed}".encode()).hexdigest()


class Checkpoints:
    """out_dir/checkpoint.zip (model and optimizer, via SB3) and checkpoint.json (samples, key),
    each written to a temp file and renamed; the JSON, written last, says the pair is whole."""

    def __init__(self, out_dir: Path, key: str, point: str = "train_mid") -> None:
        self.zip, self.meta, self.key = out_dir / "checkpoint.zip", out_dir / "checkpoint.json", key
        self.point = point  # the fault-injection point after each checkpoint (rlgpt/faults.py)

    def save(self, model: Policy, samples: int) -> None:
        save_atomic(model, self.zip)
        tmp = self.meta.with_suffix(".tmp")
        tmp.write_text(
            json.dumps(
                {"key": self.key, "samples": samples, "num_timesteps": int(model.num_timesteps)}
            )
        )
        os.replace(tmp, self.meta)
        log.info("checkpoint at %d samples", samples)
        maybe_crash(self.point)

    def resumable(self) -> int | None:
        """Samples of a complete checkpoint of this very run, or None."""
        if not (self.meta.is_file() and self.zip.is_file()):
            return None
        meta = json.loads(self.meta.read_text())
        return int(meta["samples"]) if meta.get("key") == self.key else None


def new_model(
    ppo: PPOConfig, image: bool, venv: DummyVecEnv, seed: int, device: str, masked: bool,
    *, fused_adam: bool, sparse_input: bool = False,
) -> Policy:  # fmt: skip
    """A fresh PPO (or MaskablePPO). Its optimizer is SB3's own (Adam, eps 1e-5), fused into one
    kernel per step with `fused_adam`; a saved policy keeps the kind it was made with. A masked
    policy gets rlgpt.rl.lean's hot calls."""
    algo: type[PPO] | type[MaskablePPO] = MaskablePPO if masked else PPO
    kwargs: dict[str, object] = {"net_arch": list(ppo.net_arch)}
    if fused_adam:  # SB3's own Adam settings (eps 1e-5), fused
        kwargs["optimizer_kwargs"] = {"eps": 1e-5, "fused": True}
    model = algo(
        "CnnPolicy" if image else "MlpPolicy",
        venv,
        learning_rate=ppo.learning_rate,
        n_steps=ppo.n_steps,
        batch_size=ppo.batch_size,
        n_epochs=ppo.n_epochs,
        gamma=ppo.gamma,
        gae_lambda=ppo.gae_lambda,
        ent_coef=ppo.ent_coef,
        clip_range=ppo.clip_range,
        policy_kwargs=kwargs,
        seed=seed,
        device=device,
        verbose=0,
    )
    lean_policy(model.policy, sparse_input=sparse_input)  # rlgpt.rl.lean
    return model


@dataclass(frozen=True, kw_only=True)
class TrainSettings:
    """How a trial trains (not what: that is the trial). `seed`: the training's seed; `slots`:
    at most this many trainings run at once on the machine (None: one per core; 0: no limit;
    rlgpt.rl.slots); `snapshots`: at most this many states where the policy called each
    learned action are kept (out_dir/starts/<name>.starts.pkl)."""

    params: TrainParams
    seed: int
    show_progress: bool = True
    sandbox: SandboxParams | None = None
    slots: int | None = 0
    snapshots: int = 0


def train(
    trial: Trial, out_dir: Path, *, settings: TrainSettings, previous: TrainResult | None = None
) -> TrainResult:
    """Train PPO on the trial's action space (its coded, then its learned actions, as options)
    for trial.cfg.sample_budget primitive steps; save out_dir/policy.zip. Checkpoints every
    `params.checkpoint_every` samples; a rerun of the same training resumes from the last
    complete checkpoint (model, optimizer, num_timesteps, samples). With `previous` (the last
    iteration's result) trained on the same action space, training continues that policy
    (weights and optimizer) instead of starting from scratch."""
    with training_slot(settings.slots, log.warning):  # before any env or worker starts
        return _train(trial, out_dir, settings, previous)


def _train(
    trial: Trial, out_dir: Path, settings: TrainSettings, previous: TrainResult | None
) -> TrainResult:
    task, cfg, coded, learned = trial.task, trial.cfg, list(trial.coded), list(trial.learned)
    params, seed, snapshots = settings.params, settings.seed, settings.snapshots
    torch.set_num_threads(params.torch_threads)
    space = action_space_key(cfg, coded, params)
    init = warm_start(previous, space)
    init_sha = _sha256(init) if init else None
    out_dir.mkdir(parents=True, exist_ok=True)
    log_states = SnapshotLog(snapshots, seed) if snapshots and cfg.learned_actions else None
    factories = env_factories(
        task, cfg, coded, seed, params.n_envs, params.view_radius,
        macro_step_budget=params.macro_step_budget, sandbox=settings.sandbox,
        masking=params.action_masking,
        learned=learned, snapshots=log_states,
    )  # fmt: skip
    # envs step in turns: one steps its game while another's worker answers; threads only
    # took turns at the GIL (docs/speed.md, envs in turns)
    venv = InterleavedVecEnv(factories)
    masked = params.masked
    key = run_key(task, cfg, coded, seed, init_sha, params.action_masking, learned=learned)
    ckpt = Checkpoints(out_dir, key)
    try:
        start = ckpt.resumable() or 0
        if start:
            log.warning("resuming training from its checkpoint at %d samples", start)
            model = load_policy(ckpt.zip, venv, params.device, sparse_input=params.sparse_input)
        elif init is not None:
            log.info("continuing the policy of %s", init)
            model = load_policy(init, venv, params.device, sparse_input=params.sparse_input)
            model.set_random_seed(seed)
        else:
            model = new_model(cfg.ppo, cfg.observation == "image", venv, seed, params.device,
                              masked, fused_adam=params.fused_adam,
                              sparse_input=params.sparse_input)  # fmt: skip
        # SB3's own scalars (losses, entropy, explained variance, ...): train/sb3/progress.csv,
        # which tasks/tracking.py forwards to MLflow
        model.set_logger(configure_logger(str(out_dir / "sb3"), ["csv"]))
        budget = PrimitiveBudget(
            cfg.sample_budget, settings.show_progress, start, params.checkpoint_every,
            lambda samples: ckpt.save(model, samples), out_dir / "curve.csv",
        )  # fmt: skip
        t0 = time.perf_counter()
        with lean():
            model.learn(total_timesteps=10**9, callback=budget, reset_num_timesteps=not start)
        wall = time.perf_counter() - t0
        path = out_dir / "policy.zip"
        save_atomic(model, path)
        faults = macro_faults(venv.envs)
        if log_states is not None:
            log_states.save(out_dir / "starts")
    finally:
        venv.close()  # each env closes its coded actions' workers
    done = budget.samples - start
    return TrainResult(
        checkpoint=str(path),
        samples=budget.samples,
        decisions=int(model.num_timesteps),
        wall_s=wall,
        samples_per_s=done / max(wall, 1e-9),
        resumed_from=start,
        macro_faults=faults,
        space=space,
        warm_start_from=str(init) if init else None,
        warm_start_sha256=init_sha,
        first_success=budget.first_success,
    )
