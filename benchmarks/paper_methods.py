"""The methods `benchmarks/paper.py` compares, each one job (method, task, seed) at one budget.

Every job returns the same record: its learning curve (`points`: cumulative samples, success
rate, dead-loop ratio and deaths after each segment or iteration), the final figures, the
samples used, and the samples at which a training episode first succeeded. All methods are
evaluated on the same held-out episode seeds (rlgpt's own evaluation seeds).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml

from rlgpt.worlds import DEFAULT_WORLD

ROOT = Path(__file__).resolve().parents[1]

# method -> what it is, for the tables.
METHODS: dict[str, str] = {
    "pure_rl": "PPO on the 17 primitives, sparse task reward (success bonus, -1 on death)",
    "pure_code": "the coded actions alone, chained by the plan, no RL",
    "rlgpt": "the full loop: slow, fast and critic agents (the author is named above)",
    "no_critic": "the full loop with the critic's feedback withheld (run.critic: false)",
    "reward_only": "PPO on the 17 primitives, every plan step's achievement as a reward term",
    "one_agent": "one prompt playing planner and coder (with the offline author's protocol, "
    "played by the scripted model, as two_agents is)",
    "two_agents": "the full loop with its two agents played by the scripted model (mistake rate "
    "0.25): one_agent's comparator when the loop's author is the offline one",
    "masks_recipes": "the full loop with recipe masks only (train.action_masking: recipes)",
    "masks_off": "the full loop without action masks (train.action_masking: off): plain PPO "
    "over the enlarged action space",
}
# The loop's variants, and the train.action_masking each runs with ("" keeps params.yaml's).
LOOP_MASKING = {"rlgpt": "", "no_critic": "", "one_agent": "", "two_agents": "",
                "masks_recipes": "recipes", "masks_off": "off"}  # fmt: skip


def with_parent(cmd: list[str]) -> list[str]:
    """`cmd`, started so that it is SIGKILLed when the process that starts it dies, even by
    SIGKILL (Linux's PR_SET_PDEATHSIG, set by flows/pdeathsig.py as for a run's Prefect server),
    so a stopped benchmark leaves no `rlgpt run` behind to hold its run's lock. Run it with
    `start_new_session=True`; no preexec_fn, so no Python runs between fork and exec (JAX warns
    at every such fork once its backend is up)."""
    launcher = ROOT / "flows" / "pdeathsig.py"
    return [sys.executable, "-I", "-S", "-B", str(launcher), str(os.getpid()), *cmd]


def job_record(cmd: list[str], path: Path) -> dict[str, Any]:
    """Run one benchmark job (`cmd`, a script that writes its record to `path`) in a fresh
    process that dies with this one; its record, or {"error": the last line it printed}."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        with_parent(cmd), capture_output=True, text=True, env=env, start_new_session=True
    )
    if proc.returncode != 0 or not path.exists():
        tail = (proc.stderr or proc.stdout).strip().splitlines() or ["no output"]
        return {"error": tail[-1][:300]}
    rec: dict[str, Any] = json.loads(path.read_text())
    return rec


def _plan(task: str, world: str = DEFAULT_WORLD) -> tuple[Any, list[tuple[str, int]], Any]:
    """The task, its plan (achievement, count) and the decomposition evaluate() reports on."""
    from rlgpt.messages import Decomposition, SubAction
    from rlgpt.worlds import get_world

    game = get_world(world)
    spec = game.task(task)
    steps = game.plan(spec)
    subs = [
        SubAction(name=a, description=a, mode="rl", count=n,
                  precondition=game.requirement_text(a) or "none beyond staying alive",
                  expected_effect=f"achievement counter '{a}' rises by 1 per call ({n} in all)")
        for a, n in steps
    ]  # fmt: skip
    return spec, steps, Decomposition(task=task, sub_actions=subs, reasoning="benchmark plan")


def _point(samples: int, report: Any) -> dict[str, Any]:
    deaths = report.ends.get("death", 0.0)
    return {"samples": samples, "success": report.success_rate,
            "dead_loop": report.dead_loop_ratio, "deaths": deaths}  # fmt: skip


