"""The paper's claims, measured on Crafter: sample efficiency and the ablations, in one command.

For each task, seed and method (benchmarks/paper_methods.py: pure RL, pure code, RL-GPT per
iteration, the critic ablation, the reward-instead-of-actions ablation, one agent vs two) at a
fixed sample budget, on the same evaluation episodes: success rate, samples to first success
and dead-loop ratio. Writes results/results.md, results/*.csv and PNG plots (from the jobs'
records only; nothing is edited by hand), logs every job to MLflow under one parent run, and
ends with one JSON line of the headline figures.

Each job runs in its own process (`--jobs` at once) and writes its record under --work; a rerun
skips finished jobs (resume after a crash or a stop), `--fresh` starts over.

    python benchmarks/paper.py            # full: 3 seeds, the budgets below (~2 h here)
    python benchmarks/paper.py --quick    # 2 seeds, small budgets: under 30 minutes here
    python benchmarks/paper.py --llm openai --model gpt-4o-mini   # also the one-agent ablation
    python benchmarks/paper.py --llm scripted --mistake-rate 0.25  # a scripted model's mistakes
                                        # (benchmarks/scripted_model.py), one agent vs two
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]
from paper_methods import LOOP_MASKING, METHODS, ROOT, job_record, ppo, pure_code, rlgpt  # noqa: E402
from paper_report import write_results  # noqa: E402

from benchmarks.scripted_mistakes import MistakeRates  # noqa: E402
from benchmarks.scripted_model import spec  # noqa: E402

EXPERIMENT = "rlgpt-paper"


@dataclass(frozen=True)
class Config:
    """One protocol: which tasks at which budgets (samples of all iterations), seeds, episodes."""

    label: str
    seeds: int
    episodes: int
    iterations: int  # of the loop; the PPO baselines are evaluated at the same sample points
    budgets: dict[str, int] = field(default_factory=dict)
    methods: tuple[str, ...] = tuple(METHODS)
    llm: dict[str, Any] = field(default_factory=lambda: {"backend": "offline"})
    deep: dict[str, int] = field(default_factory=dict)  # task -> its own number of iterations
    only: dict[str, list[str]] = field(default_factory=dict)  # task -> the methods run on it

    def iterations_for(self, task: str) -> int:
        return self.deep.get(task, self.iterations)

    def methods_for(self, task: str) -> list[str]:
        return [m for m in self.methods if m in self.only.get(task, self.methods)]


# The shallow tasks at budgets where the loop converges (the critic and reward-only ablations on
# the three shallowest, the masks ablation on make_stone_pickaxe); the deep ones at 200k samples
# in two iterations (the tech-tree benchmark takes them to 1M, docs/tech-tree.md: five times as
# long), where every step must be coded, so the critic and one-agent ablations are not run on
# them (the offline author plans them whole at once); the masks ablation runs on the iron
# pickaxe, pure PPO on neither (0.00 at 1M on both in the tech-tree benchmark). Sized to finish
# in about 2 h on 2 cores (113 min on 2026-12-03), so that it can be rerun on the final code.
DEEP = ("make_iron_pickaxe", "collect_diamond")
CORE = ["pure_rl", "pure_code", "rlgpt", "no_critic", "reward_only", "one_agent", "two_agents"]
MASKS = ["masks_recipes", "masks_off"]
FULL = Config(
    "full", 3, 30, 4,
    {"place_table": 20_000, "make_wood_pickaxe": 40_000, "make_stone_pickaxe": 60_000,
     "place_furnace": 60_000, "make_iron_pickaxe": 200_000, "collect_diamond": 200_000},
    deep={t: 2 for t in DEEP},
    only={"place_table": CORE, "make_wood_pickaxe": CORE, "make_stone_pickaxe": CORE + MASKS,
          "place_furnace": ["pure_rl", "pure_code", "rlgpt"],
          "make_iron_pickaxe": ["pure_code", "rlgpt", *MASKS],
          "collect_diamond": ["pure_code", "rlgpt"]},
)  # fmt: skip
QUICK = Config("quick", 2, 20, 2, {
    "place_table": 12_000, "make_wood_pickaxe": 30_000, "make_stone_pickaxe": 40_000,
    "place_furnace": 40_000, "make_iron_pickaxe": 40_000,
})  # fmt: skip


def run_job(
    cfg: Config, method: str, task: str, seed: int, work: Path, tracking: dict[str, Any]
) -> dict[str, Any]:
    """One job, in this process."""
    budget, out = cfg.budgets[task], work / f"{method}-{task}-s{seed}"
    iterations = cfg.iterations_for(task)
    if method == "pure_code":
        return pure_code(task, seed, cfg.episodes)
    if method in ("pure_rl", "reward_only"):
        return ppo(task, seed, budget, iterations, cfg.episodes, method == "reward_only", out)
    if method in LOOP_MASKING:
        agents = "one" if method == "one_agent" else "two"
        return rlgpt(task, seed, budget, iterations, cfg.episodes, method != "no_critic",
                     out, tracking | {"experiment": EXPERIMENT}, llm_for(cfg, method), agents,
                     LOOP_MASKING[method])  # fmt: skip
    raise ValueError(f"no job for method {method}")


def protocol(cfg: Config, task: str) -> dict[str, Any]:
    """What a job's record was measured under: a rerun reuses it only under the same."""
    return {"budget": cfg.budgets[task], "episodes": cfg.episodes,
            "iterations": cfg.iterations_for(task), "llm": cfg.llm}  # fmt: skip


