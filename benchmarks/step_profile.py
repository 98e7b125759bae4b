"""Where a training's time goes, per primitive step: a profile of the step path, split by part.

Two tasks with the default params (MaskablePPO, 4 envs, plan masks, 1 torch thread):
- `default`: make_wood_pickaxe with collect_wood, place_table and make_wood_pickaxe coded and
  inserted beside the primitives (as benchmarks/ppo_throughput.py trains it);
- `deep`: make_iron_pickaxe with the offline author's plan, every step coded (swords, survival
  actions included): the policy only sequences coded actions, and nearly every primitive step
  is a step of a coded action in its sandboxed worker.

Each training runs in a fresh process, alone and `--together N` at once. The parts are timed by
wrapping the methods that do them, in CPU time of the thread that runs them (exclusive: a part
nested in another counts once, for itself), and the
workers' CPU time is read from the OS:
  env_step        the game's step (FastCrafter.step), CrafterEnv's info, the reward terms
  env_reset       a new episode: world generation
  observation     the policy's observation (the symbolic window, inventory, facing)
  view_memory     what a coded action sees: the view state, the episode's memory of cells
  mask            the action masks (sb3-contrib asks before every decision)
  runtime         the coded-action runtime around each primitive step (MacroActionWrapper)
  round_trip      the host's side of each worker call: encoding, the pipe, decoding
  policy_forward  the policy's forward pass for each decision (rollouts)
  rollout         the rest of collecting a rollout: SB3's loop and buffer, the vec env
  ppo_update      PPO's gradient epochs
  other           the rest of the training process's CPU time in learn() (unwrapped code)
  worker          CPU time of the sandboxed workers: decoding, the view's update, the coded
                  action's Python, encoding, their pipe
  waiting         wall time in which the training process ran nothing: waiting for a worker's
                  answer, or for a core (on a busy machine)
Figures are microseconds per primitive step (CPU time; `waiting` is wall time), and `startup_s`
(envs, workers, model) is kept apart. Round trips to the workers (start, next and stop calls)
are counted per primitive step (`round_trips_per_step`) and per primitive step taken inside
coded actions (`round_trips_per_macro_step`): a plan's steps (rlgpt/sandbox/plans.py) come
without one. With `--against DIR` the same profile runs, interleaved,
on another checkout of rlgpt (PYTHONPATH=DIR), e.g. the code before a change, and each part's
ratio is printed: an A/B in one run. Medians over `--rounds`.

    python benchmarks/step_profile.py                     # ~4 min here
    python benchmarks/step_profile.py --against ../base   # A/B, ~8 min

Ends with one JSON line: {"<task>_<alone|together>": {"samples_per_s", "us_per_step": {part:
us}, ...}, "load_avg": ..., and with --against "<task>_<mode>_speedup"}.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

PARTS = (
    "env_step", "env_reset", "observation", "view_memory", "mask", "runtime", "round_trip",
    "policy_forward", "rollout", "ppo_update", "other", "worker", "waiting",
)  # fmt: skip
TASKS = ("default", "deep")


class Clock:
    """Exclusive wall time per label: time spent in a wrapped call, less the time of the wrapped
    calls inside it."""

    def __init__(self) -> None:
        self.total: dict[str, float] = {}
        self.inside: dict[str, float] = {}  # the part of `total` inside the window (learn())
        self._local = threading.local()  # per thread: time taken by children of each open call
        self._lock = threading.Lock()

    @property
    def _stack(self) -> list[float]:
        stack = getattr(self._local, "stack", None)
        if stack is None:
            stack = self._local.stack = []
        return stack

    @contextlib.contextmanager
    def _timed(self, label: str) -> Iterator[None]:
        stack = self._stack
        stack.append(0.0)
        t0 = time.thread_time()
        try:
            yield
        finally:
            spent = time.thread_time() - t0
            inner = stack.pop()
            with self._lock:
                self.total[label] = self.total.get(label, 0.0) + spent - inner
            if stack:
                stack[-1] += spent

    def wrap(self, owner: Any, attr: str, label: str) -> None:
        fn = getattr(owner, attr, None)
        if fn is None:  # a checkout without this method: the time falls to its caller
            return
        clock = self

        def timed(*args: Any, **kwargs: Any) -> Any:
            with clock._timed(label):
                return fn(*args, **kwargs)

        setattr(owner, attr, timed)

    def wrap_waits(self, owner: Any, attr: str, label: str) -> None:
        """Like wrap, for a generator that yields where it waits (rlgpt/sandbox/pipes.py,
        Waits): each stretch between its resumptions is timed."""
        fn = getattr(owner, attr, None)
        if fn is None:
            return
        clock = self

        def timed(*args: Any, **kwargs: Any) -> Any:
            steps, sent = fn(*args, **kwargs), None
            while True:
                with clock._timed(label):
                    try:
                        fd = steps.send(sent)
                    except StopIteration as done:
                        return done.value
                sent = yield fd

        setattr(owner, attr, timed)

    def window(self, owner: Any, attr: str) -> None:
        """Count only what happens inside calls of `owner.attr` (the rest: `outside`)."""
        fn = getattr(owner, attr)
        clock = self

        def counted(*args: Any, **kwargs: Any) -> Any:
            before, cpu = dict(clock.total), time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                inside = {k: v - before.get(k, 0.0) for k, v in clock.total.items()}
                inside["process"] = time.process_time() - cpu
                for k, v in inside.items():
                    clock.inside[k] = clock.inside.get(k, 0.0) + v

        setattr(owner, attr, counted)


def _setup(task_kind: str, samples: int) -> tuple[Any, Any, list[Any], Any]:
    from rlgpt.config import Params
    from rlgpt.messages import RewardTerm, RLConfig
    from rlgpt.worlds import get_world

    params = Params()
    world = get_world("crafter")
    author = world.author()
    budget = params.train.macro_step_budget
    if task_kind == "default":
        task = world.task("make_wood_pickaxe")
        names = ["collect_wood", "place_table", "make_wood_pickaxe"]
        coded = [author.write_action(n, budget) for n in names]
        terms = [RewardTerm(achievement=n, weight=1.0) for n in names]
        cfg = RLConfig(macro_actions=names, ppo=params.train.ppo, sample_budget=samples,
                       reward_terms=terms)  # fmt: skip
        return task, cfg, coded, params
    # the offline author's first iteration (rlgpt/llm/offline.py): every step coded
    task = world.task("make_iron_pickaxe")
    dec = author.decompose(task, {}, {})
    coded = [author.write_action(s.name, budget) for s in dec.sub_actions if s.mode == "code"]
    names = [c.name for c in coded]
    every = all(s.name in names for s in dec.sub_actions)
    terms = [RewardTerm(achievement=s.name, weight=1.0, cap=s.count)
             for s in dec.sub_actions if not s.survival]  # fmt: skip
    cfg = RLConfig(macro_actions=names, reward_terms=terms, success_bonus=5.0,
                   primitive_actions=[] if every else None, ppo=params.train.ppo,
                   sample_budget=samples)  # fmt: skip
    return task, cfg, coded, params


def _count_trips(counts: dict[str, int]) -> None:
    """Count the workers' round trips (every request but a load) and the primitive steps of
    coded actions' calls, the same way in any checkout of rlgpt."""
    from rlgpt.rl import runtime
    from rlgpt.sandbox import client

    call, run = client.MacroWorker._call_waits, runtime.MacroActionWrapper._run_macro

    def counted_call(self: Any, msg: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        counts["round_trips"] += msg.get("op") != "load"
        return (yield from call(self, msg, *args, **kwargs))

    def counted_run(self: Any, *args: Any, **kwargs: Any) -> Any:
        out = yield from run(self, *args, **kwargs)
        counts["macro_steps"] += int(out[4].get("primitive_steps", 0))
        return out

    client.MacroWorker._call_waits = counted_call  # type: ignore[method-assign]
    runtime.MacroActionWrapper._run_macro = counted_run  # type: ignore[method-assign]


def _instrument(clock: Clock, workers_cpu: Callable[[str, Any], None]) -> None:
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3 import PPO
    from stable_baselines3.common.policies import ActorCriticPolicy

    from rlgpt.rl import rewards, runtime
    from rlgpt.sandbox import client, pool
    from rlgpt.worlds.crafter import env, fast

    hooks = [
        (fast.FastCrafter, "step", "env_step"), (env.CrafterEnv, "step", "env_step"),
        (rewards.AchievementReward, "step", "env_step"),
        (fast.FastCrafter, "reset", "env_reset"), (env.CrafterEnv, "reset", "env_reset"),
        (env.CrafterEnv, "_observe", "observation"),
        (env.CrafterEnv, "view_state", "view_memory"), (env.CrafterEnv, "memory", "view_memory"),
        (env.CrafterEnv, "_mark_seen", "view_memory"),
        (runtime.MacroActionWrapper, "action_masks", "mask"),
        (runtime.MacroActionWrapper, "step", "runtime"),
        (client.MacroWorker, "start", "round_trip"), (client.MacroWorker, "next", "round_trip"),
        (client.MacroWorker, "stop", "round_trip"),
        (MaskableActorCriticPolicy, "forward", "policy_forward"),
        (ActorCriticPolicy, "forward", "policy_forward"),
        (MaskablePPO, "collect_rollouts", "rollout"), (PPO, "collect_rollouts", "rollout"),
        (MaskablePPO, "train", "ppo_update"), (PPO, "train", "ppo_update"),
    ]  # fmt: skip
    for owner, attr, label in hooks:
        clock.wrap(owner, attr, label)
    waits = [
        (runtime.MacroActionWrapper, "step_waits", "runtime"),
        (client.MacroWorker, "start_waits", "round_trip"),
        (client.MacroWorker, "next_waits", "round_trip"),
        (client.MacroWorker, "stop_waits", "round_trip"),  # (a checkout before it: `stop`)
    ]
    for owner, attr, label in waits:  # envs stepped in turns (rlgpt/rl/interleave.py)
        clock.wrap_waits(owner, attr, label)
    for algo in (MaskablePPO, PPO):  # only what learn() does is the step path
        clock.window(algo, "learn")
    # the workers' CPU time between their start and their end (their start-up excluded)
    init, close = pool.MacroPool.__init__, pool.MacroPool.close

    def pool_init(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        workers_cpu("start", self)

    def pool_close(self: Any) -> None:
        workers_cpu("end", self)
        close(self)

    pool.MacroPool.__init__ = pool_init  # type: ignore[method-assign]
    pool.MacroPool.close = pool_close  # type: ignore[method-assign]


def _cpu_of(pool: Any) -> float:
    """CPU seconds of every process of a pool's workers (bwrap and the Python inside)."""
    import psutil

    total = 0.0
    for worker in getattr(pool, "_workers", {}).values():
        try:
            root = psutil.Process(worker._proc.pid)
            for p in [root, *root.children(recursive=True)]:
                t = p.cpu_times()
                total += t.user + t.system
        except psutil.Error:
            continue
    return total


def _child(task_kind: str, samples: int, seed: int) -> dict[str, Any]:
    from rlgpt.rl.train import TrainSettings, train
    from rlgpt.trial import Trial

    clock = Clock()
    cpu = {"worker": 0.0}
    marks: dict[int, float] = {}

    def workers_cpu(when: str, pool: Any) -> None:
        if when == "start":
            marks[id(pool)] = _cpu_of(pool)
        elif id(pool) in marks:
            cpu["worker"] += max(0.0, _cpu_of(pool) - marks.pop(id(pool)))

    counts = {"round_trips": 0, "macro_steps": 0}
    _count_trips(counts)
    _instrument(clock, workers_cpu)
    task, cfg, coded, params = _setup(task_kind, samples)
    with tempfile.TemporaryDirectory() as out:
        t0 = time.perf_counter()
        res = train(
            Trial.of(task, cfg, coded),
            Path(out),
            settings=TrainSettings(params=params.train, seed=seed, show_progress=False),
        )
        wall = time.perf_counter() - t0
    t = clock.inside
    n = res.samples
    parts = {p: t.get(p, 0.0) for p in PARTS}
    host = sum(v for p, v in parts.items() if p not in ("worker", "other", "waiting"))
    parts["other"] = max(0.0, t.get("process", 0.0) - host)  # learn()'s own, unhooked code
    parts["worker"] = cpu["worker"]
    parts["waiting"] = max(0.0, res.wall_s - t.get("process", 0.0))
    startup = wall - res.wall_s  # what train() does outside learn(): envs, workers, model
    return {
        "samples": n, "decisions": res.decisions, "wall_s": wall, "learn_s": res.wall_s,
        "samples_per_s": res.samples_per_s, "startup_s": startup,
        "us_per_step": {p: v / n * 1e6 for p, v in parts.items()},
        "round_trips_per_step": counts["round_trips"] / n,
        "round_trips_per_macro_step": counts["round_trips"] / max(counts["macro_steps"], 1),
    }  # fmt: skip


def _launch(tree: str | None, task: str, n: int, samples: int, seed: int) -> list[dict[str, Any]]:
    """`n` trainings at once, each in a fresh process importing rlgpt from `tree` (None: this
    checkout)."""
    env = dict(os.environ)
    root = tree or str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [env.get("PYTHONPATH")])])
    cmd = [sys.executable, __file__, "--child", task, "--samples", str(samples)]
    procs = [
        subprocess.Popen([*cmd, "--seed", str(seed + i)], stdout=subprocess.PIPE, text=True,
                         env=env, cwd=tempfile.gettempdir())
        for i in range(n)
    ]  # fmt: skip
    outs = [p.communicate()[0] for p in procs]
    if any(p.returncode for p in procs):
        raise SystemExit(f"a profiled training failed ({task}, tree {root})")
    return [json.loads(o.strip().splitlines()[-1]) for o in outs]


