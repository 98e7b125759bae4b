"""Scaling on one machine: aggregate PPO samples/s of 1, 2 and 4 trainings at once, and the same
4-run sweep (`rlgpt sweep`) run one at a time and on 2 Dask workers, with the ratio; optionally
the sweep again with a Dask worker killed in the middle (results lost). Everything is measured
in this one run; ends with one JSON line.

Two sweep workloads (`--sweep`): `short` runs one iteration of 20k samples per run, nearly all
PPO on primitives (CPU-bound: the worst case for two runs sharing a machine); `default` is the
sweep a user runs, `rlgpt sweep --tasks ... --seeds 2 --iterations 2` with the default params
(coded actions in sandboxed workers from the first iteration's end on).

    python benchmarks/scaling.py                 # ~45 min here (2026-12-01)
    python benchmarks/scaling.py --quick         # half the samples, 10k-sample short sweep
    python benchmarks/scaling.py --no-trainings --sweep short     # ~11 min: 2 rounds, a kill
    python benchmarks/scaling.py --no-trainings --sweep default --no-kill   # ~20 min

Trainings run in fresh processes (rlgpt's OpenMP settings in place before torch loads), each
with the default params (1 torch thread, 4 envs, coded actions in sandboxed workers); the
aggregate is all samples over the window from the first training's start to the last one's end
(imports excluded, overlap required)."""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
NAMES = ["collect_wood", "place_table", "make_wood_pickaxe"]


def _child(samples: int, seed: int, slots: int | None) -> None:
    """One training in this process; prints its samples and its start and end times."""
    from rlgpt.config import Params
    from rlgpt.messages import RewardTerm, RLConfig
    from rlgpt.rl.train import TrainSettings, train
    from rlgpt.trial import Trial
    from rlgpt.worlds.crafter.author import write_action
    from rlgpt.worlds.crafter.tasks import get_task

    params = Params()
    coded = [write_action(n, params.train.macro_step_budget) for n in NAMES]
    cfg = RLConfig(macro_actions=NAMES, ppo=params.train.ppo, sample_budget=samples,
                   reward_terms=[RewardTerm(achievement=n, weight=1.0) for n in NAMES])  # fmt: skip
    with tempfile.TemporaryDirectory() as out:
        t0 = time.time()
        settings = TrainSettings(
            params=params.train, seed=seed, show_progress=False, sandbox=params.sandbox, slots=slots
        )
        res = train(
            Trial.of(get_task("make_wood_pickaxe"), cfg, coded), Path(out), settings=settings
        )
        print(json.dumps({"samples": res.samples, "start": t0, "end": time.time()}))


def trainings(n: int, samples: int, seed: int, slots: str) -> float:
    """Aggregate samples/s of n trainings started at once (with scale.training_slots)."""
    from rlgpt import OPENMP_DEFAULTS

    env = {**OPENMP_DEFAULTS, **os.environ}
    cmd = [sys.executable, __file__, "--child", "--samples", str(samples), "--slots", slots]
    procs = [subprocess.Popen([*cmd, "--seed", str(seed + i)], stdout=subprocess.PIPE,
                              text=True, env=env) for i in range(n)]  # fmt: skip
    rows = [json.loads(p.communicate()[0].strip().splitlines()[-1]) for p in procs]
    window = max(r["end"] for r in rows) - min(r["start"] for r in rows)
    return sum(r["samples"] for r in rows) / window


def _project(work: Path, samples: int | None) -> Path:
    """A fresh project directory with the sweep's params: one iteration of `samples` per run,
    or (None) the default params. The skill library is off in both, so no run of a sweep
    reuses what an earlier one wrote (a sequential sweep would gain from its order)."""
    work.mkdir(parents=True, exist_ok=True)
    params: dict[str, Any] = {
        "library": {"use": False, "add": False},
        "tracking": {"mlflow_uri": f"sqlite:///{work}/mlflow.db"},
    }
    if samples is not None:
        params |= {
            "run": {"iterations": 1, "success_threshold": 0.99},
            "train": {"sample_budget": samples},
            "eval": {"episodes": 10},
        }
    (work / "params.yaml").write_text(yaml.safe_dump(params))
    return work