# The agents ablation needs a model (the offline author plays both roles from one recipe
# graph): under the offline protocol, one agent and two are both played by this scripted one.
AGENTS_MODEL = spec(MistakeRates(rate=0.25))


def llm_for(cfg: Config, method: str) -> dict[str, Any]:
    """Who plays the loop's agents in a job: the protocol's author, or, for the agents
    ablation under the offline author, the scripted model (both sides of it)."""
    offline = cfg.llm.get("backend") == "offline"
    return AGENTS_MODEL if offline and method in ("one_agent", "two_agents") else cfg.llm


def skipped(cfg: Config, method: str) -> str | None:
    """Why a method is not run under this configuration, said plainly in the tables."""
    if method == "two_agents" and cfg.llm.get("backend") != "offline":
        return "not needed: the loop itself (rlgpt) is played by the model"
    return None


class Tracker:
    """The MLflow parent run of one invocation and a child run per finished job."""

    def __init__(self, uri: str, work: Path, cfg: Config) -> None:
        from mlflow.tracking import MlflowClient

        self.c, self.lock = MlflowClient(tracking_uri=uri), threading.Lock()
        exp = self.c.get_experiment_by_name(EXPERIMENT)
        self.exp = exp.experiment_id if exp else self.c.create_experiment(EXPERIMENT)
        saved = work / "mlflow_parent.json"
        if saved.exists() and json.loads(saved.read_text()).get("uri") == uri:
            self.parent = json.loads(saved.read_text())["run_id"]
            self.c.update_run(self.parent, status="RUNNING")
        else:
            run = self.c.create_run(self.exp, run_name=f"paper-{cfg.label}")
            self.parent = run.info.run_id
            saved.write_text(json.dumps({"uri": uri, "run_id": self.parent}))
            self.c.log_batch(self.parent, params=_params(cfg))

    def job(self, method: str, task: str, seed: int, rec: dict[str, Any]) -> None:
        if method in LOOP_MASKING:
            return  # the rlgpt run logs itself, nested under the parent (tracking.parent_run)
        from mlflow.entities import Metric, Param

        now = int(time.time() * 1000)
        metrics = [
            Metric(k, float(p[k]), now, p["samples"])
            for p in rec.get("points", [])
            for k in ("success", "dead_loop")
        ]
        params = [Param("method", method), Param("task", task), Param("seed", str(seed))]
        with self.lock:
            run = self.c.create_run(self.exp, run_name=f"{method}-{task}-s{seed}",
                                    tags={"mlflow.parentRunId": self.parent})  # fmt: skip
            self.c.log_batch(run.info.run_id, metrics=metrics, params=params)
            self.c.set_terminated(run.info.run_id, "FAILED" if "error" in rec else "FINISHED")

    def finish(self, headline: dict[str, Any], files: list[Path]) -> None:
        for key, value in _flat(headline).items():
            self.c.log_metric(self.parent, key[:250], value)
        for path in files:
            self.c.log_artifact(self.parent, str(path))
        self.c.set_terminated(self.parent, "FINISHED")


def _params(cfg: Config) -> list[Any]:
    from mlflow.entities import Param

    values = {"label": cfg.label, "seeds": cfg.seeds, "episodes": cfg.episodes,
              "iterations": cfg.iterations, "llm": json.dumps(cfg.llm),
              **{f"budget.{t}": b for t, b in cfg.budgets.items()}}  # fmt: skip
    return [Param(k, str(v)) for k, v in values.items()]


def _flat(d: dict[str, Any], prefix: str = "") -> dict[str, float]:
    out: dict[str, float] = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out |= _flat(v, f"{prefix}{k}.")
        elif isinstance(v, int | float) and not isinstance(v, bool):
            out[f"{prefix}{k}"] = float(v)
    return out


