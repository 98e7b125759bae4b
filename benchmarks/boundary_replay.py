"""The sandbox boundary's CPU per round trip, on replayed requests.

A real training's calls to its coded actions (benchmarks/sandbox_overhead.py's training: the
default task, its three coded actions) are recorded once, in-process: every start, next,
stop and plan end, with the view state each carried. They are then replayed through the
in-process logic and through a sandboxed worker (bubblewrap), in fresh processes, the rounds
alternating, the host doing `--gap` turns of Python between calls (as a training's env steps
and policy do, which leave the caches cold). The requests and the replies are the same every
time, so, unlike a training's samples/s, this figure moves with the code and the machine, not
with what a training happened to do: the way to tell apart two versions of the boundary on a
noisy machine (docs/sandbox.md). Per round trip, in microseconds of CPU: the host's side (its
calls, timed in its own process), the worker's (read from the OS), the same logic in-process,
and the boundary: host + worker - in-process.

With `--against CHECKOUT` the same recording replays, round by round, through another
checkout of rlgpt too (PYTHONPATH=CHECKOUT; its own benchmarks/sandbox_overhead.py's
in-process logic): an A/B in one run, e.g. the code before a change.

    python benchmarks/boundary_replay.py                       # ~3 min here
    python benchmarks/boundary_replay.py --against ../before   # A/B, ~5 min

Ends with one JSON line: {"trips", "host_us", "worker_us", "in_process_us", "boundary_us",
"rounds", and with --against "against": the same for the other checkout, and
"boundary_ratio": this boundary over the other's, the median of the rounds' ratios}.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

OPS = ("start", "next", "stop", "ended")
PARTS = ("host_us", "worker_us", "in_process_us", "boundary_us")


def _record(path: str, samples: int, seed: int) -> None:
    """Train in-process for `samples` and write every call the coded actions got to `path`."""
    import sandbox_overhead as so

    from rlgpt.config import Params
    from rlgpt.messages import RewardTerm, RLConfig
    from rlgpt.worlds.crafter.author import write_action

    log: list[tuple[str, Any]] = []
    for op in OPS:
        method = getattr(so.InProcess, op)

        def logged(self: Any, *args: Any, _method: Any = method, _op: str = op) -> Any:
            if _op == "ended":  # its state comes as a function: keep what it returns
                state = args[0]() if callable(args[0]) else args[0]
                log.append((_op, (copy.deepcopy(state), copy.deepcopy(args[1]))))
            else:
                log.append((_op, copy.deepcopy(args)))
            return _method(self, *args)

        setattr(so.InProcess, op, logged)
    params = Params()
    coded = [write_action(n, params.train.macro_step_budget) for n in so.NAMES]
    terms = [RewardTerm(achievement=n, weight=1.0) for n in so.NAMES]
    cfg = RLConfig(
        macro_actions=so.NAMES, ppo=params.train.ppo, sample_budget=samples, reward_terms=terms
    )
    so._training("in_process", params, cfg, coded, seed)
    with open(path, "wb") as f:
        pickle.dump(log, f)


def _replay(
    runner: Any, log: list[tuple[str, Any]], gap: int, busy: Callable[[int], Any]
) -> tuple[list[Any], float]:
    """Every recorded call made on `runner`, `busy(gap)` before each: what each returned, and
    the CPU of the calls."""
    out, cpu, clock = [], 0.0, time.process_time
    for op, args in log:
        busy(gap)
        t0 = clock()
        if op == "ended":
            out.append(runner.ended(lambda s=args[0]: s, args[1]))
        else:
            out.append(getattr(runner, op)(*args))
        cpu += clock() - t0
    return out, cpu


def _child(path: str, gap: int, tree: str) -> dict[str, Any]:
    """One measurement with checkout `tree`'s rlgpt and in-process logic: in-process, then
    sandboxed."""
    sys.path.insert(0, str(Path(tree) / "benchmarks"))  # before this script's own folder
    import sandbox_overhead as so

    from rlgpt.config import Params
    from rlgpt.sandbox.client import MacroWorker
    from rlgpt.sandbox.limits import tree_cpu_ns
    from rlgpt.worlds.crafter.author import write_action

    with open(path, "rb") as f:
        log = pickle.load(f)  # noqa: S301 - written by this benchmark's own run
    coded = [write_action(n, Params().train.macro_step_budget) for n in so.NAMES]
    logic = so.InProcess(coded)
    expected, in_process = _replay(logic, log, gap, so._busy)
    trips = logic.round_trips
    worker = MacroWorker(coded, so.SKILLS, isolation="bwrap")
    try:
        before = tree_cpu_ns(worker._proc.pid) or 0
        got, host = _replay(worker, log, gap, so._busy)
        # the CPU its calls were charged (its cgroup's counter, to the microsecond); where
        # none is measured, its process tree's, to the clock tick
        tree_s = ((tree_cpu_ns(worker._proc.pid) or 0) - before) / 1e9
        worker_s = worker.cpu_ns / 1e9 if worker.cpu_ns else tree_s
    finally:
        worker.close()
    if got != expected:
        raise SystemExit("the sandboxed worker answered otherwise than the in-process logic")
    per = {"host_us": host, "worker_us": worker_s, "in_process_us": in_process}
    res: dict[str, Any] = {k: v / trips * 1e6 for k, v in per.items()}
    res["boundary_us"] = res["host_us"] + res["worker_us"] - res["in_process_us"]
    return res | {"trips": trips}


def _run(tree: str, path: str, gap: int) -> dict[str, Any]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([tree, *filter(None, [env.get("PYTHONPATH")])])
    cmd = [sys.executable, __file__, "--child", path, "--gap", str(gap), "--tree", tree]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tempfile.gettempdir())
    if done.returncode:
        raise SystemExit(f"a replay failed (tree {tree}): {done.stderr.strip()[-300:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def _medians(runs: list[dict[str, Any]]) -> dict[str, Any]:
    return {k: round(statistics.median(r[k] for r in runs), 1) for k in PARTS} | {
        "trips": runs[0]["trips"]
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--samples", type=int, default=8_000, help="samples of the recorded training")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=3, help="rounds (order alternating); medians")
    ap.add_argument("--gap", type=int, default=20_000, help="loop turns of Python between calls")
    ap.add_argument("--against", help="another rlgpt checkout, replayed the same way (A/B)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--tree", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(_child(args.child, args.gap, args.tree)))
        return
    here = str(Path(__file__).resolve().parents[1])
    trees = [here] + ([str(Path(args.against).resolve())] if args.against else [])
    if len(set(trees)) < len(trees):
        raise SystemExit("--against names this checkout: give another one (the code to compare)")
    runs: dict[str, list[dict[str, Any]]] = {t: [] for t in trees}
    with tempfile.TemporaryDirectory(prefix="rlgpt-replay-") as tmp:
        path = str(Path(tmp) / "calls.pkl")
        _record(path, args.samples, args.seed)
        for rnd in range(args.rounds):
            for tree in trees if rnd % 2 == 0 else trees[::-1]:
                res = _run(tree, path, args.gap)
                runs[tree].append(res)
                print(f"round {rnd + 1} {Path(tree).name}: " + ", ".join(
                    f"{k.removesuffix('_us')} {res[k]:.0f}" for k in PARTS) + " us a trip",
                      flush=True)  # fmt: skip
    figures: dict[str, Any] = _medians(runs[here]) | {"rounds": args.rounds, "gap": args.gap}
    print(f"{figures['trips']} round trips replayed; medians of {args.rounds} rounds, us of CPU "
          "per round trip:")  # fmt: skip
    for name, tree in zip(("this", "against"), trees, strict=False):
        med = _medians(runs[tree])
        print(f"  {name:>7}: " + ", ".join(f"{k.removesuffix('_us')} {med[k]:.0f}" for k in PARTS))
        if name == "against":
            figures["against"] = med
            ratio = statistics.median(  # paired: the rounds share the machine's minute
                a["boundary_us"] / b["boundary_us"]
                for a, b in zip(runs[here], runs[tree], strict=True)
            )
            figures["boundary_ratio"] = round(ratio, 3)
            print(f"  the boundary, this against the other: {ratio:.2f}x (median of the rounds)")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
