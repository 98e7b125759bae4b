"""Training learned actions: each in its own process, several at once.

`train_learned` trains one learned action (rlgpt/rl/learned.py says what one is): it gathers
its start states, measures its reach from held-out ones, trains PPO on its own episodes
(checkpointed: a killed training resumes), and measures its reach again. `train_all` runs the
learned actions of an iteration at once, each in a process of its own holding a training slot
(rlgpt/rl/slots.py), so independent trainings use every core.
"""

from __future__ import annotations

import concurrent.futures as cf
import ctypes
import hashlib
import json
import logging
import multiprocessing
import os
import shutil
import signal
import time
from collections.abc import Callable
from pathlib import Path

import torch
from pydantic import BaseModel
from stable_baselines3.common.logger import configure as configure_logger

from rlgpt.config import LearnParams, SandboxParams, TrainParams
from rlgpt.messages import CodedAction, Decomposition, LearnedConfig, TaskSpec
from rlgpt.rl.envs import SlimInfo, macro_faults
from rlgpt.rl.interleave import InterleavedVecEnv
from rlgpt.rl.learned import (
    Finite,
    LearnedResult,
    Learnt,
    Reach,
    all_finite,
    check_config,
    learned_env,
    policy_act,
    reach,
    skill_act,
    space_key,
    start_as_its_code,
)
from rlgpt.rl.options import policy_sha256
from rlgpt.rl.policy import load_policy
from rlgpt.rl.shaping import StartStates
from rlgpt.rl.slots import training_slot
from rlgpt.rl.starts import (
    HELD_OUT_SEED_BASE,
    ROLLOUT_SEED_BASE,
    STAGED_SEED_BASE,
    Start,
    from_episodes,
    load_starts,
    save_starts,
    staged,
)
from rlgpt.rl.train import Checkpoints, PrimitiveBudget, lean, new_model, save_atomic
from rlgpt.trial import LearnedAction
from rlgpt.worlds import get_world
from rlgpt.worlds.base import World

log = logging.getLogger(__name__)


class LearnRequest(BaseModel):
    """Everything one learned action's training needs (crosses a process boundary)."""

    task: TaskSpec
    decomposition: Decomposition
    config: LearnedConfig
    coded: list[CodedAction]  # validated coded actions: its space's, and the rollouts'
    learned: list[LearnedAction] = []  # learned actions trained before it (the rollouts')
    learn: LearnParams
    train: TrainParams
    sandbox: SandboxParams
    seed: int
    out_dir: str
    previous: LearnedResult | None = None  # its last training: continued on the same space
    previous_space: str = ""
    extra_starts: list[str] = []  # files of states where a top-level policy called it
    after: list[str] = []  # learned actions of the same iteration trained before it (its
    # rollouts reach it through them: train_in_order)
    show_progress: bool = True
    slots: int | None = 0


class StartSets(BaseModel):
    """The start states a training used, by where they came from, and the held-out ones."""

    train: list[Start]
    held: list[Start]
    samples: int
    counts: dict[str, int]