def _summary(runs: list[list[dict[str, Any]]]) -> dict[str, Any]:
    """Medians over rounds; each round's figures are the mean over its trainings at once, and
    its samples/s the sum (in all)."""
    per_round = []
    for group in runs:
        k = len(group)
        steps = {p: sum(r["us_per_step"][p] for r in group) / k for p in PARTS}
        per_round.append({
            "samples_per_s": sum(r["samples_per_s"] for r in group),
            "startup_s": sum(r["startup_s"] for r in group) / k,
            "us_per_step": steps,
            "us_per_step_total": sum(1e6 / r["samples_per_s"] for r in group) / k,
            "round_trips_per_step": sum(r["round_trips_per_step"] for r in group) / k,
            "round_trips_per_macro_step": sum(r["round_trips_per_macro_step"] for r in group) / k,
        })  # fmt: skip
    med = statistics.median
    return {
        "samples_per_s": round(med(r["samples_per_s"] for r in per_round), 1),
        "us_per_step_total": round(med(r["us_per_step_total"] for r in per_round), 1),
        "startup_s": round(med(r["startup_s"] for r in per_round), 2),
        "us_per_step": {p: round(med(r["us_per_step"][p] for r in per_round), 1) for p in PARTS},
        "round_trips_per_step": round(med(r["round_trips_per_step"] for r in per_round), 3),
        "round_trips_per_macro_step": round(
            med(r["round_trips_per_macro_step"] for r in per_round), 3
        ),
    }


