"""PPO throughput end to end: rlgpt (fast backend, symbolic MLP, coded actions in the sandboxed
worker) vs the paper-style baseline (SB3 PPO, CnnPolicy, stock crafter image observations).

Both run in one invocation, each training in its own fresh process, in `--rounds` rounds of
baseline then rlgpt (medians: on a shared machine whose speed moves from minute to minute, one
pass of each reads the moment, not the code), and `--together N` rlgpt trainings at once each
round (their samples/s in all, against one). Samples are primitive env steps (macro steps
included). Ends with one JSON line: {"baseline_samples_per_s", "rlgpt_samples_per_s", "ratio",
"peak_rss_mib", "rlgpt_together_samples_per_s", "together_vs_alone"}.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any


def _baseline(samples: int, seed: int) -> dict[str, float]:
    import crafter
    import gymnasium as gym
    import numpy as np
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    torch.set_num_threads(1)

    class Stock(gym.Env[np.ndarray, int]):
        def __init__(self, seed: int) -> None:
            self.env = crafter.Env(seed=seed)
            self.observation_space = gym.spaces.Box(0, 255, (64, 64, 3), np.uint8)
            self.action_space = gym.spaces.Discrete(17)  # type: ignore[assignment]

        def reset(self, *, seed: int | None = None, options: Any = None) -> Any:
            return self.env.reset(), {}

        def step(self, action: int) -> Any:
            obs, rew, done, info = self.env.step(int(action))
            return obs, rew, done, False, {}

    def make(i: int) -> Any:
        return lambda: Stock(seed + i)

    venv = DummyVecEnv([make(i) for i in range(4)])
    model = PPO("CnnPolicy", venv, n_steps=128, batch_size=64, n_epochs=4, seed=seed,
                device="cpu", verbose=0)  # fmt: skip
    t0 = time.perf_counter()
    model.learn(total_timesteps=samples)
    wall = time.perf_counter() - t0
    return {"samples": int(model.num_timesteps), "wall_s": wall}


def _rlgpt(samples: int, seed: int) -> dict[str, float]:
    from rlgpt.config import Params
    from rlgpt.messages import RewardTerm, RLConfig
    from rlgpt.rl.train import TrainSettings, train
    from rlgpt.trial import Trial
    from rlgpt.worlds.crafter.author import write_action
    from rlgpt.worlds.crafter.tasks import get_task

    params = Params()
    task = get_task("make_wood_pickaxe")
    names = ["collect_wood", "place_table", "make_wood_pickaxe"]
    coded = [write_action(n, params.train.macro_step_budget) for n in names]
    cfg = RLConfig(
        macro_actions=names,
        reward_terms=[RewardTerm(achievement=n, weight=1.0) for n in names],
        ppo=params.train.ppo,
        sample_budget=samples,
    )
    with tempfile.TemporaryDirectory() as out:
        res = train(
            Trial.of(task, cfg, coded),
            Path(out),
            settings=TrainSettings(params=params.train, seed=seed, show_progress=False),
        )
    return {"samples": res.samples, "wall_s": res.wall_s}


class _PeakRSS:
    """Samples the RSS of this process and all its children (the sandboxed workers)."""

    def __init__(self, every_s: float = 0.2) -> None:
        import psutil

        self.proc, self.peak, self.every_s = psutil.Process(), 0, every_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.every_s):
            total = self.proc.memory_info().rss
            for child in self.proc.children(recursive=True):
                with contextlib.suppress(Exception):
                    total += child.memory_info().rss
            self.peak = max(self.peak, total)

    def stop_mib(self) -> float:
        self._stop.set()
        self._thread.join()
        own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        return max(self.peak, own) / 2**20


def _run(kind: str, args: argparse.Namespace, n: int = 1) -> list[dict[str, float]]:
    """`n` trainings of one kind started at once, each in a fresh process."""
    env = dict(os.environ)
    if kind == "baseline":
        env["NUMBA_DISABLE_JIT"] = "1"  # stock crafter as published: pure-Python worldgen
    cmd = [sys.executable, __file__, "--child", kind, "--samples", str(args.samples)]
    cmd += ["--baseline-samples", str(args.baseline_samples)]
    procs = [
        subprocess.Popen(
            [*cmd, "--seed", str(args.seed + i)], env=env, stdout=subprocess.PIPE, text=True
        )
        for i in range(n)
    ]
    outs = [p.communicate()[0] for p in procs]
    if any(p.returncode for p in procs):
        raise SystemExit(f"a {kind} training failed")
    runs = [json.loads(o.strip().splitlines()[-1]) for o in outs]
    for r in runs:
        r["samples_per_s"] = r["samples"] / r["wall_s"]
    return runs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--samples", type=int, default=30_000, help="rlgpt primitive samples")
    ap.add_argument("--baseline-samples", type=int, default=3_072, help="baseline samples")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--rounds",
        type=int,
        default=2,
        help="rounds of baseline then rlgpt, interleaved; medians are reported",
    )
    ap.add_argument(
        "--together", type=int, default=2, help="also N rlgpt trainings at once, each round (0: no)"
    )
    ap.add_argument("--child", choices=["baseline", "rlgpt"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        fn = _baseline if args.child == "baseline" else _rlgpt
        n = args.baseline_samples if args.child == "baseline" else args.samples
        meter = _PeakRSS()
        result = fn(n, args.seed)
        result["peak_rss_mib"] = meter.stop_mib()
        print(json.dumps(result))
        return
    rates: dict[str, list[float]] = {"baseline": [], "rlgpt": [], "together": []}
    rss = 0.0
    for k in range(args.rounds):
        for kind in ("baseline", "rlgpt"):
            r = _run(kind, args)[0]
            rates[kind].append(r["samples_per_s"])
            if kind == "rlgpt":
                rss = max(rss, r["peak_rss_mib"])
            print(
                f"round {k + 1} {kind:>8}: {r['samples_per_s']:7.0f} samples/s  ({r['samples']} "
                f"samples, {r['wall_s']:.1f} s, peak RSS {r['peak_rss_mib']:.0f} MiB)",
                flush=True,
            )
        if args.together > 1:
            runs = _run("rlgpt", args, args.together)
            rates["together"].append(sum(r["samples_per_s"] for r in runs))
            print(
                f"round {k + 1} rlgpt x{args.together}: {rates['together'][-1]:7.0f} samples/s "
                "in all",
                flush=True,
            )
    base, mine = statistics.median(rates["baseline"]), statistics.median(rates["rlgpt"])
    figures: dict[str, float] = {
        "baseline_samples_per_s": round(base, 1),
        "rlgpt_samples_per_s": round(mine, 1),
        "ratio": round(mine / base, 2),
        "peak_rss_mib": round(rss, 1),
    }
    print(f"medians of {args.rounds} round(s): baseline {base:.0f}, rlgpt {mine:.0f} samples/s")
    print(f"ratio: {mine / base:.1f}x")
    if rates["together"]:
        both = statistics.median(rates["together"])
        figures["rlgpt_together_samples_per_s"] = round(both, 1)
        figures["together_vs_alone"] = round(both / mine, 2)
        print(f"{args.together} at once: {both / mine:.2f}x the samples/s of one")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
