"""Start states of a learned action: where its sub-action starts.

Two sources, both snapshots of whole episode states (the world env's `snapshot()`):
- **staged**: the states validation builds (the world's `scenarios` and `stage`) where the
  sub-action's precondition holds, on the plain layout and from later in an episode (night,
  low vitals, a hostile near, the target out of view, a closed ladder, ...), over many seeds;
- **episodes**: states the task's own episodes reach when the sub-action is the plan's next
  step: the task's coded (and already learned) actions called in plan order, the first one the
  plan mask allows, as the skills alone play it; and, in later iterations, the states in which
  the top-level policy called the learned action during its training (`SnapshotLog`).
The trusted process builds all of them; no generated code decides a start state.
"""

from __future__ import annotations

import logging
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel

from rlgpt.config import SandboxParams, TrainParams
from rlgpt.messages import CodedAction, Decomposition, RLConfig, TaskSpec
from rlgpt.trial import LearnedAction
from rlgpt.worlds.base import World, WorldEnv

log = logging.getLogger(__name__)
STAGED_SEED_BASE = 300_000  # apart from validation's scenario seeds
HELD_OUT_SEED_BASE = 400_000  # the held-out starts that judge a learned action
ROLLOUT_SEED_BASE = 500_000  # the task's own episodes played for start states
SEED_STRIDE = 97  # seeds between two batches of staged states (a batch uses a few)


class Start(BaseModel):
    """One start state: where it comes from, and the snapshot."""

    source: str  # "staged <scenario> seed <n>" or "episode seed <n> step <k>"
    blob: bytes


def staged(world: World, name: str, *, n: int, seed_base: int, radius: int) -> list[Start]:
    """`n` staged states where `name`'s precondition holds, over seeds from `seed_base`."""
    env = world.validation_env(name, radius)
    out: list[Start] = []
    seed, skipped = seed_base, 0
    try:
        while len(out) < n:
            specs = world.scenarios(
                name, count=3, seed_base=seed, budget=200, radius=radius, unmet_steps=8,
                unknown_steps=150, episode=True,
            )  # fmt: skip
            met = [s for s in specs if s.precondition == "met"]
            if not met:
                raise ValueError(f"'{name}' has no state where its precondition holds")
            for spec in met:
                try:
                    world.stage(env, spec)
                except (IndexError, ValueError) as exc:  # a layout this seed cannot hold
                    skipped += 1
                    if skipped > 4 * n:
                        raise ValueError(
                            f"'{name}': {skipped} states could not be staged (the last: {exc})"
                        ) from exc
                    log.info("start state %s seed %d skipped: %s", spec.name, spec.seed, exc)
                    continue
                out.append(Start(source=f"staged {spec.name} seed {spec.seed}",
                                 blob=env.snapshot()))  # type: ignore[attr-defined]  # fmt: skip
            seed += SEED_STRIDE
    finally:
        env.close()
    return out[:n]


def plan_runner(
    world: World, task: TaskSpec, dec: Decomposition, env: Any, name: str
) -> Callable[[dict[str, Any]], tuple[str | None, bool]]:
    """The skills alone: the first sub-action, in the plan's order, that the world's plan mask
    allows now (over every sub-action, coded or not). Returns (the action to call, None where
    that sub-action has no action in `env`; whether it is `name`)."""
    order = [s.name for s in dec.sub_actions]
    rule = world.action_mask(task, order, [], ordered=True)

    def pick(info: dict[str, Any]) -> tuple[str | None, bool]:
        ok = rule(info["inventory"], info["achievements"], env.disabled, env.world_env.standing())
        allowed = [a for a, yes in zip(order, ok, strict=True) if yes]
        nxt = allowed[0] if allowed else None
        return (nxt if nxt in env.names else None), nxt == name

    return pick


def from_episodes(
    world: World, task: TaskSpec, dec: Decomposition, name: str, coded: list[CodedAction],
    learned: list[LearnedAction], *, episodes: int, per_episode: int, seed_base: int,
    train: TrainParams, sandbox: SandboxParams,
) -> tuple[list[Start], int]:  # fmt: skip
    """Start states from the task's own episodes: the plan's coded and learned actions in plan
    order (the skills alone), a snapshot each time `name` is the next step (at most
    `per_episode` per episode). Where `name` has no action yet, an episode stops there.
    Returns the states and the primitive steps played."""
    from rlgpt.rl.envs import make_env

    usable = list(coded)
    cfg = RLConfig(macro_actions=[c.name for c in usable], reward_terms=[], sample_budget=1,
                   learned_actions=[a.name for a in learned])  # fmt: skip
    env = make_env(task, cfg, usable, seed_base, train.view_radius, train.macro_step_budget,
                   sandbox=sandbox, masking="plan", learned=learned)  # fmt: skip
    out: list[Start] = []
    played = 0
    try:
        pick = plan_runner(world, task, dec, env, name)
        for ep in range(episodes):
            _, info = env.reset(seed=seed_base + ep)
            taken, steps, done = 0, 0, False
            while not done:
                action, is_next = pick(info)
                if is_next and taken < per_episode:
                    out.append(Start(source=f"episode seed {seed_base + ep} step {steps}",
                                     blob=env.world_env.snapshot()))  # type: ignore[attr-defined]  # fmt: skip
                    taken += 1
                if action is None:
                    break
                _, _, term, trunc, info = env.step(env.index_of(action))
                steps += int(info["primitive_steps"])
                done = term or trunc
            played += steps
    finally:
        env.close()
    return out, played


class SnapshotLog:
    """The states in which the top-level policy called each learned action during a training:
    a uniform sample of at most `cap` per action (reservoir sampling, its own stream)."""

    def __init__(self, cap: int, seed: int) -> None:
        self.cap = cap
        self.rng = np.random.default_rng(seed)
        self.kept: dict[str, list[bytes]] = {}
        self.seen: dict[str, int] = {}

    def offer(self, name: str, env: WorldEnv) -> None:
        n = self.seen.get(name, 0) + 1
        self.seen[name] = n
        kept = self.kept.setdefault(name, [])
        if len(kept) < self.cap:
            kept.append(env.snapshot())  # type: ignore[attr-defined]
        else:
            j = int(self.rng.integers(n))
            if j < self.cap:
                kept[j] = env.snapshot()  # type: ignore[attr-defined]

    def merge(self, other: SnapshotLog) -> None:
        for name, blobs in other.kept.items():
            self.kept.setdefault(name, []).extend(blobs)
            self.seen[name] = self.seen.get(name, 0) + other.seen.get(name, 0)

    def save(self, out_dir: Path) -> list[Path]:
        """One file per learned action: out_dir/<name>.starts.pkl (trusted data)."""
        out_dir.mkdir(parents=True, exist_ok=True)
        files = []
        for name, blobs in sorted(self.kept.items()):
            starts = [Start(source=f"training call {i + 1}", blob=b) for i, b in enumerate(blobs)]
            files.append(save_starts(out_dir / f"{name}.starts.pkl", starts))
        return files


def save_starts(path: Path, starts: list[Start]) -> Path:
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(
        pickle.dumps([s.model_dump() for s in starts], protocol=pickle.HIGHEST_PROTOCOL)
    )
    tmp.replace(path)
    return path


def load_starts(path: Path) -> list[Start]:
    """Start states a run wrote (never a file from a worker or a model)."""
    return [Start.model_validate(d) for d in pickle.loads(path.read_bytes())]  # noqa: S301