def _kill_a_worker(project: Path, after_s: float, sweep: subprocess.Popen[str]) -> None:
    """SIGKILL the Dask worker process that runs the first run to start, `after_s` into it."""
    while sweep.poll() is None:
        out = subprocess.run(
            ["pgrep", "-f", "--", f"--set run.runs_dir={project}"], capture_output=True, text=True
        ).stdout.split()
        if out:
            time.sleep(after_s)
            stat = Path(f"/proc/{out[0]}/stat").read_text()
            worker = int(stat.rsplit(")", 1)[1].split()[1])  # the run's parent: its Dask worker
            os.kill(worker, signal.SIGKILL)
            print(f"  killed Dask worker {worker} (running {out[0]})", flush=True)
            return
        time.sleep(0.5)


def sweep(
    project: Path, runner: str, tasks: str, seeds: int, kill: bool, iterations: int | None = None
) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "rlgpt", "sweep", "--tasks", tasks, "--seeds", str(seeds),
           "--sweep-id", "bench", "--runner", runner, "--workers", "2"]  # fmt: skip
    if iterations is not None:
        cmd += ["--iterations", str(iterations)]
    env = {**os.environ, "PREFECT_HOME": str(project / ".prefect")}
    proc = subprocess.Popen(cmd, cwd=project, env=env, stdout=subprocess.PIPE, text=True)
    if kill:
        _kill_a_worker(project / "runs" / "bench", 8.0, proc)
    out = proc.communicate()[0]
    summary = json.loads((project / "runs" / "bench" / "summary.json").read_text())
    done = [r for r in summary["rows"] if r["status"] != "failed"]
    print(
        f"  {runner}{' (worker killed)' if kill else ''}: {len(done)}/{len(summary['rows'])} "
        f"runs, {summary['wall_s']:.0f} s, {summary['samples_per_s']:.0f} samples/s in all, "
        f"attempts {[r['attempts'] for r in summary['rows']]}",
        flush=True,
    )
    if proc.returncode not in (0, 1):
        print(out[-2000:])
    return {"wall_s": summary["wall_s"], "runs": len(summary["rows"]), "finished": len(done),
            "attempts": sum(r["attempts"] for r in summary["rows"]),
            "samples": sum(r.get("samples") or 0 for r in summary["rows"])}  # fmt: skip


def _trainings(samples: int, rounds: int, seed: int) -> dict[str, Any]:
    """Aggregate samples/s of 1, 2 and 4 trainings at once, with their ratios."""
    print(f"trainings at once ({samples} samples each, {os.cpu_count()} cores):", flush=True)
    # (trainings at once, scale.training_slots): one slot per core (the default), and 4 with
    # no limit, as every training ran before the slots
    cases = [(1, "auto"), (2, "auto"), (4, "auto"), (4, "0")]
    rates = dict.fromkeys(cases, 0.0)
    for rnd in range(rounds):  # alternate the order; keep each one's best (noisy machine)
        for n, slots in cases if rnd % 2 == 0 else cases[::-1]:
            rates[n, slots] = max(rates[n, slots], trainings(n, samples, seed, slots))
            what = "one slot per core" if slots == "auto" else "no slot limit"
            print(
                f"  round {rnd + 1}: {n} at once ({what}): {rates[n, slots]:.0f} samples/s in all",
                flush=True,
            )
    out = {
        "samples_per_training": samples,
        "trainings_samples_per_s": {str(n): round(rates[n, "auto"], 1) for n in (1, 2, 4)},
        "trainings_4_no_slot_limit_samples_per_s": round(rates[4, "0"], 1),
        "ratio_2_vs_1": round(rates[2, "auto"] / rates[1, "auto"], 2),
        "ratio_4_vs_2": round(rates[4, "auto"] / rates[2, "auto"], 2),
        "ratio_4_no_limit_vs_2": round(rates[4, "0"] / rates[2, "auto"], 2),
    }
    print(
        f"2 at once: {out['ratio_2_vs_1']}x one; 4 at once: {out['ratio_4_vs_2']}x two "
        f"({out['ratio_4_no_limit_vs_2']}x with no slot limit)",
        flush=True,
    )
    return out


