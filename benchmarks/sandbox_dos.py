"""Training beside a coded action of each denial-of-service class: samples/s of the same PPO
run with a harmless coded action in its place (the baseline, measured here), and what
training did about it (the fault it recorded, "disabled: ..." when it turned the action off).

Classes: CPU per step only away from where a world starts the player (it passes validation), a
hang there, a memory hog, and, with the gate off (the OS layer alone, as a gate bypass would
be), a forked child burning CPU between calls, a worker that answers ahead and stops reading,
and a fork bomb. Target: each keeps samples/s within 20% of the baseline, or is disabled with its
reason. Ends with one line of JSON.
"""

from __future__ import annotations

import argparse
import functools
import json
import tempfile
from pathlib import Path

from rlgpt.config import SandboxParams, TrainParams
from rlgpt.messages import CodedAction, PPOConfig, RewardTerm, RLConfig
from rlgpt.rl import envs
from rlgpt.rl.train import TrainSettings, train
from rlgpt.sandbox.pool import MacroPool
from rlgpt.trial import Trial
from rlgpt.worlds.crafter.author import write_action
from rlgpt.worlds.crafter.tasks import get_task

HARMLESS = "def extra(view):\n    for _ in range(3):\n        yield 'noop'\n"
# Every call starts from the code as written (rlgpt/sandbox/worker.py), so these two cannot
# count their calls: they wait for the player to leave the middle of the world, where
# Crafter starts it and where a state validation stages at the start of an episode stands.
CRAWL = """def extra(view):
    x, y = view.position
    if abs(x - 32) + abs(y - 32) > 2:
        n = 0
        for i in range(4_000_000):
            n += i % 7
    for _ in range(3):
        yield "noop"
"""
HANG = """def extra(view):
    yield "noop"
    x, y = view.position
    if abs(x - 32) + abs(y - 32) > 2:
        while True:
            pass
"""
HOG = "def extra(view):\n    hog = [0] * 200_000_000\n    yield 'noop' if hog else 'do'\n"
BURNER = """import os

def extra(view):
    if os.fork() == 0:
        while True:
            pass
    yield "noop"
"""
STOP_READING = """import os
import sys
import time

def extra(view):
    out = int(sys.argv[2])
    os.write(out, b'{"action": "noop"}\\n' * 50)
    time.sleep(600)
    yield "noop"
"""
FORK_BOMB = """import os

def extra(view):
    while True:
        os.fork()
    yield "noop"
"""
CLASSES = {  # name: (source, gate on)
    "cpu_per_step": (CRAWL, True),
    "hang": (HANG, True),
    "memory": (HOG, True),
    "cpu_between_calls": (BURNER, False),
    "stops_reading": (STOP_READING, False),
    "fork_bomb": (FORK_BOMB, False),
}


def _train(source: str, gate: bool, samples: int, seed: int) -> tuple[float, str]:
    """Samples/s of PPO on collect_wood with the reference collect_wood and `source` as
    coded actions, and the fault training recorded for it."""
    coded = [
        write_action("collect_wood", 80),
        CodedAction(name="extra", docstring="", source=source, step_budget=8),
    ]
    cfg = RLConfig(
        macro_actions=["collect_wood", "extra"],
        sample_budget=samples,
        reward_terms=[RewardTerm(achievement="collect_wood", weight=1.0)],
        ppo=PPOConfig(n_steps=128, batch_size=64, n_epochs=2),
    )
    params = TrainParams(n_envs=1, sample_budget=samples, torch_threads=1, checkpoint_every=0)
    pool = envs.MacroPool
    envs.MacroPool = functools.partial(MacroPool, gate=gate)  # type: ignore[misc,assignment]
    try:
        with tempfile.TemporaryDirectory() as out:
            settings = TrainSettings(params=params, seed=seed, show_progress=False,
                                     sandbox=SandboxParams(reply_timeout_s=1.0))  # fmt: skip
            result = train(
                Trial.of(get_task("collect_wood"), cfg, coded), Path(out), settings=settings
            )
    finally:
        envs.MacroPool = pool  # type: ignore[misc]
    return result.samples_per_s, result.macro_faults.get("extra", "")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--samples", type=int, default=6_000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    base, _ = _train(HARMLESS, True, args.samples, args.seed)
    print(f"baseline (a harmless coded action): {base:.0f} samples/s")
    figures: dict[str, object] = {"baseline_samples_per_s": round(base, 1)}
    for name, (source, gate) in CLASSES.items():
        rate, fault = _train(source, gate, args.samples, args.seed)
        disabled = "disabled:" in fault
        ok = disabled or rate >= 0.8 * base
        print(
            f"{name:>18}: {rate:5.0f} samples/s ({rate / base:4.0%}), "
            f"{'target met' if ok else 'TARGET MISSED'}; {fault or 'no fault'}"
        )
        figures[name] = {"samples_per_s": round(rate, 1), "ratio": round(rate / base, 3),
                         "fault": fault, "disabled": disabled, "target_met": ok}  # fmt: skip
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
