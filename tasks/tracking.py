"""MLflow tracking: one parent run per pipeline run, one nested run per iteration.

Uses MlflowClient with explicit run ids (no global active run), batches metrics, and marks
runs FAILED or KILLED when the pipeline stops early. A run killed before it could close its
parent leaves it RUNNING; the next run in the experiment ends it KILLED (tag rlgpt.orphaned)
once the process it names (tag rlgpt.process) is gone, and a rerun of the same run id ends its
old parent KILLED as it supersedes it.
"""

from __future__ import annotations

import csv
import hashlib
import json
import logging
import tempfile
import time
from pathlib import Path
from typing import Any

import pandas as pd
from mlflow.entities import Metric, Param, RunTag
from mlflow.tracking import MlflowClient
from prefect import task

from rlgpt.agents.prompting import all_template_hashes
from rlgpt.config import Params
from rlgpt.faults import maybe_crash
from rlgpt.lineage.context import RunContext
from rlgpt.lineage.layout import write_model
from rlgpt.lineage.process import process_gone, process_tag
from rlgpt.lineage.reproduce import Comparison
from rlgpt.lineage.summary import IterationSummary
from rlgpt.lineage.sweep import SweepSummary
from rlgpt.messages import EvalReport
from rlgpt.rl.learned import LearnedResult
from rlgpt.worlds import get_world


def client(uri: str) -> MlflowClient:
    logging.getLogger("mlflow").setLevel(logging.WARNING)  # no schema-migration chatter
    return MlflowClient(tracking_uri=uri)


def _experiment(c: MlflowClient, name: str) -> str:
    exp = c.get_experiment_by_name(name)
    return exp.experiment_id if exp else c.create_experiment(name)


def _runs(c: MlflowClient, experiment_id: str, run_id: str) -> list[Any]:
    """This run id's MLflow runs of any status (KILLED and FAILED ones are continued), newest
    first, leaving out those a forced rerun or a recomputation replaced."""
    found = c.search_runs([experiment_id], filter_string=f"tags.`rlgpt.run_id` = '{run_id}'",
                          order_by=["attributes.start_time DESC"])  # fmt: skip
    return [r for r in found if r.data.tags.get("rlgpt.superseded") != "true"]


def _logged(c: MlflowClient, run: str, key: str, step: int, value: float) -> bool:
    return any(m.step == step and m.value == value for m in c.get_metric_history(run, key))


def end_orphans(c: MlflowClient, experiment_id: str) -> list[str]:
    """End KILLED every RUNNING rlgpt run of the experiment whose process is gone (and the
    RUNNING iteration runs under it); their MLflow run ids."""
    running = c.search_runs([experiment_id], filter_string="attributes.status = 'RUNNING'")
    gone = {r.info.run_id for r in running if process_gone(r.data.tags.get("rlgpt.process", ""))}
    for r in running:
        if r.info.run_id in gone or r.data.tags.get("mlflow.parentRunId") in gone:
            c.set_tag(r.info.run_id, "rlgpt.orphaned", "true")
            c.set_terminated(r.info.run_id, "KILLED")
    return sorted(gone)