def _print(key: str, res: dict[str, Any], base: dict[str, Any] | None) -> None:
    print(f"{key}: {res['samples_per_s']:.0f} samples/s, {res['us_per_step_total']:.0f} us "
          f"per step, start-up {res['startup_s']:.1f} s"
          + (f"   (against: {base['samples_per_s']:.0f} samples/s, "
             f"{res['samples_per_s'] / base['samples_per_s']:.2f}x)" if base else ""))  # fmt: skip
    for p in PARTS:
        us = res["us_per_step"][p]
        line = f"    {p:<15}{us:8.1f} us"
        if base:
            line += f"   against {base['us_per_step'][p]:8.1f} us"
        print(line)
    for k in ("round_trips_per_step", "round_trips_per_macro_step"):
        print(f"    {k:<27}{res[k]:6.3f}" + (f"   against {base[k]:6.3f}" if base else ""))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--samples", type=int, default=20_000, help="primitive samples (default task)")
    ap.add_argument("--deep-samples", type=int, default=12_000, help="samples of the deep task")
    ap.add_argument("--rounds", type=int, default=1, help="rounds; medians are reported")
    ap.add_argument("--together", type=int, default=2, help="also N trainings at once (0: no)")
    ap.add_argument("--tasks", default=",".join(TASKS), help="default, deep or both")
    ap.add_argument("--against", help="another rlgpt checkout, profiled the same way (A/B)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--child", choices=TASKS, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(_child(args.child, args.samples, args.seed)))
        return
    trees: list[str | None] = [None] + ([str(Path(args.against).resolve())] if args.against else [])
    modes = [("alone", 1)] + ([("together", args.together)] if args.together > 1 else [])
    runs: dict[tuple[str, str, int], list[list[dict[str, Any]]]] = {}
    loads = []
    for rnd in range(args.rounds):
        for task in args.tasks.split(","):
            samples = args.samples if task == "default" else args.deep_samples
            for mode, n in modes:
                order = list(range(len(trees)))
                for t in order if rnd % 2 == 0 else order[::-1]:  # interleave A and B
                    loads.append(os.getloadavg()[0])
                    group = _launch(trees[t], task, n, samples, args.seed)
                    runs.setdefault((task, mode, t), []).append(group)
    figures: dict[str, Any] = {}
    for (task, mode, t), groups in sorted(runs.items(), key=lambda kv: kv[0][2]):
        key = f"{task}_{mode}" if t == 0 else f"against_{task}_{mode}"
        figures[key] = _summary(groups)
    for task in args.tasks.split(","):
        for mode, _ in modes:
            key = f"{task}_{mode}"
            base = figures.get(f"against_{key}")
            _print(key, figures[key], base)
            if base:
                figures[f"{key}_speedup"] = round(
                    figures[key]["samples_per_s"] / base["samples_per_s"], 2
                )
        if len(modes) > 1:
            both, one = figures[f"{task}_together"], figures[f"{task}_alone"]
            scale = both["samples_per_s"] / one["samples_per_s"]
            figures[f"{task}_together_vs_alone"] = round(scale, 2)
            print(f"{task}: {args.together} at once give {scale:.2f}x the samples/s of one")
    figures["load_avg"] = round(statistics.median(loads), 2)
    print(f"load average (1 min) before each training, median: {figures['load_avg']}")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
