"""Sandbox overhead: validation latency, worker round trips, and PPO samples/s with coded
actions in the sandboxed worker (bubblewrap, and degraded) vs run in-process.

The in-process baseline exists only here, to measure the price of the process boundary: it
runs the reference skills (trusted code) through the worker's own logic without a process,
inside the very same training (`rlgpt.rl.train.train`: MaskablePPO, the masks, its vec env),
with only the pool of sandboxed workers swapped for it. Its calls never wait, so its envs step
one after another; sandboxed, an env waiting for its worker lets the next env step its game
(rlgpt/rl/interleave.py), which can put the workers on another core.
Every PPO figure comes from fresh processes, alone and `--together N` at once (aggregate), with
rlgpt's OpenMP settings; everything is measured in this one run. Each round runs the in-process
and the bubblewrap training back to back (their order alternating from round to round), so each
round gives one paired cost, `1 - bubblewrap / in-process`; the figures are the median of the
rounds' costs (a slow minute of this shared machine falls on one round, not on every figure)
and, as before, the cost between each kind's best round. Each training also reports its CPU
per sample (the training process in learn() plus its workers, from the OS): what decides
samples/s on a machine full of runs, and its worker round trips per sample (start, next and
stop: the same in every kind, as the dynamics are; a plan's steps need none), so the
boundary's CPU per round trip is printed too, beside its
floor: requests recorded from real calls sent over pipes to a Python process that only answers,
the host busy in between as in a training. Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rlgpt import OPENMP_DEFAULTS
from rlgpt.config import Params
from rlgpt.messages import RewardTerm, RLConfig
from rlgpt.rl import envs
from rlgpt.rl.train import TrainSettings, train
from rlgpt.sandbox.client import MacroWorker
from rlgpt.sandbox.stepping import PlanStepper
from rlgpt.sandbox.worker import _Worker
from rlgpt.trial import Trial
from rlgpt.validation.validate import validate_action
from rlgpt.worlds import get_world
from rlgpt.worlds.crafter.author import write_action
from rlgpt.worlds.crafter.env import CrafterEnv
from rlgpt.worlds.crafter.recipes import actions
from rlgpt.worlds.crafter.tasks import get_task

SKILLS = get_world("crafter").skills()

NAMES = ["collect_wood", "place_table", "make_wood_pickaxe"]


# The floor's worker: read each request line, answer with a fixed reply (no parsing, no logic).
ECHO = """import os, sys
r, w = int(sys.argv[1]), int(sys.argv[2])
buf = b""
while True:
    chunk = os.read(r, 65536)
    if not chunk:
        break
    buf += chunk
    while len(buf) >= 4 and len(buf) >= 4 + int.from_bytes(buf[:4], "little"):
        end = 4 + int.from_bytes(buf[:4], "little")
        buf = buf[end:]
        os.write(w, b'{"action": "do"}\\n')
"""


class InProcess:
    """The worker's logic without the process (benchmark baseline only); its plans are
    stepped by the host's own stepper, as a sandboxed worker's are."""

    def __init__(self, coded: list[Any]) -> None:
        self.w = _Worker()
        self.w.load({"api": SKILLS.api, "view": SKILLS.view, "primitives": actions(),
                     "actions": {c.name: c.source for c in coded}})  # fmt: skip
        self.plans = PlanStepper(SKILLS)
        self.round_trips = 0
        self._ended: list[dict[str, Any]] | None = None

    def _reply(self, msg: dict[str, Any], state: dict[str, Any]) -> str | None:
        self.round_trips += 1
        out = self.w.advance(msg)
        if out.get("done"):
            return None
        if "plan" in out:
            return self.plans.begin(out["plan"], state, out.get("ends"))
        return out["action"]

    def start(self, name: str, state: dict[str, Any]) -> str | None:
        self.plans.clear()
        msg: dict[str, Any] = {"op": "start", "name": name, "state": state}
        if self._ended is not None:  # the plan's last state, as MacroWorker sends
            msg["close"], self._ended = self._ended[-1:], None
        return self._reply(msg, state)

    def next(self, state: dict[str, Any]) -> str | None:
        msg: dict[str, Any] = {"op": "next", "state": state}
        if self.plans.active:
            action = self.plans.after(state)
            if action is not None:
                return action
            ended = self.plans.ended
            seen, msg["taken"] = self.plans.report()
            if ended:
                self._ended = seen
                return None
            msg["before"] = seen[:-1]
        return self._reply(msg, state)

    def ended(self, state: Any, achievements: dict[str, int]) -> bool:
        """As MacroWorker.ended: a call cut right after its plan's end needs no stop."""
        if not self.plans.active or not self.plans.ends_with(state, achievements):
            return False
        self._ended, _ = self.plans.report()
        return True

    def stop(self) -> None:
        self.plans.clear()
        self._ended = None
        self.round_trips += 1
        self.w.advance({"op": "stop"})

    def close(self) -> None:
        return None


