"""Environment throughput: stock crafter vs rlgpt's fast backend, random policy, resets included.

Both run in one invocation, each in its own fresh process, on the same seeds and the same
action sequence:
- stock: `crafter.Env` as published (image observation, pure-Python OpenSimplex world
  generation: numba is switched off with NUMBA_DISABLE_JIT=1, as on a machine without it);
- fast:  `rlgpt.worlds.crafter.env.CrafterEnv` with the symbolic observation (what training uses).

Ends with one JSON line: {"stock_steps_per_s", "fast_steps_per_s", "ratio", ...}.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np


def _run(kind: str, steps: int, seed: int) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    acts = rng.integers(0, 17, size=steps)
    if kind == "stock":
        import crafter

        env = crafter.Env(seed=seed)
        reset = env.reset

        def step(a: int) -> bool:
            return bool(env.step(a)[2])

    else:
        from rlgpt.worlds.crafter.env import CrafterEnv
        from rlgpt.worlds.crafter.tasks import get_task

        fast = CrafterEnv(get_task("collect_diamond"), "symbolic", seed=seed)

        def reset() -> object:
            return fast.reset()

        def step(a: int) -> bool:
            _, _, term, trunc, _ = fast.step(a)
            return term or trunc

    reset()  # warm-up: imports, JIT cache load, first world; not timed
    t0 = time.perf_counter()
    reset()
    resets = 1
    for a in acts:
        if step(int(a)):
            reset()
            resets += 1
    wall = time.perf_counter() - t0
    return {"steps_per_s": steps / wall, "resets": resets, "wall_s": wall}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=20_000, help="steps of the fast backend")
    ap.add_argument("--stock-steps", type=int, default=3_000, help="steps of stock crafter")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--child", choices=["stock", "fast"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        steps = args.stock_steps if args.child == "stock" else args.steps
        print(json.dumps(_run(args.child, steps, args.seed)))
        return
    results = {}
    for kind in ("stock", "fast"):
        env = dict(os.environ)
        if kind == "stock":
            env["NUMBA_DISABLE_JIT"] = "1"
        cmd = [sys.executable, __file__, "--child", kind, "--steps", str(args.steps),
               "--stock-steps", str(args.stock_steps), "--seed", str(args.seed)]  # fmt: skip
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
        results[kind] = json.loads(out.stdout.strip().splitlines()[-1])
        r = results[kind]
        rate, resets, wall = r["steps_per_s"], r["resets"], r["wall_s"]
        print(f"{kind:>5}: {rate:8.0f} steps/s  ({resets} resets, {wall:.1f} s)")
    ratio = results["fast"]["steps_per_s"] / results["stock"]["steps_per_s"]
    print(f"ratio: {ratio:.1f}x")
    print(json.dumps({
        "stock_steps_per_s": round(results["stock"]["steps_per_s"], 1),
        "fast_steps_per_s": round(results["fast"]["steps_per_s"], 1),
        "ratio": round(ratio, 2),
        "stock_resets": results["stock"]["resets"],
        "fast_resets": results["fast"]["resets"],
    }))  # fmt: skip


if __name__ == "__main__":
    main()