def gather_starts(req: LearnRequest, world: World, out: Path) -> StartSets:
    """Staged and episode start states, written once (a resumed training reads them back).
    The held-out ones are half staged (on seeds of their own) and half from episodes (a
    third of those played, never trained from), as far as there are some."""
    files = out / "starts.pkl", out / "held_out.pkl", out / "starts.json"
    if all(f.is_file() for f in files):
        meta = json.loads(files[2].read_text())
        return StartSets(train=load_starts(files[0]), held=load_starts(files[1]),
                         samples=int(meta["samples"]), counts=meta["counts"])  # fmt: skip
    name, p, t = req.config.name, req.learn, req.train
    base = STAGED_SEED_BASE + 1000 * req.seed
    train = staged(world, name, n=p.starts, seed_base=base, radius=t.view_radius)
    held = staged(world, name, n=p.held_out, seed_base=HELD_OUT_SEED_BASE, radius=t.view_radius)
    counts = {"staged": len(train)}
    played, eps = 0, list[Start]()
    if p.rollouts:
        eps, played = from_episodes(
            world, req.task, req.decomposition, name, req.coded, req.learned,
            episodes=p.rollouts, per_episode=8, seed_base=ROLLOUT_SEED_BASE + 100 * req.seed,
            train=t, sandbox=req.sandbox,
        )  # fmt: skip
    cut = len(eps) // 3  # a third judges, the rest trains
    half = min(cut, p.held_out // 2)
    held = eps[:half] + held[: p.held_out - half]
    train += eps[cut:]
    counts["episodes"] = len(eps) - cut
    extra = [s for f in req.extra_starts if Path(f).is_file() for s in load_starts(Path(f))]
    if extra:
        train += extra
        counts["training_calls"] = len(extra)
    save_starts(files[0], train)
    save_starts(files[1], held)
    files[2].write_text(json.dumps({"samples": played, "counts": counts}))
    return StartSets(train=train, held=held, samples=played, counts=counts)


def groups(starts: list[Start]) -> list[list[bytes]]:
    """Start states as the groups training draws from: staged ones, and the task's own."""
    staged_ = [s.blob for s in starts if s.source.startswith("staged")]
    own = [s.blob for s in starts if not s.source.startswith("staged")]
    return [staged_, own]


def _inputs(world: World, cfg: LearnedConfig, train: TrainParams) -> tuple[int, ...]:
    """The shape of a learned action's observation: its world env's, and what it recalls."""
    env = world.validation_env(cfg.name, train.view_radius)
    try:
        shape = env.observation_space.shape or ()
    finally:
        env.close()
    return (shape[0] + 4 * len(world.recalls(cfg.name)), *shape[1:])


def _cached_reach(path: Path, measure: Callable[[], Reach]) -> Reach:
    """A reach measured once: a resumed training reads it back."""
    if path.is_file():
        return Reach.model_validate_json(path.read_text())
    r = measure()
    path.write_text(r.model_dump_json())
    return r


def train_learned(req: LearnRequest) -> LearnedResult:
    """Train and judge one learned action; never raises for what the action or its config
    does (the result says why it is excluded)."""
    world = get_world(req.task.world)
    cfg = req.config
    out = Path(req.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cfg_sha = cfg.content_hash()
    coded_names = [c.name for c in req.coded]
    problems = check_config(cfg, world, coded_names, req.learn)
    if problems:
        return LearnedResult(name=cfg.name, ok=False, reason="config: " + "; ".join(problems),
                             config=cfg, config_sha256=cfg_sha)  # fmt: skip
    with training_slot(req.slots, log.warning):
        torch.set_num_threads(req.train.torch_threads)
        return _train(req, world, out, cfg_sha)


def _train(req: LearnRequest, world: World, out: Path, cfg_sha: str) -> LearnedResult:
    cfg, t, sb = req.config, req.train, req.sandbox
    t0 = time.perf_counter()
    sets = gather_starts(req, world, out)
    blobs = [s.blob for s in sets.train]
    grouped = groups(sets.train)
    factories = [
        (lambda rank: lambda: SlimInfo(learned_env(
            world, cfg, req.coded, StartStates(grouped, req.seed * 1000 + rank), t, sb)))(i)
        for i in range(req.learn.n_envs)
    ]  # fmt: skip
    space = space_key(cfg, world, t)
    prev = req.previous
    init = None
    if prev is not None and prev.ok and req.previous_space == space and Path(prev.policy).is_file():
        init = Path(prev.policy)
        if load_policy(init).observation_space.shape != _inputs(world, cfg, t):
            init = None  # trained on another observation (before its world recalled into it)
    starts_sha = hashlib.sha256(b"".join(hashlib.sha256(b).digest() for b in blobs)).hexdigest()
    key_parts = [cfg_sha, *[c.content_hash() for c in req.coded], req.seed, starts_sha,
                 policy_sha256(init) if init else ""]  # fmt: skip
    key = hashlib.sha256(json.dumps(key_parts).encode()).hexdigest()
    ckpt = Checkpoints(out, key, point="learn_mid")
    venv = InterleavedVecEnv(factories)  # type: ignore[arg-type]
    try:
        start = ckpt.resumable() or 0
        if start:
            log.warning(
                "learned action %s: resuming from its checkpoint at %d samples", cfg.name, start
            )
            model = load_policy(ckpt.zip, venv, t.device, sparse_input=t.sparse_input)
        elif init is not None:
            model = load_policy(init, venv, t.device, sparse_input=t.sparse_input)
            model.set_random_seed(req.seed)
        else:
            model = new_model(
                # masked always: its coded actions, and primitives that cannot act now
                cfg.ppo, False, venv, req.seed, t.device, True, fused_adam=t.fused_adam,
                sparse_input=t.sparse_input,
            )  # fmt: skip
            start_as_its_code(model, cfg, world)
        model.set_logger(configure_logger(str(out / "sb3"), ["csv"]))
        if not start and not (out / "start.zip").is_file():  # the policy it starts from
            save_atomic(model, out / "start.zip")
        held = sets.held

        def measure(act_model: object) -> Reach:
            act = policy_act(act_model)  # type: ignore[arg-type]
            return reach(world, cfg, req.coded, held, act, t, sandbox=sb, seed=req.seed)

        before = _cached_reach(out / "reach_before.json", lambda: measure(model))
        skill = None
        if cfg.name in [c.name for c in req.coded]:
            alone = cfg.model_copy(update={"macro_actions": [cfg.name], "primitive_actions": None})
            skill = _cached_reach(
                out / "reach_skill.json",
                lambda: reach(
                    world, alone, req.coded, held, skill_act(cfg.name), t, sandbox=sb, seed=req.seed
                ),
            )
        budget = PrimitiveBudget(
            cfg.sample_budget, req.show_progress, start, t.checkpoint_every,
            lambda samples: ckpt.save(model, samples), out / "curve.csv", desc=f"learn {cfg.name}",
        )  # fmt: skip
        finite = Finite()
        learnt = Learnt(lambda: budget.rows, req.learn.stop_reach, req.learn.stop_window,
                        lambda: budget.groups)  # fmt: skip
        wall0 = time.perf_counter()
        try:
            with lean():
                model.learn(
                    total_timesteps=10**9, callback=[budget, finite, learnt],
                    reset_num_timesteps=not start,
                )  # fmt: skip
        except (ValueError, RuntimeError) as exc:  # NaN logits (or another failure)
            if all_finite(model):
                raise
            finite.diverged = True
            log.warning("learned action %s diverged: %s", cfg.name, exc)
        wall = time.perf_counter() - wall0
        faults = macro_faults(venv.envs)
    finally:
        venv.close()
    done = budget.samples - start
    common = {
        "name": cfg.name, "config": cfg, "config_sha256": cfg_sha,
        "train_samples": budget.samples,
        "start_samples": sets.samples, "samples": budget.samples + sets.samples,
        "samples_per_s": done / max(wall, 1e-9), "held_out": len(held), "starts": sets.counts,
        "resumed_from": start, "warm_start_from": str(init) if init else None,
        "first_success": budget.first_success, "reach_before": before.reach,
        "macro_faults": faults,
        "skill_reach": skill.reach if skill else None, "stopped": learnt.why,
    }  # fmt: skip
    if finite.diverged:
        return LearnedResult(ok=False, reason="diverged: its weights are no longer finite "
                             "(NaN); lower its learning rate or its rewards' scale",
                             wall_s=time.perf_counter() - t0, **common)  # type: ignore[arg-type]  # fmt: skip
    if len(budget.rows) == 0:
        return LearnedResult(ok=False, reason=f"no episode ended in {budget.samples} samples "
                             f"(step_budget {cfg.step_budget})", wall_s=time.perf_counter() - t0,
                             **common)  # type: ignore[arg-type]  # fmt: skip
    path = out / "policy.zip"
    save_atomic(model, path)
    after = measure(model)
    kept = ""
    if before.reach > after.reach and (out / "start.zip").is_file():
        # training lost held-out states the policy it started from reached: that one joins
        kept = (
            f"its training reached its effect from {after.reach:.0%} of held-out start "
            f"states, the policy it started from {before.reach:.0%}: the latter joins"
        )
        shutil.copyfile(out / "start.zip", path)
        after = before
    reason = judgement(after, skill, req.learn.min_reach)
    ok = not reason
    return LearnedResult(
        ok=ok,
        reason=reason,
        policy=str(path),
        policy_sha256=policy_sha256(path),
        reach_after=after.reach,
        deaths_after=after.deaths,
        out_of_steps_after=after.out_of_steps,
        wall_s=time.perf_counter() - t0,
        kept_start=kept,
        **common,  # type: ignore[arg-type]
    )


def judgement(after: Reach, skill: Reach | None, min_reach: float) -> str:
    """Why a trained learned action stays out of the action space ("": it joins): it reaches
    its effect too rarely, or more rarely than its own code alone from the same held-out
    states (then the code covers its sub-action: learning never makes the code worse)."""
    if after.reach < min_reach:
        return (
            f"reaches its effect from {after.reach:.0%} of held-out start states after "
            f"training, below learn.min_reach {min_reach:.0%}"
        )
    if skill is not None and after.reach < skill.reach:
        return (
            f"reaches its effect from {after.reach:.0%} of held-out start states after "
            f"training, its code alone from {skill.reach:.0%}: the code covers it"
        )
    return ""


def _run(blob: str) -> str:
    """A worker process's job: one request in, one result out (JSON both ways)."""
    return train_learned(LearnRequest.model_validate_json(blob)).model_dump_json()


def train_all(requests: list[LearnRequest], parallel: int | None) -> list[LearnedResult]:
    """Train every request, at most `parallel` at once (None: one per core), each in its own
    process (one request runs here). A process that dies excludes its action with the reason;
    its checkpoint stays for a retry."""
    if len(requests) <= 1:
        return [train_learned(r) for r in requests]
    n = min(len(requests), parallel or os.cpu_count() or 1)
    ctx = multiprocessing.get_context("spawn")
    out: list[LearnedResult] = []
    with cf.ProcessPoolExecutor(
        max_workers=n, mp_context=ctx, initializer=die_with, initargs=(os.getpid(),)
    ) as pool:
        futures = [pool.submit(_run, r.model_dump_json()) for r in requests]
        for r, f in zip(requests, futures, strict=True):
            try:
                out.append(LearnedResult.model_validate_json(f.result()))
            except Exception as exc:  # noqa: BLE001 - a dead process is one action's failure
                log.warning("training learned action %s failed: %s", r.config.name, exc)
                out.append(LearnedResult(name=r.config.name, ok=False,
                                         reason=f"its training failed: {type(exc).__name__}: "
                                         f"{exc}"[:300]))  # fmt: skip
    return out


def train_in_order(requests: list[LearnRequest], parallel: int | None) -> list[LearnedResult]:
    """Train every request, those that wait for others (`after`: the plan's earlier steps
    learned in the same iteration, with no policy yet) once those are trained: the episodes
    a learned action's start states come from reach it through its predecessors, and with a
    predecessor that has no policy they stop before it (a chain's later steps would train
    from staged states alone). Independent ones train at once (`train_all`). Results in the
    order of `requests`."""
    done: dict[str, LearnedResult] = {}
    todo = list(requests)
    while todo:
        waiting = {r.config.name for r in todo}
        ready = [r for r in todo if not waiting & set(r.after)] or todo  # never a cycle
        trained = [d.action() for d in done.values() if d.ok and d.policy and d.config]
        names = {a.name for a in trained}
        wave = [
            r.model_copy(update={
                "learned": [a for a in r.learned if a.name not in names] + trained
            })
            for r in ready
        ]  # fmt: skip
        for r, res in zip(wave, train_all(wave, parallel), strict=True):
            done[r.config.name] = res
        todo = [r for r in todo if r.config.name not in done]
    return [done[r.config.name] for r in requests]


PR_SET_PDEATHSIG = 1


def die_with(parent: int) -> None:
    """A training process's first act: to be killed when `parent` (the process that trains an
    iteration's learned actions) ends, even by SIGKILL (Linux's PR_SET_PDEATHSIG), so a killed
    run leaves no training behind that holds a core and a training slot for minutes (a resumed
    run would wait for that slot). Where there is no prctl, nothing."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (AttributeError, OSError):
        return
    if os.getppid() != parent:  # it ended before the prctl, which then never fires
        os.kill(os.getpid(), signal.SIGKILL)
