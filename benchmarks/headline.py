"""The headline: the default run (`make run`'s command, params.yaml as it is) against pure PPO on
the same task at the same budget, in one invocation, on the same evaluation episodes.

  rlgpt        `rlgpt run --params params.yaml`: the full loop with the offline author; its
               figure is its final policy's (the best iteration's on the selection episodes)
  ppo_shaped   PPO on the primitive actions with a reward term per plan step (the same
               knowledge as reward, no coded action), params.yaml's training settings
  ppo_sparse   PPO on the primitive actions, success bonus and death penalty only

Both PPO baselines get the whole budget the loop may spend (run.iterations x
train.sample_budget), whatever the loop used. Ends with one JSON line.

    python benchmarks/headline.py                 # seed 0
    python benchmarks/headline.py --seeds 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml

from rlgpt.worlds import DEFAULT_WORLD

sys.path.insert(0, str(Path(__file__).resolve().parent))
from paper_methods import ROOT, ppo  # noqa: E402


def default_run(seed: int, out: Path) -> dict[str, Any]:
    """`rlgpt run` with params.yaml as it is (its tracking and runs under `out`)."""
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    params["run"] |= {"seed": seed, "runs_dir": str(out / "runs")}
    params["tracking"]["mlflow_uri"] = f"sqlite:///{out / 'mlflow.db'}"
    out.mkdir(parents=True, exist_ok=True)
    (out / "params.yaml").write_text(yaml.safe_dump(params))
    run_id = f"default-s{seed}"
    t0 = time.perf_counter()
    cmd = [str(Path(sys.executable).with_name("rlgpt")), "run", "--params", "params.yaml",
           "--run-id", run_id, "--quiet", "--force", "--no-library"]  # fmt: skip
    proc = subprocess.run(cmd, cwd=out, capture_output=True, text=True)
    path = out / "runs" / run_id / "summary.json"
    if proc.returncode != 0 or not path.exists():
        lines = (proc.stderr or proc.stdout).strip().splitlines() or ["no output"]
        return {"error": lines[-1][:300], "success": 0.0, "samples": 0}
    summary = json.loads(path.read_text())
    table = [ln for ln in proc.stdout.splitlines() if ln[:4].strip().isdigit()]
    return {
        "success": summary["final_success_rate"], "samples": sum(
            i["samples"] for i in summary["iterations"]),
        "selected_iteration": summary.get("selected_iteration"),
        "iterations": [{k: i.get(k) for k in ("iteration", "success_rate", "selection_rate",
                                               "samples", "coded", "learned", "verdict")}
                       for i in summary["iterations"]],
        "table": table, "wall_s": round(time.perf_counter() - t0, 1),
    }  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--out", default="benchmarks/out/headline")
    args = ap.parse_args()
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    task, world = params["run"]["task"], params["run"].get("world", DEFAULT_WORLD)
    budget = int(params["run"]["iterations"]) * int(params["train"]["sample_budget"])
    episodes = int(params["eval"]["episodes"])
    out = Path(args.out).resolve()
    rows: dict[str, list[dict[str, Any]]] = {"rlgpt": [], "ppo_shaped": [], "ppo_sparse": []}
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        rows["rlgpt"].append(default_run(seed, out / f"rlgpt-s{seed}"))
        for name, shaped in (("ppo_shaped", True), ("ppo_sparse", False)):
            rec = ppo(task, seed, budget, 1, episodes, shaped, out / f"{name}-s{seed}", world)
            rows[name].append(rec)
        print(
            f"seed {seed}: "
            + ", ".join(f"{k} {v[-1].get('success', 0):.2f}" for k, v in rows.items()),
            flush=True,
        )
    for line in rows["rlgpt"][0].get("table", []):
        print(line)
    mean = {
        k: round(statistics.fmean(r.get("success", 0.0) for r in v), 3) for k, v in rows.items()
    }
    print(
        f"{task} ({world}), budget {budget:,} samples, {episodes} evaluation episodes, "
        f"{args.seeds} seed(s): " + ", ".join(f"{k} {v:.2f}" for k, v in mean.items())
    )
    result = {
        "task": task, "world": world, "budget": budget, "episodes": episodes,
        "seeds": args.seeds, "success": mean,
        "rlgpt_samples": [r.get("samples", 0) for r in rows["rlgpt"]],
        "selected_iteration": [r.get("selected_iteration") for r in rows["rlgpt"]],
        "difference": round(mean["rlgpt"] - max(mean["ppo_shaped"], mean["ppo_sparse"]), 3),
        "errors": [r["error"] for v in rows.values() for r in v if "error" in r],
    }  # fmt: skip
    print(json.dumps(result))


if __name__ == "__main__":
    main()