def _round_trip_us(coded: list[Any], isolation: str, n: int = 3000) -> float:
    env = CrafterEnv(get_task("make_wood_pickaxe"))
    _, info = env.reset(seed=0)
    state = env.view_state(info)
    worker = MacroWorker([c for c in coded if c.name == "place_table"], SKILLS, isolation=isolation)
    try:
        t0 = time.perf_counter()
        for _ in range(n):
            worker.start("place_table", state)  # no wood: returns at once, one round trip
        return (time.perf_counter() - t0) / n * 1e6
    finally:
        worker.close()


def _busy(n: int) -> int:
    """Python work between two calls, as a training's env step and policy are."""
    total = 0
    for i in range(n):
        total += i * i
    return total


def _on_cpu_s(pid: int) -> float:
    """CPU time of process `pid` so far, in nanoseconds' precision (/proc/PID/schedstat)."""
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9


def _bare_round_trip(lines: list[bytes], gap: int = 5_000) -> dict[str, float]:
    """The floor of a call: `lines` (recorded requests) sent one at a time to a process that
    reads each and answers a fixed line, the host doing `gap` loop turns of Python between
    calls (its caches then go cold as a training's do). CPU per round trip of the host (its
    write and read) and of the other process, and wall time per turn."""
    req_r, req_w = os.pipe()
    rep_r, rep_w = os.pipe()
    child = subprocess.Popen([sys.executable, "-I", "-S", "-c", ECHO, str(req_r), str(rep_w)],
                             pass_fds=(req_r, rep_w))  # fmt: skip
    os.close(req_r)
    os.close(rep_w)
    try:
        before, host = _on_cpu_s(child.pid), 0.0
        t0 = time.perf_counter()
        for line in lines:
            _busy(gap)
            c0 = time.process_time()
            os.write(req_w, line)
            got = os.read(rep_r, 65_536)
            while not got.endswith(b"\n"):
                got += os.read(rep_r, 65_536)
            host += time.process_time() - c0
        wall = time.perf_counter() - t0
        echo = _on_cpu_s(child.pid) - before
    finally:
        os.close(req_w)
        child.wait()
        os.close(rep_r)
    n = len(lines)
    return {"host_us": host / n * 1e6, "worker_us": echo / n * 1e6, "wall_us": wall / n * 1e6}


def _recorded_requests(coded: list[Any], n: int = 2000) -> list[bytes]:
    """The requests of real calls, as the wire carries them (what changed of the view state,
    as the client sends it): a call started on a fresh episode, then `next` with each step's
    state, restarted when it ends."""
    from rlgpt.sandbox.client import state_delta
    from rlgpt.sandbox.wire import request

    env = CrafterEnv(get_task("make_wood_pickaxe"))
    _, info = env.reset(seed=0)
    logic = InProcess([c for c in coded if c.name == "collect_wood"])
    out: list[bytes] = []
    sent: dict[str, Any] = {}
    prim: str | None = None
    while len(out) < n:
        state = env.view_state(info, start=prim is None)
        delta = state_delta(state, sent, SKILLS.sent_when_changed)
        msg = {"op": "start" if prim is None else "next", "state": delta}
        if prim is None:
            msg["name"] = "collect_wood"
        out.append(request(msg))
        prim = logic.start("collect_wood", state) if prim is None else logic.next(state)
        _, _, term, trunc, info = env.step(actions().index(prim or "noop"))
        if term or trunc:
            _, info = env.reset()
            prim = None
    return out