def ppo(
    task: str, seed: int, budget: int, segments: int, episodes: int, shaped: bool, out: Path,
    world: str = DEFAULT_WORLD,
) -> dict[str, Any]:  # fmt: skip
    """PPO on primitives in `segments` equal parts, each continuing the last (weights and
    optimizer) and evaluated: a learning curve at the loop's iteration boundaries. `shaped`:
    a reward term per plan step (the knowledge as reward, no coded action)."""
    from rlgpt.config import EvalParams, load_params
    from rlgpt.messages import RewardTerm, RLConfig
    from rlgpt.rl.evaluate import EvalSettings, evaluate
    from rlgpt.rl.train import TrainSettings, train
    from rlgpt.trial import Trial

    params = load_params(ROOT / "params.yaml")
    spec, steps, dec = _plan(task, world)
    terms = [RewardTerm(achievement=a, weight=1.0, cap=n) for a, n in steps] if shaped else []
    cfg = RLConfig(
        macro_actions=[], reward_terms=terms, sample_budget=budget // segments, ppo=params.train.ppo
    )
    t0, samples, first, points, previous = time.perf_counter(), 0, None, [], None
    for i in range(1, segments + 1):
        trial = Trial.of(spec, cfg, [], dec=dec)
        settings = TrainSettings(params=params.train, seed=seed + i, show_progress=False)
        result = train(trial, out / f"seg{i}", settings=settings, previous=previous)
        if first is None and result.first_success is not None:
            first = samples + result.first_success
        samples += result.samples
        report, table = evaluate(trial, Path(result.checkpoint), settings=EvalSettings(
            params=EvalParams(episodes=episodes), train=params.train, seed=seed, samples=samples,
            show_progress=False,
        ))  # fmt: skip
        points.append(_point(samples, report))
        previous = result
    return _record(points, samples, first, t0) | {"unlocked": unlocked(table)}


def pure_code(
    task: str, seed: int, episodes: int, world: str = DEFAULT_WORLD,
    survival: dict[str, tuple[str, int]] | None = None,
) -> dict[str, Any]:  # fmt: skip
    """The reference coded actions called in plan order (the first step that params.yaml's
    action mask allows: with plan masks, the step the plan needs next from what is held and
    what still stands), no learning. `survival` (action -> its vital, the highest value at
    which it is called) adds those actions to the space, each called first whenever its vital
    is that low (benchmarks/survival_calls.py). Samples to first success: env steps played
    until an episode first succeeded (nothing is trained)."""
    from rlgpt.config import EvalParams, load_params
    from rlgpt.messages import RLConfig
    from rlgpt.rl.evaluate import EvalSettings, evaluate
    from rlgpt.rl.runtime import MacroActionWrapper
    from rlgpt.trial import Trial
    from rlgpt.worlds import get_world

    params = load_params(ROOT / "params.yaml")
    spec, steps, dec = _plan(task, world)
    author = get_world(world).author()
    calls = survival or {}
    names = [a for a, _ in steps]
    names += [a for a in calls if a not in names]  # a target may be a survival action too
    coded = [author.write_action(a, 200 if a.startswith("collect") else 80) for a in names]
    cfg = RLConfig(macro_actions=names, reward_terms=[], sample_budget=1)

    def act(obs: Any, info: dict[str, Any], env: MacroActionWrapper) -> int:
        low = [a for a, (vital, most) in calls.items() if info["inventory"][vital] <= most]
        if low:
            return env.index_of(low[0])
        if params.train.action_masking == "off":
            todo = [a for a, n in steps if info["achievements"].get(a, 0) < n]
        else:
            ok = env.action_masks()
            todo = [a for a, _ in steps if ok[env.index_of(a)]]
        return env.index_of((todo or [steps[-1][0]])[0])

    t0 = time.perf_counter()
    report, table = evaluate(
        Trial.of(spec, cfg, coded, dec=dec), None, act=act, settings=EvalSettings(
            params=EvalParams(episodes=episodes), train=params.train, seed=seed, samples=0,
            show_progress=False, sandbox=params.sandbox,
        ),
    )  # fmt: skip
    played = table["steps"].cumsum()
    wins = played[table["success"]]
    first = int(wins.iloc[0]) if len(wins) else None
    return _record([_point(0, report)], 0, first, t0) | {"unlocked": unlocked(table)}


