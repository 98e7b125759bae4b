"""World throughput: env steps/s of each game behind rlgpt, against its own baseline, one run.

Random policy, one env, one process per kind (a fresh child each: JAX's threads never share a
process with crafter's timing), the same action sequence, resets included:
- stock:         `crafter.Env` as published (image observation, pure-Python world generation:
                 NUMBA_DISABLE_JIT=1, as on a machine without numba);
- crafter_world: rlgpt's `CrafterEnv` (fast backend, symbolic), the coded-action view
                 (the env's `view_state`) built every step, as training does;
- craftax_step:  craftax's own `CraftaxClassicSymbolicEnvNoAutoReset.step` in a Python loop
                 (jitted, its symbolic observation, a key split per step, explicit resets);
- craftax_world: rlgpt's `CraftaxClassicEnv`, the view built every step.
Compiles happen before the timed part (and come from JAX's disk cache after the first run).
Each kind runs `--rounds` times, interleaved with the others, and its best run counts: load
from elsewhere on the machine only ever slows a run down. Rates per CPU second of the child
(all its threads) are given too: on a shared machine they move less than wall-clock rates.

Ends with one JSON line: {"<kind>_steps_per_s", "<kind>_steps_per_cpu_s", "<kind>_resets",
..., "craftax_world_vs_<kind>" and "craftax_world_vs_<kind>_cpu" for craftax_step, stock and
crafter_world}.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

KINDS = ("stock", "crafter_world", "craftax_step", "craftax_world")


def _stock(seed: int) -> tuple[Callable[[], object], Callable[[int], bool]]:
    import crafter

    env = crafter.Env(seed=seed)
    return env.reset, lambda a: bool(env.step(a)[2])


def _world(kind: str, seed: int) -> tuple[Callable[[], object], Callable[[int], bool]]:
    from rlgpt.worlds.crafter.tasks import get_task

    task = get_task("collect_diamond")
    if kind == "crafter_world":
        from rlgpt.worlds.crafter.env import CrafterEnv

        env = CrafterEnv(task, "symbolic", seed=seed)
    else:
        from rlgpt.worlds.craftax_classic.env import CraftaxClassicEnv

        env = CraftaxClassicEnv(task, "symbolic", seed=seed)  # type: ignore[assignment]

    def step(a: int) -> bool:
        _, _, term, trunc, info = env.step(a)
        env.view_state(info)
        return term or trunc

    return env.reset, step


def _craftax_step(seed: int) -> tuple[Callable[[], object], Callable[[int], bool]]:
    # First: the world's module sets its XLA flags before craftax's import starts JAX's
    # backend, so both craftax kinds run under the same flags.
    from rlgpt.worlds.craftax_classic.game import enable_compilation_cache

    enable_compilation_cache()
    import jax
    from craftax.craftax_classic.envs.craftax_symbolic_env import (
        CraftaxClassicSymbolicEnvNoAutoReset,
    )

    env = CraftaxClassicSymbolicEnvNoAutoReset()
    params = env.default_params
    box: dict[str, Any] = {"key": jax.random.PRNGKey(seed), "state": None}

    def reset() -> object:
        box["key"], sub = jax.random.split(box["key"])
        _, box["state"] = env.reset(sub, params)
        return box["state"]

    def step(a: int) -> bool:
        box["key"], sub = jax.random.split(box["key"])
        _, box["state"], _, done, _ = env.step(sub, box["state"], a, params)
        return bool(done)

    return reset, step


def _run(kind: str, steps: int, seed: int) -> dict[str, float]:
    acts = [int(a) for a in np.random.default_rng(seed).integers(0, 17, size=steps)]
    if kind == "stock":
        reset, step = _stock(seed)
    elif kind == "craftax_step":
        reset, step = _craftax_step(seed)
    else:
        reset, step = _world(kind, seed)
    reset()  # warm-up: imports, compiles (or the disk cache), first world; not timed
    for a in acts[:5]:
        step(a)
    t0, c0 = time.perf_counter(), time.process_time()
    reset()
    resets = 1
    for a in acts:
        if step(a):
            reset()
            resets += 1
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {"steps_per_s": steps / wall, "steps_per_cpu_s": steps / cpu, "resets": resets,
            "wall_s": wall}  # fmt: skip


def _child(kind: str, args: argparse.Namespace) -> dict[str, float]:
    env = dict(os.environ)
    if kind == "stock":
        env["NUMBA_DISABLE_JIT"] = "1"
    cmd = [sys.executable, __file__, "--child", kind, "--steps", str(args.steps),
           "--stock-steps", str(args.stock_steps), "--seed", str(args.seed)]  # fmt: skip
    res = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=5_000, help="steps of each kind but stock")
    ap.add_argument("--stock-steps", type=int, default=2_000, help="steps of stock crafter")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=3, help="runs of each kind; the best counts")
    ap.add_argument("--child", choices=KINDS, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        steps = args.stock_steps if args.child == "stock" else args.steps
        print(json.dumps(_run(args.child, steps, args.seed)))
        return
    runs: dict[str, list[dict[str, float]]] = {kind: [] for kind in KINDS}
    for _ in range(args.rounds):  # kinds interleaved; the best run of each counts
        for kind in KINDS:
            runs[kind].append(_child(kind, args))
    best = {kind: {**max(rs, key=lambda r: r["steps_per_s"]),
                   "steps_per_cpu_s": max(r["steps_per_cpu_s"] for r in rs)}
            for kind, rs in runs.items()}  # fmt: skip
    out: dict[str, float] = {}
    for kind, r in best.items():
        out[f"{kind}_steps_per_s"] = round(r["steps_per_s"], 1)
        out[f"{kind}_steps_per_cpu_s"] = round(r["steps_per_cpu_s"], 1)
        out[f"{kind}_resets"] = r["resets"]
        print(
            f"{kind:>13}: {r['steps_per_s']:8.0f} steps/s, {r['steps_per_cpu_s']:8.0f} per "
            f"CPU second  ({r['resets']} resets, {r['wall_s']:.1f} s)"
        )
    for base in ("craftax_step", "stock", "crafter_world"):
        for unit, key in (("", "steps_per_s"), ("_cpu", "steps_per_cpu_s")):
            ratio = best["craftax_world"][key] / best[base][key]
            out[f"craftax_world_vs_{base}{unit}"] = round(ratio, 2)
        print(
            f"craftax_world / {base}: {out[f'craftax_world_vs_{base}']:.2f}x wall, "
            f"{out[f'craftax_world_vs_{base}_cpu']:.2f}x CPU"
        )
    print(json.dumps(out))


if __name__ == "__main__":
    main()