def _child(
    cfg: Config, job: tuple[str, str, int], work: Path, tracking: dict[str, Any]
) -> dict[str, Any]:
    """One job in a fresh process (its own torch threads and memory); its record on disk."""
    method, task, seed = job
    path = work / "jobs" / f"{method}-{task}-s{seed}.json"
    spec = {"cfg": {**cfg.__dict__, "methods": list(cfg.methods)}, "job": list(job),
            "work": str(work), "tracking": tracking}  # fmt: skip
    # a stopped run leaves no job: the child dies with this process
    return job_record([sys.executable, __file__, "--job", json.dumps(spec)], path)


def run_all(
    cfg: Config, work: Path, jobs: int, uri: str, fresh: bool
) -> tuple[list[dict[str, Any]], Tracker]:
    (work / "jobs").mkdir(parents=True, exist_ok=True)
    if fresh:
        for old in (work / "jobs").glob("*.json"):
            old.unlink()
        (work / "mlflow_parent.json").unlink(missing_ok=True)
    tracker = Tracker(uri, work, cfg)
    tracking = {"mlflow_uri": uri, "parent_run": tracker.parent}
    order = sorted(cfg.budgets, key=lambda t: cfg.budgets[t])  # cheap tasks finish first
    todo = [(m, t, s) for t in order for s in range(cfg.seeds) for m in cfg.methods_for(t)
            if not skipped(cfg, m)]  # fmt: skip
    records: list[dict[str, Any]] = []
    t0, done, lock = time.perf_counter(), 0, threading.Lock()

    def one(job: tuple[str, str, int]) -> None:
        nonlocal done
        method, task, seed = job
        path = work / "jobs" / f"{method}-{task}-s{seed}.json"
        rec = json.loads(path.read_text()) if path.exists() else None
        fresh_rec = rec is None or "error" in rec or rec.get("protocol") != protocol(cfg, task)
        if fresh_rec:
            rec = _child(cfg, job, work, tracking)
            if "error" in rec:
                path.write_text(json.dumps(rec))
            tracker.job(method, task, seed, rec)
        assert rec is not None
        rec |= {"method": method, "task": task, "seed": seed}
        with lock:
            records.append(rec)
            done += 1
            el = time.perf_counter() - t0
            eta = el / done * (len(todo) - done)
            what = rec.get("error") or (f"success {rec['success']:.2f} samples {rec['samples']}"
                                        + ("" if fresh_rec else " (recorded)"))  # fmt: skip
            print(f"[{done}/{len(todo)}] {method:11} {task:19} seed {seed}: {what} "
                  f"({el:.0f}s elapsed, ETA {eta:.0f}s)", flush=True)  # fmt: skip

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(one, todo))
    return records, tracker