def rlgpt(
    task: str, seed: int, budget: int, iterations: int, episodes: int, critic: bool, out: Path,
    tracking: dict[str, Any], llm: dict[str, Any], agents: str = "two", masking: str = "",
) -> dict[str, Any]:  # fmt: skip
    """`rlgpt run` with params.yaml as it is but the benchmark's budget (split over the
    iterations), evaluation episodes, critic switch, masks, LLM and tracking store; no skill
    library, so every run starts from the same knowledge. Its success is the run's final
    (selected) policy's, what a user gets; its points are every iteration's. `llm` backend
    "scripted": a scripted model served for this run alone (benchmarks/scripted_model.py),
    reached through the openai client; what it drew and got wrong is in the record."""
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    params["run"] |= {"task": task, "iterations": iterations, "runs_dir": str(out / "runs"),
                      "critic": critic, "seed": seed, "agents": agents}  # fmt: skip
    if masking:
        params["train"]["action_masking"] = masking
    params["train"]["sample_budget"] = budget // iterations
    params["eval"]["episodes"] = episodes
    params["tracking"] |= tracking
    out.mkdir(parents=True, exist_ok=True)
    run_id = out.name
    t0 = time.perf_counter()
    cmd = [str(Path(sys.executable).with_name("rlgpt")), "run", "--params", "params.yaml",
           "--run-id", run_id, "--quiet", "--force", "--no-library"]  # fmt: skip
    model: Any = None
    with contextlib.ExitStack() as stack:
        env = dict(os.environ)
        if llm.get("backend") == "scripted":
            from benchmarks.scripted_model import KEY_ENV, endpoint

            steps = int(params["train"]["macro_step_budget"])
            model, llm = stack.enter_context(endpoint(llm, seed, steps))
            env[KEY_ENV] = "not-a-key"
        params["llm"] |= llm
        (out / "params.yaml").write_text(yaml.safe_dump(params))
        proc = subprocess.run(
            with_parent(cmd), cwd=out, capture_output=True, text=True, env=env,
            start_new_session=True,
        )  # fmt: skip
    if model is not None:
        model.write_log(out / "scripted_mistakes.json")
    run_dir = out / "runs" / run_id
    if proc.returncode != 0 or not (run_dir / "summary.json").exists():
        lines = (proc.stderr or proc.stdout).strip().splitlines() or ["no output"]
        return {"error": f"rlgpt run failed: {lines[-1][:300]}"}
    summary = json.loads((run_dir / "summary.json").read_text())
    samples, first, points = 0, None, []
    for it in summary["iterations"]:
        train = run_dir / f"iter_{it['iteration']}" / "train" / "train.json"
        at = json.loads(train.read_text()).get("first_success") if train.exists() else None
        if first is None and at is not None:
            first = samples + at
        samples += it["samples"]
        report = run_dir / f"iter_{it['iteration']}" / "eval.json"
        ends = json.loads(report.read_text()).get("ends", {}) if report.exists() else {}
        points.append({"samples": samples, "success": it["success_rate"],
                       "dead_loop": it["dead_loop_ratio"], "deaths": ends.get("death", 0.0),
                       "coded": it["coded"], "verdict": it["verdict"]})  # fmt: skip
    final = {
        "success": summary["final_success_rate"],
        "selected_iteration": summary.get("selected_iteration"),
        "last_success": points[-1]["success"],
        "run_dir": str(run_dir),
        "unlocked": run_unlocked(run_dir, summary.get("selected_iteration")),
    }
    if model is not None:
        final["mistakes"] = model.counts()
    final["learned"] = learned_actions(run_dir)
    return _record(points, samples, first, t0) | final


def learned_actions(run_dir: Path) -> list[dict[str, Any]]:
    """Every learned action a run trained, per iteration: its reach from held-out start
    states before and after training, its code's alone, samples, wall time, why kept out."""
    keep = ("name", "ok", "reason", "reach_before", "reach_after", "skill_reach", "samples",
            "wall_s", "stopped", "kept_start")  # fmt: skip
    out = []
    for path in sorted(run_dir.glob("iter_*/learned/*.json")):
        r = json.loads(path.read_text())
        out.append({"iteration": int(path.parent.parent.name[5:])} | {k: r.get(k) for k in keep})
    return out


def unlocked(table: Any) -> list[str]:
    """Each evaluation episode's achievements reached by its end (comma-separated): what the
    world's score is computed from."""
    return [str(u) for u in table["unlocked"]] if "unlocked" in table else []


def run_unlocked(run_dir: Path, iteration: int | None) -> list[str]:
    """The unlocked column of a run's iteration (its selected one) from episodes.parquet."""
    import pandas as pd

    path = run_dir / f"iter_{iteration}" / "episodes.parquet"
    return unlocked(pd.read_parquet(path)) if iteration is not None and path.exists() else []


def _record(
    points: list[dict[str, Any]], samples: int, first: int | None, t0: float
) -> dict[str, Any]:
    last = points[-1]
    return {"points": points, "success": last["success"], "dead_loop": last["dead_loop"],
            "deaths": last["deaths"], "samples": samples, "first_success": first,
            "wall_s": round(time.perf_counter() - t0, 1)}  # fmt: skip