def _training(
    kind: str, params: Params, cfg: RLConfig, coded: list[Any], seed: int
) -> dict[str, float]:
    """One training with the coded actions in-process, bubblewrap or degraded: its samples/s
    and its CPU per sample (the process in learn(), plus its workers from the OS)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3 import PPO
    from step_profile import _cpu_of

    from rlgpt.sandbox import pool

    cpu = {"host": 0.0, "workers": 0.0}
    calls = [0]  # round trips (start, next, stop), of every kind
    marks: dict[int, float] = {}
    for algo in (MaskablePPO, PPO):
        learn = algo.learn

        def timed(self: Any, *args: Any, _learn: Any = learn, **kwargs: Any) -> Any:
            t0 = time.process_time()
            try:
                return _learn(self, *args, **kwargs)
            finally:
                cpu["host"] += time.process_time() - t0

        algo.learn = timed  # type: ignore[method-assign]
    init, close = pool.MacroPool.__init__, pool.MacroPool.close

    def pool_init(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        marks[id(self)] = _cpu_of(self)  # after the workers started and loaded

    def pool_close(self: Any) -> None:
        if id(self) in marks:
            cpu["workers"] += max(0.0, _cpu_of(self) - marks.pop(id(self)))
        close(self)

    pool.MacroPool.__init__ = pool_init  # type: ignore[method-assign]
    pool.MacroPool.close = pool_close  # type: ignore[method-assign]
    _count_calls(calls)
    if kind == "in_process":  # the same training, with the pool swapped for the logic alone
        envs.MacroPool = lambda inserted, *_, **__: InProcess(inserted)  # type: ignore[misc,assignment]
    task = get_task("make_wood_pickaxe")
    with tempfile.TemporaryDirectory() as out:
        isolation = "degraded" if kind == "in_process" else kind  # (in_process: not used)
        sandbox = params.sandbox.model_copy(update={"isolation": isolation})
        settings = TrainSettings(
            params=params.train, seed=seed, show_progress=False, sandbox=sandbox
        )
        result = train(Trial.of(task, cfg, coded), Path(out), settings=settings)
    per_sample = (cpu["host"] + cpu["workers"]) / max(result.samples, 1) * 1e6
    return {"samples_per_s": result.samples_per_s, "cpu_us_per_sample": per_sample,
            "calls_per_sample": calls[0] / max(result.samples, 1)}  # fmt: skip


def _count_calls(calls: list[int]) -> None:
    """Count each round trip (start, next, stop: a plan's steps need none), in-process and in
    a worker alike (each kind gets the same one frame more per call)."""
    from rlgpt.sandbox import client

    for name in ("_reply", "stop"):
        plain = getattr(InProcess, name)

        def counted(self: Any, *args: Any, _plain: Any = plain) -> Any:
            calls[0] += 1
            return _plain(self, *args)

        setattr(InProcess, name, counted)
    waits = client.MacroWorker._call_waits

    def counted_waits(self: Any, msg: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        calls[0] += msg.get("op") != "load"
        return (yield from waits(self, msg, *args, **kwargs))

    client.MacroWorker._call_waits = counted_waits  # type: ignore[method-assign]


def _together(kind: str, n: int, samples: int, seed: int) -> dict[str, float]:
    """n trainings of one kind started at once, each in a fresh process with rlgpt's OpenMP
    settings in place before torch loads: their samples/s in all, their mean CPU per sample."""
    cmd = [sys.executable, __file__, "--child", kind, "--samples", str(samples)]
    env = {**OPENMP_DEFAULTS, **os.environ}
    procs = [subprocess.Popen([*cmd, "--seed", str(seed + i)], stdout=subprocess.PIPE,
                              text=True, env=env) for i in range(n)]  # fmt: skip
    runs = [json.loads(p.communicate()[0].strip().splitlines()[-1]) for p in procs]
    return {"samples_per_s": sum(r["samples_per_s"] for r in runs),
            "cpu_us_per_sample": statistics.mean(r["cpu_us_per_sample"] for r in runs),
            "calls_per_sample": statistics.mean(r["calls_per_sample"] for r in runs)}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--samples", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=3, help="rounds (order alternating); medians")
    ap.add_argument("--together", type=int, default=2, help="also N trainings at once (0: no)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    params = Params()
    coded = [write_action(n, params.train.macro_step_budget) for n in NAMES]
    cfg = RLConfig(macro_actions=NAMES, ppo=params.train.ppo, sample_budget=args.samples,
                   reward_terms=[RewardTerm(achievement=n, weight=1.0) for n in NAMES])  # fmt: skip
    if args.child:
        print(json.dumps(_training(args.child, params, cfg, coded, args.seed)))
        return

    t0 = time.perf_counter()
    for c in coded:
        validate_action(c, sandbox=params.sandbox)
    validation_s = (time.perf_counter() - t0) / len(coded)
    rt_bwrap, rt_degraded = _round_trip_us(coded, "bwrap"), _round_trip_us(coded, "degraded")
    floor = _bare_round_trip(_recorded_requests(coded))

    kinds = ("in_process", "bwrap", "degraded")
    rates: dict[str, float] = dict.fromkeys(kinds, 0.0)  # each kind's best round
    together: dict[str, float] = {"in_process": 0.0, "bwrap": 0.0}
    cpu: dict[str, list[float]] = {k: [] for k in kinds}
    calls: dict[str, list[float]] = {k: [] for k in kinds}
    costs: list[float] = []  # per round: 1 - bwrap / in-process, alone
    costs_n: list[float] = []  # the same, --together N at once
    for rnd in range(args.rounds):  # back to back in each round, the order alternating
        pair = ("in_process", "bwrap") if rnd % 2 == 0 else ("bwrap", "in_process")
        alone = {k: _together(k, 1, args.samples, args.seed) for k in (*pair, "degraded")}
        for k, run in alone.items():
            rates[k] = max(rates[k], run["samples_per_s"])
            cpu[k].append(run["cpu_us_per_sample"])
            calls[k].append(run["calls_per_sample"])
        costs.append(1 - alone["bwrap"]["samples_per_s"] / alone["in_process"]["samples_per_s"])
        if args.together > 1:
            both = {k: _together(k, args.together, args.samples, args.seed)["samples_per_s"]
                    for k in pair}  # fmt: skip
            for k, rate in both.items():
                together[k] = max(together[k], rate)
            costs_n.append(1 - both["bwrap"] / both["in_process"])
        print(f"round {rnd + 1}: cost alone {100 * costs[-1]:.1f}%"
              + (f", {args.together} at once {100 * costs_n[-1]:.1f}%" if costs_n else ""),
              flush=True)  # fmt: skip
    best = 1 - rates["bwrap"] / rates["in_process"]
    cost = statistics.median(costs)
    cpu_med = {k: statistics.median(v) for k, v in cpu.items()}
    cpu_cost = cpu_med["bwrap"] / cpu_med["in_process"] - 1
    per_sample = statistics.median(calls["bwrap"])
    per_call = (cpu_med["bwrap"] - cpu_med["in_process"]) / max(per_sample, 1e-9)
    print(f"validation: {validation_s:.2f} s per action (gate, lint, scenarios, bubblewrap)")
    print(f"round trip: {rt_bwrap:.0f} us (bubblewrap), {rt_degraded:.0f} us (degraded)")
    for k, v in rates.items():
        print(f"PPO {k:>10}: {v:7.0f} samples/s (best round), {cpu_med[k]:5.0f} us CPU per sample")
    print(f"sandboxed workers cost {100 * cost:.1f}% of PPO samples/s (one training; median of "
          f"{args.rounds} rounds; {100 * best:.1f}% between the best rounds)")  # fmt: skip
    print(f"sandboxed workers cost {100 * cpu_cost:.1f}% more CPU per sample")
    bare = floor["host_us"] + floor["worker_us"]
    print(f"the boundary: {per_call:.0f} us more CPU per call ({per_sample:.2f} calls per "
          f"sample); a bare round trip of such requests to a process that only answers: "
          f"{bare:.0f} us of CPU ({floor['host_us']:.0f} host, {floor['worker_us']:.0f} the "
          "other process)")  # fmt: skip
    figures = {
        "validation_s_per_action": round(validation_s, 3),
        "round_trip_us_bwrap": round(rt_bwrap, 1), "round_trip_us_degraded": round(rt_degraded, 1),
        "ppo_samples_per_s_in_process": round(rates["in_process"], 1),
        "ppo_samples_per_s_bwrap": round(rates["bwrap"], 1),
        "ppo_samples_per_s_degraded": round(rates["degraded"], 1),
        "rounds": args.rounds,
        "worker_cost_fraction": round(cost, 4),
        "worker_cost_fraction_rounds": [round(c, 4) for c in costs],
        "worker_cost_fraction_best": round(best, 4),
        "cpu_us_per_sample_in_process": round(cpu_med["in_process"], 1),
        "cpu_us_per_sample_bwrap": round(cpu_med["bwrap"], 1),
        "cpu_us_per_sample_degraded": round(cpu_med["degraded"], 1),
        "cpu_cost_fraction": round(cpu_cost, 4),
        "calls_per_sample": {k: round(statistics.median(v), 4) for k, v in calls.items()},
        "boundary_cpu_us_per_call": round(per_call, 1),
        "bare_round_trip_cpu_us": {k: round(v, 1) for k, v in floor.items()},
    }  # fmt: skip
    if args.together > 1:
        cost_n, best_n = statistics.median(costs_n), 1 - together["bwrap"] / together["in_process"]
        for k, v in together.items():
            print(f"PPO {k:>10} x{args.together}: {v:7.0f} samples/s in all (best round)")
        print(f"sandboxed workers cost {100 * cost_n:.1f}% with {args.together} at once (median; "
              f"{100 * best_n:.1f}% between the best rounds)")  # fmt: skip
        figures |= {"together": args.together,
                    "together_samples_per_s_in_process": round(together["in_process"], 1),
                    "together_samples_per_s_bwrap": round(together["bwrap"], 1),
                    "together_cost_fraction": round(cost_n, 4),
                    "together_cost_fraction_rounds": [round(c, 4) for c in costs_n],
                    "together_cost_fraction_best": round(best_n, 4)}  # fmt: skip
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