@task(name="mlflow_start")
def start_parent(ctx: RunContext, llm_model: str) -> str:
    """Create the parent run; params include prompt-template and skill-library hashes."""
    c = client(ctx.params.tracking.mlflow_uri)
    exp = _experiment(c, ctx.params.tracking.experiment)
    end_orphans(c, exp)
    for old in _runs(c, exp, ctx.run_id):
        if ctx.resume and "rlgpt.iteration" not in old.data.tags:  # continue the parent
            c.update_run(old.info.run_id, status="RUNNING")
            c.set_tag(old.info.run_id, "rlgpt.process", process_tag())
            if "rlgpt.orphaned" in old.data.tags:
                c.delete_tag(old.info.run_id, "rlgpt.orphaned")
            return str(old.info.run_id)
        if not ctx.resume:  # a forced rerun replaces the old runs of this id
            c.set_tag(old.info.run_id, "rlgpt.superseded", "true")
            if old.info.status == "RUNNING":  # its process is gone: this run holds the lock
                c.set_terminated(old.info.run_id, "KILLED")
    p = ctx.params
    tags = {"rlgpt.run_id": ctx.run_id, "rlgpt.process": process_tag()}
    if p.tracking.parent_run:  # nested under a benchmark's run (benchmarks/paper.py)
        tags["mlflow.parentRunId"] = p.tracking.parent_run
    run = c.create_run(exp, run_name=ctx.run_id, tags=tags)
    world = get_world(ctx.task.world)
    params = {
        "world": world.name, "task": ctx.task.name, "llm.backend": p.llm.backend,
        "llm.model": llm_model,
        "llm.base_url": p.llm.base_url or "-", "llm.models": json.dumps(p.llm.models),
        "llm.temperature": p.llm.temperature, "llm.replay_from": p.llm.replay_from or "-",
        "seed": p.run.seed, "iterations": p.run.iterations, "max_inner": p.run.max_inner,
        "critic": p.run.critic,
        "train.sample_budget": p.train.sample_budget, "train.n_envs": p.train.n_envs,
        "eval.episodes": p.eval.episodes,
        "skill_library.sha256": world.author().library_hash(),
        **{f"prompt.{k}.sha256": v for k, v in all_template_hashes(world.name).items()},
    }  # fmt: skip
    params |= flat(p.model_dump(mode="json"), "params.")  # every value of params.yaml
    _log_params(c, run.info.run_id, params)
    return str(run.info.run_id)