def _sweeps(
    work: Path, which: str, tasks: str, short: int, kill: bool, rounds: int = 1
) -> dict[str, Any]:
    """The 4-run sweep(s) one at a time and on 2 Dask workers (and with a killed worker); the
    short one `rounds` times, alternating the order, keeping each runner's best wall (the
    same sweep has measured 71-83 s on Dask here within one hour)."""
    out: dict[str, Any] = {}
    if which in ("short", "both"):
        print(
            f"short sweep of 4 runs ({tasks} x 2 seeds, 1 iteration of {short} samples "
            f"each), {rounds} round(s):",
            flush=True,
        )
        walls: dict[str, list[float]] = {"sequential": [], "dask": []}
        for rnd in range(rounds):
            for runner in ("sequential", "dask") if rnd % 2 == 0 else ("dask", "sequential"):
                res = sweep(_project(work / f"{runner}-{rnd}", short), runner, tasks, 2, False)
                walls[runner].append(res["wall_s"])
        best = {k: min(v) for k, v in walls.items()}
        out |= {
            "sweep_sequential_s": best["sequential"],
            "sweep_dask_2_workers_s": best["dask"],
            "sweep_rounds": walls,
            "sweep_speedup": round(best["sequential"] / best["dask"], 2),
        }
        print(
            f"  short sweep on 2 Dask workers: {out['sweep_speedup']}x sequential (best of "
            f"{rounds} each)",
            flush=True,
        )
    if which in ("default", "both"):
        print(
            f"default sweep of 4 runs ({tasks} x 2 seeds, --iterations 2, default params):",
            flush=True,
        )
        seq = sweep(_project(work / "dseq", None), "sequential", tasks, 2, False, 2)
        dask = sweep(_project(work / "ddask", None), "dask", tasks, 2, False, 2)
        out |= {
            "default_sweep_sequential_s": seq["wall_s"],
            "default_sweep_dask_2_workers_s": dask["wall_s"],
            "default_sweep_samples": [seq["samples"], dask["samples"]],
            "default_sweep_speedup": round(seq["wall_s"] / dask["wall_s"], 2),
        }
        print(
            f"  default sweep on 2 Dask workers: {out['default_sweep_speedup']}x sequential",
            flush=True,
        )
    if kill:
        killed = sweep(_project(work / "kill", short), "dask", tasks, 2, True)
        out |= {
            "killed_worker_sweep_s": killed["wall_s"],
            "killed_worker_lost_results": killed["runs"] - killed["finished"],
            "killed_worker_attempts": killed["attempts"],
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="smaller trainings and short sweep")
    ap.add_argument("--samples", type=int, help="samples per training (default 30k, quick 15k)")
    ap.add_argument("--rounds", type=int, default=2,
                    help="rounds of the trainings and the short sweep; best of each")  # fmt: skip
    ap.add_argument("--no-trainings", action="store_true", help="only the sweeps")
    ap.add_argument("--sweep", choices=("short", "default", "both", "none"), default="both",
                    help="which sweep workload to run sequentially and on Dask")  # fmt: skip
    ap.add_argument("--tasks", default="make_wood_pickaxe,place_table")
    ap.add_argument("--no-kill", action="store_true", help="skip the sweep with a killed worker")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--slots", default="auto", help=argparse.SUPPRESS)
    args = ap.parse_args()
    samples = args.samples or (15_000 if args.quick else 30_000)
    if args.child:
        _child(samples, args.seed, None if args.slots == "auto" else int(args.slots))
        return
    figures: dict[str, Any] = {"cores": os.cpu_count()}
    if not args.no_trainings:
        figures |= _trainings(samples, args.rounds, args.seed)
    with tempfile.TemporaryDirectory(prefix="rlgpt-scaling-") as tmp:
        short = 10_000 if args.quick else 20_000
        figures |= _sweeps(Path(tmp), args.sweep, args.tasks, short, not args.no_kill, args.rounds)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
