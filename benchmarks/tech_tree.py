"""Tech tree: how far up the tech tree each agent gets, on the same seeds and budgets.

For each task and seed, measured in one invocation:
  oracle  the whole-map planner (rlgpt/worlds/crafter/oracle.py): the ceiling the step limit allows;
  script  the reference coded actions called in plan order, without learning: the skills alone;
  ppo     SB3 PPO on the 17 primitive actions, the same reward shaping (every plan step's
          achievement up to its count, a bonus on success, -1 on death), the same budget;
  rlgpt   the full loop with the offline author (`rlgpt run`), the same budget in all.
All three are evaluated on the same held-out episode seeds (rlgpt's own evaluation seeds).
Samples are primitive env steps of all iterations (macro steps included). Each PPO and rlgpt
job runs in its own process, `--jobs` at once. Ends with one JSON line.

    python benchmarks/tech_tree.py                      # 3 tasks, 3 seeds, 100 episodes
    python benchmarks/tech_tree.py --seeds 1 --episodes 30 --tasks make_stone_pickaxe
    python benchmarks/tech_tree.py --stone-tier   # `rlgpt run --task T`, default params, each
                                                  # task needing at most a wood pickaxe
    python benchmarks/tech_tree.py --agents script --tasks eat_plant   # any task: no budget
    python benchmarks/tech_tree.py --world craftax-classic --stone-tier  # any world (`--world`)
    python benchmarks/tech_tree.py --world craftax --seeds 1 --scale 0.1  # full Craftax's ladder

Each agent's row also gives the world's score (the reward of the achievements its evaluation
episodes unlocked, as a share of the maximum: the Craftax paper's "% of max") and how many
distinct achievements those episodes unlocked; the end adds the distinct achievements over the
whole ladder and, per task, rlgpt's score against PPO's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import yaml

from rlgpt.worlds import DEFAULT_WORLD

sys.path.insert(0, str(Path(__file__).resolve().parent))
from paper_methods import ppo as paper_ppo  # noqa: E402
from paper_methods import pure_code, run_unlocked, with_parent  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
# task -> (iterations, samples per iteration): the budgets (200k, 1M) in all.
BUDGETS: dict[str, tuple[int, int]] = {
    "make_stone_pickaxe": (3, 66_000),
    "make_iron_pickaxe": (5, 200_000),
    "collect_diamond": (5, 200_000),
}
# Full Craftax: a ladder across the floors, at the budgets (1M; 2M for the mines).
WORLD_BUDGETS: dict[str, dict[str, tuple[int, int]]] = {
    "craftax": {
        "make_iron_pickaxe": (5, 200_000),
        "collect_diamond": (5, 200_000),
        "enter_dungeon": (5, 200_000),
        "enter_gnomish_mines": (5, 400_000),
    },
}


def budgets(world: str) -> dict[str, tuple[int, int]]:
    return WORLD_BUDGETS.get(world, BUDGETS)


def score(unlocked: list[str], weights: dict[str, int]) -> float:
    """The world's score over evaluation episodes, in percent: the reward of the achievements
    each episode unlocked as a share of the sum of all (the Craftax paper's "% of max"; the
    health term of the return is left out), averaged over episodes."""
    if not unlocked:
        return 0.0
    total = sum(weights.values())
    got = [sum(weights.get(a, 0) for a in u.split(",") if a) for u in unlocked]
    return round(100 * statistics.fmean(got) / total, 2)


def oracle(task: str, seed: int, episodes: int, world: str = DEFAULT_WORLD) -> dict[str, Any]:
    from rlgpt.rl.evaluate import EVAL_SEED_BASE
    from rlgpt.worlds import get_world

    t0 = time.perf_counter()
    game = get_world(world)
    agent = game.oracle(game.task(task))
    if agent is None:
        return {"error": f"world {world} has no oracle", "success": 0.0, "samples": 0}
    runs = [agent.episode(EVAL_SEED_BASE + seed * 10_000 + ep) for ep in range(episodes)]
    return {
        "success": sum(r.success for r in runs) / episodes,
        "mean_steps": statistics.fmean(r.steps for r in runs),
        "deaths": sum(r.end == "death" for r in runs) / episodes,
        "samples": 0,
        "wall_s": round(time.perf_counter() - t0, 1),
    }


def scripted(task: str, seed: int, episodes: int, world: str = DEFAULT_WORLD) -> dict[str, Any]:
    """The reference coded actions called in plan order, no learning: how far the skills
    themselves get (between the oracle's ceiling and what a policy learns to do with them)."""
    return pure_code(task, seed, episodes, world)


def ppo(
    task: str, seed: int, budget: int, episodes: int, out: Path, world: str = DEFAULT_WORLD
) -> dict[str, Any]:
    """Pure PPO on primitives, with the project's training settings and reward shaping."""
    return paper_ppo(task, seed, budget, 1, episodes, True, out, world)


def rlgpt(
    task: str, seed: int, episodes: int, iterations: int, per_iter: int, out: Path,
    masking: str = "", world: str = DEFAULT_WORLD,
) -> dict[str, Any]:  # fmt: skip
    """`rlgpt run` with the default params but the benchmark's budget and episode count (and
    `masking`, train.action_masking, when given)."""
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    if masking:
        params["train"]["action_masking"] = masking
    params["run"] |= {"task": task, "iterations": iterations, "runs_dir": str(out / "runs"),
                      "world": world}  # fmt: skip
    params["train"]["sample_budget"] = per_iter
    params["eval"]["episodes"] = episodes
    params["tracking"]["mlflow_uri"] = f"sqlite:///{out / 'mlflow.db'}"
    out.mkdir(parents=True, exist_ok=True)
    (out / "params.yaml").write_text(yaml.safe_dump(params))
    run_id = f"{task}-s{seed}"
    t0 = time.perf_counter()
    cmd = [str(Path(sys.executable).with_name("rlgpt")), "run", "--params", "params.yaml",
           "--seed", str(seed), "--run-id", run_id, "--quiet", "--force"]  # fmt: skip
    # no orphan holds the run: the child dies with this process
    proc = subprocess.run(
        with_parent(cmd), cwd=out, capture_output=True, text=True, start_new_session=True
    )
    summary_path = out / "runs" / run_id / "summary.json"
    if proc.returncode != 0 or not summary_path.exists():
        return {"error": (proc.stderr or proc.stdout)[-400:], "success": 0.0, "samples": 0}
    summary = json.loads(summary_path.read_text())
    its = summary["iterations"]
    return {
        "success": summary["final_success_rate"],
        "unlocked": run_unlocked(summary_path.parent, summary.get("selected_iteration")),
        "best": max(i["success_rate"] for i in its),
        "iterations": [
            {k: i[k] for k in ("iteration", "success_rate", "samples", "coded", "verdict")}
            | {"bottlenecks": i.get("bottlenecks", [])}
            for i in its
        ],
        "samples": sum(i["samples"] for i in its),
        "wall_s": round(time.perf_counter() - t0, 1),
        "run_dir": str(summary_path.parent),
    }


def stone_tier() -> list[str]:
    """Tasks whose plan collects nothing that needs more than a wood pickaxe (a property of
    the recipe graph, the same in Crafter and Craftax-Classic)."""
    from rlgpt.worlds.crafter.planner import plan_steps
    from rlgpt.worlds.crafter.preconditions import collect_source
    from rlgpt.worlds.crafter.recipes import game_data
    from rlgpt.worlds.crafter.tasks import registry

    collect = game_data()["collect"]
    out = []
    for name, spec in registry().items():
        tools: set[str] = set()
        for ach, _ in plan_steps(spec.achievement):
            source = (
                collect_source(ach.removeprefix("collect_")) if ach.startswith("collect_") else None
            )
            if source is not None:
                tools |= set(collect[source]["require"])
        if tools <= {"wood_pickaxe"}:
            out.append(name)
    return out


def default_run(task: str, out: Path, world: str = DEFAULT_WORLD) -> dict[str, Any]:
    """`rlgpt run --task T` with the project's params.yaml as it is (the default command)."""
    out.mkdir(parents=True, exist_ok=True)
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    params["tracking"]["mlflow_uri"] = f"sqlite:///{out / 'mlflow.db'}"
    (out / "params.yaml").write_text(yaml.safe_dump(params))
    t0 = time.perf_counter()
    cmd = [str(Path(sys.executable).with_name("rlgpt")), "run", "--task", task, "--run-id",
           task, "--quiet", "--force", "--world", world]  # fmt: skip
    # no orphan holds the run: the child dies with this process
    proc = subprocess.run(
        with_parent(cmd), cwd=out, capture_output=True, text=True, start_new_session=True
    )
    path = out / "runs" / task / "summary.json"
    if proc.returncode != 0 or not path.exists():
        return {"task": task, "error": (proc.stderr or proc.stdout)[-400:], "success": 0.0}
    summary = json.loads(path.read_text())
    its = summary["iterations"]
    return {"task": task, "success": summary["final_success_rate"], "iterations": len(its),
            "samples": sum(i["samples"] for i in its),
            "wall_s": round(time.perf_counter() - t0, 1)}  # fmt: skip


def sweep_stone_tier(
    jobs: int, out: Path, only: list[str] | None = None, world: str = DEFAULT_WORLD
) -> None:
    tasks = [t for t in stone_tier() if not only or t in only]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        rows = list(pool.map(lambda t: default_run(t, out / f"default-{t}", world), tasks))
    print(f"{'task':20} {'success':>8} {'iters':>6} {'samples':>9} {'wall_s':>7}")
    for r in rows:
        err = r.get("error", "")[:60]
        print(
            f"{r['task']:20} {r['success']:8.2f} {r.get('iterations', 0):6d} "
            f"{r.get('samples', 0):9d} {r.get('wall_s', 0):7.0f}  {err}"
        )
    reached = sum(r["success"] >= 0.8 for r in rows)
    print(json.dumps({"world": world, "stone_tier": {r["task"]: r["success"] for r in rows},
                      "samples": {r["task"]: r.get("samples", 0) for r in rows},
                      "at_least_0.8": f"{reached}/{len(rows)}"}))  # fmt: skip


def _child(
    kind: str, task: str, seed: int, episodes: int, scale: float, out: Path, masking: str = "",
    world: str = DEFAULT_WORLD,
) -> dict[str, Any]:  # fmt: skip
    """One PPO or rlgpt job in a fresh process (its own torch threads, its own memory)."""
    cmd = [sys.executable, __file__, "--one", kind, task, str(seed), str(episodes), str(scale),
           str(out), "--world", world, *(["--masking", masking] if masking else [])]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # a stopped run leaves no job: the child dies with this process
    proc = subprocess.run(
        with_parent(cmd), capture_output=True, text=True, env=env, start_new_session=True
    )
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        return {"error": proc.stderr[-400:], "success": 0.0, "samples": 0}
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def _mean(rows: list[dict[str, Any]], key: str) -> float:
    return round(statistics.fmean(r.get(key, 0.0) for r in rows), 3) if rows else 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tasks", default="", help="default: the world's ladder (budgets)")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--first-seed", type=int, default=0, help="seeds first .. first+seeds-1")
    ap.add_argument("--episodes", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--agents", default="oracle,script,ppo,rlgpt")
    ap.add_argument("--scale", type=float, default=1.0, help="budget factor (quick checks)")
    ap.add_argument("--out", default="benchmarks/out/tech_tree")
    ap.add_argument("--one", nargs=6, metavar=("KIND", "TASK", "SEED", "EPISODES", "SCALE", "OUT"))
    ap.add_argument("--masking", choices=["off", "recipes", "plan"], default="",
                    help="rlgpt's train.action_masking (default: params.yaml's)")  # fmt: skip
    ap.add_argument("--world", default=DEFAULT_WORLD, help=f"the game (default: {DEFAULT_WORLD})")
    ap.add_argument(
        "--stone-tier",
        action="store_true",
        help="instead: the default command on every stone-tier task",
    )
    args = ap.parse_args()
    if args.stone_tier:
        only = args.tasks.split(",") if args.tasks else None
        outside = sorted(set(only or []) - set(stone_tier()))
        if outside:
            sys.exit(f"tech_tree: not stone-tier task(s) {outside}; choose from {stone_tier()}")
        sweep_stone_tier(args.jobs, Path(args.out).resolve(), only, args.world)
        return
    if args.one:
        kind, task, seed, episodes, scale, out = args.one
        iterations, per_iter = budgets(args.world)[task]
        per_iter = int(per_iter * float(scale))
        if kind == "ppo":
            res = ppo(task, int(seed), iterations * per_iter, int(episodes), Path(out), args.world)
        else:
            res = rlgpt(task, int(seed), int(episodes), iterations, per_iter, Path(out),
                        args.masking, args.world)  # fmt: skip
        print(json.dumps(res))
        return
    from rlgpt.worlds import get_world

    game = get_world(args.world)
    registry, weights, ladder = game.tasks, game.achievement_rewards(), budgets(args.world)
    tasks = [t for t in (args.tasks or ",".join(ladder)).split(",") if t]
    agents = args.agents.split(",")
    learners = {"ppo", "rlgpt"} & set(agents)  # budgets only for those that train
    unknown = [t for t in tasks if t not in (ladder if learners else registry())]
    if unknown:
        known = list(ladder) if learners else "any task of `rlgpt tasks`"
        sys.exit(f"tech_tree: unknown task(s) {unknown} for {args.agents}; choose from {known}")
    if "oracle" in agents and tasks and game.oracle(game.task(tasks[0])) is None:
        agents.remove("oracle")  # a row of zeros would read as an oracle that fails
        print(f"({args.world} has no oracle: its row is left out)", flush=True)
    out = Path(args.out).resolve()
    results: dict[str, dict[str, list[dict[str, Any]]]] = {
        t: {a: [] for a in agents} for t in tasks
    }
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    t0 = time.perf_counter()
    for kind, play in (("oracle", oracle), ("script", scripted)):
        if kind in agents:
            for task in tasks:
                for seed in seeds:
                    results[task][kind].append(play(task, seed, args.episodes, args.world))
    jobs = [(k, t, s) for t in tasks for s in seeds for k in agents if k in ("ppo", "rlgpt")]
    done = 0

    def run(job: tuple[str, str, int]) -> None:
        nonlocal done
        kind, task, seed = job
        res = _child(kind, task, seed, args.episodes, args.scale, out / f"{kind}-{task}-s{seed}",
                     args.masking, args.world)  # fmt: skip
        results[task][kind].append(res | {"seed": seed})
        done += 1
        el = time.perf_counter() - t0
        eta = el / done * (len(jobs) - done)
        print(
            f"[{done}/{len(jobs)}] {kind:6} {task:20} seed {seed}: success "
            f"{res.get('success', 0):.2f} samples {res.get('samples', 0)} "
            f"({el:.0f}s elapsed, ETA {eta:.0f}s)",
            flush=True,
        )

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        list(pool.map(run, jobs))
    print(
        f"\n{'task':20} {'agent':7} {'success':>8} {'per seed':>20} {'samples':>9} {'wall_s':>8}"
        f" {'score %':>8} {'unlocked':>8}"
    )
    summary: dict[str, Any] = {}
    seen: dict[str, set[str]] = {a: set() for a in agents}
    for task in tasks:
        summary[task] = {}
        for kind in agents:
            rows = sorted(results[task][kind], key=lambda r: r.get("seed", 0))
            per_seed = " ".join(f"{r.get('success', 0):.2f}" for r in rows)
            rate, samples = _mean(rows, "success"), int(_mean(rows, "samples"))
            episodes = [u for r in rows for u in r.get("unlocked", [])]
            got = {a for u in episodes for a in u.split(",") if a}
            seen[kind] |= got
            pct = score(episodes, weights)
            print(
                f"{task:20} {kind:7} {rate:8.2f} {per_seed:>20} {samples:9d} "
                f"{_mean(rows, 'wall_s'):8.0f} {pct:8.2f} {len(got):8d}"
            )
            summary[task][kind] = {"success": rate, "samples": samples, "seeds": len(rows),
                                   "score": pct, "achievements": sorted(got)}  # fmt: skip
            if kind == "rlgpt":
                summary[task][kind]["runs"] = rows
        if "oracle" in summary[task] and "rlgpt" in summary[task]:
            ceiling = summary[task]["oracle"]["success"]
            share = summary[task]["rlgpt"]["success"] / ceiling if ceiling else 0.0
            summary[task]["rlgpt_share_of_oracle"] = round(share, 3)
        if "ppo" in summary[task] and "rlgpt" in summary[task]:
            base = summary[task]["ppo"]["score"]
            ratio = summary[task]["rlgpt"]["score"] / base if base else None
            summary[task]["rlgpt_score_vs_ppo"] = None if ratio is None else round(ratio, 2)
    distinct = {k: len(v) for k, v in seen.items()}
    print(f"\ndistinct achievements unlocked over the ladder: {distinct} (of {len(weights)})")
    print(
        json.dumps(
            {"world": args.world, "episodes": args.episodes, "seeds": args.seeds,
             "scale": args.scale, "tasks": summary, "distinct_achievements": distinct}
        )
    )  # fmt: skip


if __name__ == "__main__":
    main()