def machine() -> str:
    import torch

    cpu = os.cpu_count()
    return (f"{platform.platform()}, {cpu} CPU cores, Python {platform.python_version()}, "
            f"torch {torch.__version__}")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="2 seeds, small budgets (labelled)")
    ap.add_argument("--tasks", help="comma-separated subset of the protocol's tasks")
    ap.add_argument("--methods", help=f"comma-separated subset of {','.join(METHODS)}")
    ap.add_argument("--seeds", type=int)
    ap.add_argument("--episodes", type=int)
    ap.add_argument("--iterations", type=int)
    ap.add_argument("--budget-scale", type=float, default=1.0, help="multiply every budget")
    ap.add_argument("--jobs", type=int, default=2, help="jobs at once (2 on 2 cores)")
    ap.add_argument("--out", help="results directory (default results/, or results/quick/)")
    ap.add_argument("--work", help="job records and runs (default benchmarks/out/paper-LABEL)")
    ap.add_argument("--mlflow-uri", help="tracking store (default: the project's mlflow.db)")
    ap.add_argument("--fresh", action="store_true", help="forget recorded jobs, run all again")
    ap.add_argument(
        "--llm",
        choices=("offline", "openai", "scripted"),
        default="offline",
        help="scripted: a model with mistakes on 127.0.0.1 (benchmarks/scripted_model.py)",
    )
    ap.add_argument(
        "--mistake-rate",
        type=float,
        help=f"with --llm scripted: mistakes per written action and per plan "
        f"(default {MistakeRates.rate})",
    )
    ap.add_argument(
        "--fix-rate",
        type=float,
        help=f"with --llm scripted: share of repairs that fix (default {MistakeRates.fix_rate})",
    )
    ap.add_argument(
        "--mistake-seed",
        type=int,
        default=0,
        help="with --llm scripted: the model's seed (each job also samples with its own)",
    )
    ap.add_argument("--model", help="with --llm openai: the model name")
    ap.add_argument("--base-url", help="with --llm openai: the endpoint (else $OPENAI_BASE_URL)")
    ap.add_argument("--job", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.job:
        spec = json.loads(args.job)
        cfg = Config(**{**spec["cfg"], "methods": tuple(spec["cfg"]["methods"])})
        method, task, seed = spec["job"]
        work = Path(spec["work"])
        rec = run_job(cfg, method, task, int(seed), work, spec["tracking"])
        rec["protocol"] = protocol(cfg, task)
        tmp = work / "jobs" / f".{method}-{task}-s{seed}.tmp"
        tmp.write_text(json.dumps(rec))
        os.replace(tmp, work / "jobs" / f"{method}-{task}-s{seed}.json")
        return
    cfg = configure(args)
    work = Path(args.work or ROOT / "benchmarks" / "out" / f"paper-{cfg.label}").resolve()
    out = Path(args.out or (ROOT / "results" / ("quick" if args.quick else ""))).resolve()
    uri = args.mlflow_uri or f"sqlite:///{ROOT / 'mlflow.db'}"
    t0 = time.perf_counter()
    print(f"paper ({cfg.label}): {len(cfg.budgets)} task(s), {cfg.seeds} seed(s), "
          f"{cfg.episodes} episodes, methods {', '.join(cfg.methods)}; jobs under {work}",
          flush=True)  # fmt: skip
    records, tracker = run_all(cfg, work, args.jobs, uri, args.fresh)
    wall = time.perf_counter() - t0
    skips = {m: why for m in cfg.methods if (why := skipped(cfg, m))}
    headline, files = write_results(out, cfg, records, skips, wall, machine(), tracker.parent, uri)
    tracker.finish(headline, files)
    print(f"results: {out}/results.md (+ {len(files) - 1} csv/png); mlflow: {uri}, experiment "
          f"'{EXPERIMENT}', parent run {tracker.parent}")  # fmt: skip
    print(json.dumps(headline))


def configure(args: argparse.Namespace) -> Config:
    """The protocol with the command line's overrides; a bad name is a one-line error."""
    cfg = QUICK if args.quick else FULL
    if args.tasks:
        tasks = args.tasks.split(",")
        unknown = [t for t in tasks if t not in cfg.budgets]
        if unknown:
            sys.exit(f"paper: unknown task(s) {unknown}; choose from {list(cfg.budgets)}")
        cfg = replace(cfg, budgets={t: cfg.budgets[t] for t in tasks},
                      deep={t: n for t, n in cfg.deep.items() if t in tasks})  # fmt: skip
    if args.methods:
        methods = tuple(args.methods.split(","))
        unknown = [m for m in methods if m not in METHODS]
        if unknown:
            sys.exit(f"paper: unknown method(s) {unknown}; choose from {list(METHODS)}")
        cfg = replace(cfg, methods=methods)
    scaled = args.budget_scale != 1.0 or args.seeds or args.episodes or args.iterations
    if args.budget_scale != 1.0:
        cfg = replace(cfg, budgets={t: int(b * args.budget_scale) for t, b in cfg.budgets.items()})
    cfg = replace(cfg, seeds=args.seeds or cfg.seeds, episodes=args.episodes or cfg.episodes,
                  iterations=args.iterations or cfg.iterations,
                  label=f"{cfg.label}-custom" if scaled else cfg.label)  # fmt: skip
    if args.llm == "scripted":
        cfg = replace(cfg, llm=_scripted(args))
    elif args.mistake_rate is not None or args.fix_rate is not None:
        sys.exit("paper: --mistake-rate and --fix-rate are for --llm scripted")
    if args.llm == "openai":
        if not args.model:
            sys.exit("paper: --llm openai needs --model (the served model's name)")
        key = yaml.safe_load((ROOT / "params.yaml").read_text())["llm"]["api_key_env"]
        if not os.environ.get(key):
            sys.exit(
                f"paper: --llm openai needs an API key in ${key} (params.yaml llm.api_key_env)"
            )
        llm = {"backend": "openai", "model": args.model}
        cfg = replace(cfg, llm=llm | ({"base_url": args.base_url} if args.base_url else {}))
    return cfg


def _scripted(args: argparse.Namespace) -> dict[str, Any]:
    """The `llm` of a scripted-model protocol (benchmarks/scripted_model.py) from the flags."""
    if args.model or args.base_url:
        sys.exit("paper: --model and --base-url are for --llm openai")
    defaults = MistakeRates()
    try:
        rates = MistakeRates(
            rate=defaults.rate if args.mistake_rate is None else args.mistake_rate,
            fix_rate=defaults.fix_rate if args.fix_rate is None else args.fix_rate,
            seed=args.mistake_seed,
        )
    except ValueError as exc:
        sys.exit(f"paper: {exc}")
    return spec(rates)


if __name__ == "__main__":
    main()