def flat(d: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested mappings as dotted keys; lists as JSON."""
    out: dict[str, Any] = {}
    for k, v in d.items():
        if isinstance(v, dict) and v:
            out |= flat(v, f"{prefix}{k}.")
        else:
            out[f"{prefix}{k}"] = json.dumps(v) if isinstance(v, list | dict) else v
    return out


def _log_params(c: MlflowClient, run: str, params: dict[str, Any]) -> None:
    items = [Param(k, str(v)[:500]) for k, v in params.items()]
    for i in range(0, len(items), 100):  # MLflow takes at most 100 params per batch
        c.log_batch(run, params=items[i : i + 100])


def _sb3_scalars(progress: Path, now: int) -> list[Metric]:
    """SB3's logged scalars (train/loss, train/entropy_loss, train/explained_variance, ...), one
    point per rollout at its step count."""
    if not progress.is_file():
        return []
    out = []
    with progress.open() as f:
        for row in csv.DictReader(f):
            step = int(float(row.get("time/total_timesteps") or 0))
            out += [
                Metric(f"sb3/{k}", float(v), now, step)
                for k, v in row.items()
                if k and v not in (None, "") and not k.startswith("time/")
            ]
    return out


_LOADING = """# Loading this policy

    from rlgpt.rl.policy import load_policy
    model = load_policy("policy.zip")   # SB3 PPO, or sb3-contrib MaskablePPO when trained
                                        # with action masks (weights and optimizer)

It acts in the action space of `rl_config.json` (this run's artifacts): the game's primitives
kept there, then the coded actions of `actions/` in the order of `macro_actions`. To play it
as it was evaluated, rebuild that env with rlgpt:

    from rlgpt.rl.envs import make_env          # task, RLConfig, the CodedActions, seed, ...
    env = make_env(task, rl_config, coded_actions, seed, view_radius, macro_step_budget,
                   masking="{masking}")      # this run's train.action_masking
    action, _ = model.predict(obs, action_masks=env.action_masks())  # MaskablePPO

`rlgpt lineage {policy}` prints the prompts, code and validation it came from.
Coded actions (name: content hash): {hashes}
"""


@task(name="mlflow_iteration")
def log_iteration(
    ctx: RunContext, it: IterationSummary, evaluation: EvalReport | None, iter_dir: str
) -> str:
    """A nested run for one iteration with its metrics and artifacts (code, critique, eval)."""
    assert ctx.mlflow_run_id is not None
    c = client(ctx.params.tracking.mlflow_uri)
    parent = c.get_run(ctx.mlflow_run_id)
    digest = hashlib.sha256(
        it.model_dump_json(exclude={"train_samples_per_s"}).encode()
    ).hexdigest()[:16]
    recomputed = False
    for old in _runs(c, parent.info.experiment_id, ctx.run_id):
        tags = old.data.tags
        if tags.get("mlflow.parentRunId") != ctx.mlflow_run_id or "rlgpt.learned" in tags:
            continue  # another run's, or a learned action's (log_learned keeps those)
        if tags.get("rlgpt.iteration") == str(it.iteration):
            if old.info.status == "FINISHED" and tags.get("rlgpt.digest") == digest:
                return str(old.info.run_id)  # logged before a crash: never log twice
            if old.info.status == "RUNNING":
                c.set_terminated(old.info.run_id, "KILLED")  # cut short by a crash
            c.set_tag(old.info.run_id, "rlgpt.superseded", "true")  # new numbers replace it
            recomputed = old.info.status == "FINISHED"
    child = c.create_run(
        parent.info.experiment_id,
        run_name=f"{ctx.run_id}/iter_{it.iteration}",
        tags={"mlflow.parentRunId": ctx.mlflow_run_id, "rlgpt.run_id": ctx.run_id,
              "rlgpt.iteration": str(it.iteration), "rlgpt.digest": digest,
              "rlgpt.recomputed": str(recomputed).lower()},
    )  # fmt: skip
    rid = child.info.run_id
    now = int(time.time() * 1000)
    values = {
        "success_rate": it.success_rate, "samples": it.samples,
        "dead_loop_ratio": it.dead_loop_ratio, "tokens": it.tokens, "cost_usd": it.cost_usd,
        "llm_calls": it.llm_calls, **{f"tokens.{r}": n for r, n in it.tokens_by_role.items()},
        "n_coded": len(it.coded), "n_learned": len(it.learned),
        "train_samples_per_s": it.train_samples_per_s,
    }  # fmt: skip
    if it.selection_rate is not None:
        values["selection_rate"] = it.selection_rate
    if evaluation is not None:
        values |= {f"subgoal.{k}": v for k, v in evaluation.subgoal_rates.items()}
        values |= {"mean_episode_steps": evaluation.mean_episode_steps}
    metrics = [Metric(k, float(v), now, 0) for k, v in values.items()]
    params = [
        Param("coded", ",".join(it.coded) or "-"),
        Param("learned", ",".join(it.learned) or "-"),
        Param("verdict", it.verdict),
        Param("validation", it.validation),
    ]
    c.log_batch(rid, metrics=metrics, params=params, tags=[RunTag("verdict", it.verdict)])
    d = Path(iter_dir)
    _log_training(c, rid, d, now, ctx.params.train.action_masking)
    for sub in ("actions", "llm"):
        if (d / sub).is_dir():
            c.log_artifacts(rid, str(d / sub), sub)
    for name in ("critique.json", "eval.json", "decomposition.json", "rl_config.json"):
        if (d / name).is_file():
            c.log_artifact(rid, str(d / name))
    if not _logged(c, ctx.mlflow_run_id, "success_rate", it.iteration, it.success_rate):
        c.log_metric(ctx.mlflow_run_id, "success_rate", it.success_rate, step=it.iteration)
    c.set_terminated(rid, "FINISHED")
    return str(rid)


@task(name="mlflow_learned")
def log_learned(ctx: RunContext, k: int, learned: list[LearnedResult]) -> list[str]:
    """A nested run per learned action of iteration k: its config as params, its reach before
    and after training (and its code's alone), its samples, its learning curve and policy;
    logged once (a resumed run finds it)."""
    if ctx.mlflow_run_id is None or not learned:
        return []
    c = client(ctx.params.tracking.mlflow_uri)
    parent = c.get_run(ctx.mlflow_run_id)
    ids = []
    for r in learned:
        tags = {"mlflow.parentRunId": ctx.mlflow_run_id, "rlgpt.run_id": ctx.run_id,
                "rlgpt.iteration": str(k), "rlgpt.learned": r.name}  # fmt: skip
        found = [o for o in _runs(c, parent.info.experiment_id, ctx.run_id)
                 if o.data.tags.get("rlgpt.learned") == r.name
                 and o.data.tags.get("rlgpt.iteration") == str(k)
                 and o.info.status == "FINISHED"]  # fmt: skip
        if found:
            ids.append(str(found[0].info.run_id))
            continue
        rid = c.create_run(parent.info.experiment_id, run_name=f"{ctx.run_id}/iter_{k}/{r.name}",
                           tags=tags).info.run_id  # fmt: skip
        now = int(time.time() * 1000)
        values = {"ok": float(r.ok), "samples": r.samples, "train_samples": r.train_samples,
                  "start_samples": r.start_samples, "samples_per_s": r.samples_per_s,
                  "wall_s": r.wall_s, "reach_before": r.reach_before, "reach_after": r.reach_after,
                  "skill_reach": r.skill_reach, "deaths_after": r.deaths_after}  # fmt: skip
        values["stopped_early"] = float(bool(r.stopped))
        values["kept_start"] = float(bool(r.kept_start))
        metrics = [Metric(n, float(v), now, 0) for n, v in values.items() if v is not None]
        out = ctx.layout.iter_dir(k) / "learned" / r.name
        curve = out / "curve.csv"
        if curve.is_file():
            rows = [line.split(",") for line in curve.read_text().splitlines()[1:] if line]
            metrics += [Metric(m, float(row[i]), now, int(row[0])) for row in rows
                        for m, i in (("curve.return", 1), ("curve.success", 3))]  # fmt: skip
        for i in range(0, len(metrics), 1000):
            c.log_batch(rid, metrics=metrics[i : i + 1000])
        if r.config is not None:
            _log_params(c, rid, flat(r.config.model_dump(mode="json"), "learned."))
        c.set_tag(rid, "rlgpt.reason", r.reason[:500] or "-")
        if r.policy and Path(r.policy).is_file():
            c.log_artifact(rid, r.policy, "policy")
        c.set_terminated(rid, "FINISHED")
        ids.append(str(rid))
    return ids


def _log_training(c: MlflowClient, rid: str, d: Path, now: int, masking: str) -> None:
    """The iteration's RL config as params, SB3's scalars, the episode table, and the policy
    with a loading recipe."""
    if (d / "rl_config.json").is_file():
        cfg = json.loads((d / "rl_config.json").read_text())
        _log_params(c, rid, flat(cfg, "rl."))
    scalars = _sb3_scalars(d / "train" / "sb3" / "progress.csv", now)
    for i in range(0, len(scalars), 1000):  # MLflow takes at most 1000 metrics per batch
        c.log_batch(rid, metrics=scalars[i : i + 1000])
    if (d / "episodes.parquet").is_file():
        c.log_table(
            rid, data=pd.read_parquet(d / "episodes.parquet"), artifact_file="episodes.json"
        )
    policy = d / "train" / "policy.zip"
    if policy.is_file():
        c.log_artifact(rid, str(policy), "policy")
        hashes = {
            p.stem: hashlib.sha256(p.read_bytes()).hexdigest()[:12]
            for p in sorted((d / "actions").glob("*.py"))
        }
        with tempfile.TemporaryDirectory() as tmp:
            recipe = Path(tmp) / "LOADING.md"
            recipe.write_text(_LOADING.format(
                policy=policy, hashes=json.dumps(hashes),
                masking=masking,
            ))  # fmt: skip
            c.log_artifact(rid, str(recipe), "policy")


@task(name="mlflow_end")
def end_parent(
    ctx: RunContext, status: str, final_success_rate: float, summary: str, iterations: int
) -> None:
    """Close the parent run as FINISHED, FAILED or KILLED; the final rate once per step (the
    number of iterations), however often the run is resumed."""
    if ctx.mlflow_run_id is None:
        return
    maybe_crash("end_parent")
    c = client(ctx.params.tracking.mlflow_uri)
    if not _logged(c, ctx.mlflow_run_id, "final_success_rate", iterations, final_success_rate):
        c.log_metric(ctx.mlflow_run_id, "final_success_rate", final_success_rate, step=iterations)
    if Path(summary).is_file():
        c.log_artifact(ctx.mlflow_run_id, summary)
    c.set_terminated(ctx.mlflow_run_id, status)


@task(name="record_comparison")
def record_comparison(ctx: RunContext, comparison: Comparison) -> Path:
    """Write runs/<original>/reproductions/<reproduction>.json: last, once MLflow has it, so
    the file says the reproduction is complete."""
    out = Path(ctx.params.run.runs_dir) / comparison.original / "reproductions"
    return write_model(out / f"{comparison.reproduction}.json", comparison)


@task(name="mlflow_reproduction")
def log_reproduction(ctx: RunContext, comparison: Comparison) -> None:
    """Tag the reproduction's MLflow run with the verdict and deltas."""
    c = client(ctx.params.tracking.mlflow_uri)
    exp = _experiment(c, ctx.params.tracking.experiment)
    for run in _runs(c, exp, comparison.reproduction):
        if "rlgpt.iteration" in run.data.tags:
            continue
        rid = run.info.run_id
        c.set_tag(rid, "rlgpt.reproduction_of", comparison.original)
        c.set_tag(rid, "rlgpt.reproduction_passed", str(comparison.passed).lower())
        c.log_metric(rid, "reproduction.max_abs_delta", comparison.max_abs_delta)
        c.log_metric(rid, "reproduction.passed", float(comparison.passed))


def run_links(uri: str, experiment: str, run_id: str, ui: str) -> list[tuple[str, str]]:
    """The MLflow runs of rlgpt run `run_id` (the parent, then each iteration and learned
    action) as (label, URL in the MLflow UI at `ui`); [] when the store has none."""
    c = client(uri)
    exp = c.get_experiment_by_name(experiment)
    if exp is None:
        return []
    out = []
    for r in reversed(_runs(c, exp.experiment_id, run_id)):
        k = r.data.tags.get("rlgpt.iteration")
        label = f"MLflow: iteration {k}" if k else "MLflow: the run (parent)"
        if r.data.tags.get("rlgpt.learned"):
            label = f"MLflow: iteration {k}, learned action {r.data.tags['rlgpt.learned']}"
        out.append(
            (
                f"{label} ({r.info.run_id})",
                f"{ui.rstrip('/')}/#/experiments/{exp.experiment_id}/runs/{r.info.run_id}",
            )
        )
    return sorted(out, key=lambda x: (not x[0].startswith("MLflow: the run"), x[0]))


def start_sweep(params: Params, sweep_id: str, grid: dict[str, Any]) -> str:
    """The MLflow parent of a sweep (every run of it nests here); a rerun continues it."""
    c = client(params.tracking.mlflow_uri)
    exp = _experiment(c, params.tracking.experiment)
    found = c.search_runs([exp], filter_string=f"tags.`rlgpt.sweep_id` = '{sweep_id}'")
    if found:
        c.update_run(found[0].info.run_id, status="RUNNING")
        return str(found[0].info.run_id)
    run = c.create_run(exp, run_name=sweep_id, tags={"rlgpt.sweep_id": sweep_id})
    _log_params(c, run.info.run_id, flat(grid, "sweep.") | flat(params.model_dump(mode="json"),
                                                                   "params."))  # fmt: skip
    return str(run.info.run_id)


def end_sweep(params: Params, mlflow_run: str, summary: SweepSummary, path: Path) -> None:
    """Per task the mean final success rate; the sweep's throughput; summary.json."""
    c = client(params.tracking.mlflow_uri)
    now = int(time.time() * 1000)
    metrics = [
        Metric("samples_per_s", summary.samples_per_s, now, 0),
        Metric("failed_runs", sum(r.status == "failed" for r in summary.rows), now, 0),
    ]
    for task_name in summary.tasks:
        rates = [r.final_success_rate for r in summary.rows if r.task == task_name]
        if rates:
            metrics.append(Metric(f"{task_name}.mean_success_rate", sum(rates) / len(rates),
                                  now, 0))  # fmt: skip
    c.log_batch(mlflow_run, metrics=metrics)
    c.log_artifact(mlflow_run, str(path))
    c.set_terminated(mlflow_run, "FINISHED")
