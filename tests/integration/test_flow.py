"""One real, tiny RL-GPT run through the CLI: Prefect flow, sandbox, PPO, MLflow, artifacts."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

from mlflow.tracking import MlflowClient

from tests.conftest import REPO, rlgpt_exe


def test_tiny_run_writes_summary_artifacts_and_mlflow(tmp_path: Path, tiny_params: Path, cli_env):
    proc = subprocess.run(
        [rlgpt_exe(), "run", "--params", str(tiny_params), "--run-id", "it", "--quiet"],
        cwd=tmp_path, env=cli_env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "iter" in proc.stdout and "revise_plan (collect_wood)" in proc.stdout

    root = tmp_path / "runs" / "it"
    summary = json.loads((root / "summary.json").read_text())
    assert summary["run_id"] == "it" and summary["task"] == "make_wood_pickaxe"
    assert summary["llm"].startswith("offline")
    its = summary["iterations"]
    assert [i["iteration"] for i in its] == [1, 2]
    # the critique changed the plan: the learned sub-action became coded (its learned action,
    # trained from its start states, stayed below learn.min_reach and out of the space)
    assert its[0]["learned"] == ["collect_wood"] and "collect_wood" in its[1]["coded"]
    assert its[0]["learned_samples"] >= 800 and its[0]["samples"] >= 1200 + 800
    assert its[0]["learned_actions"]["collect_wood"].startswith("excluded: reaches its effect")
    learned = json.loads((root / "iter_1" / "learned" / "collect_wood.json").read_text())
    assert learned["config"]["name"] == "collect_wood" and learned["held_out"] >= 1
    assert (root / "iter_1" / "learned" / "collect_wood" / "policy.zip").is_file()
    for it in its:
        assert it["samples"] >= 1200
        assert 0.0 <= it["success_rate"] <= 1.0 and 0.0 <= it["dead_loop_ratio"] <= 1.0
    # the final policy is the best iteration's on the selection episodes (the latest on a tie)
    best = max(its, key=lambda i: (i["selection_rate"], i["iteration"]))
    assert summary["selected_iteration"] == best["iteration"]
    assert summary["final_success_rate"] == best["success_rate"]
    assert summary["last_success_rate"] == its[-1]["success_rate"]
    assert summary["final_policy"] == f"iter_{best['iteration']}/train/policy.zip"

    it1 = root / "iter_1"
    for name in ("decomposition.json", "validation.json", "rl_config.json", "eval.json",
                 "selection.json", "critique.json", "episodes.parquet",
                 "train/policy.zip"):  # fmt: skip
        assert (it1 / name).is_file(), name
    assert (it1 / "actions" / "place_table.py").read_text().startswith("def place_table(view)")
    exchanges = sorted((it1 / "llm").glob("*.json"))
    assert exchanges and all(
        json.loads(p.read_text())["request"]["template_hash"] for p in exchanges
    )
    manifest = json.loads((root / "manifest.json").read_text())
    assert "iter_2/train/policy.zip" in manifest["files"]

    # Prefect: the flow run is named after the run, and publishes the iteration table
    with sqlite3.connect(tmp_path / ".prefect" / "prefect.db") as db:
        names = [r[0] for r in db.execute("select name from flow_run")]
        ((key, data),) = db.execute("select key, data from artifact where type = 'table'")
        logs = [r[0] for r in db.execute("select message from log")]
    assert names == ["it"] and key == "iterations-it"
    # the run logger reaches the UI: the flow's iteration lines and each stage's start
    assert any(m.startswith("iteration 1: ") and "revise_plan" in m for m in logs), logs[:5]
    assert any(m.startswith("train, iteration 2 of run it") for m in logs)
    table = json.loads(json.loads(data))
    assert [r["iteration"] for r in table] == [1, 2] and table[0]["learned"] == "collect_wood"

    client = MlflowClient(tracking_uri=f"sqlite:///{tmp_path}/mlflow.db")
    exp = client.get_experiment_by_name("rlgpt")
    runs = client.search_runs([exp.experiment_id])
    parents = [r for r in runs if "mlflow.parentRunId" not in r.data.tags]
    nested = [r for r in runs if r.data.tags.get("mlflow.parentRunId") == parents[0].info.run_id]
    children = [r for r in nested if "rlgpt.learned" not in r.data.tags]
    (learned,) = [r for r in nested if "rlgpt.learned" in r.data.tags]
    assert learned.data.tags["rlgpt.learned"] == "collect_wood"
    assert learned.data.tags["rlgpt.iteration"] == "1" and learned.info.status == "FINISHED"
    assert {"reach_before", "reach_after", "samples"} <= set(learned.data.metrics)
    assert learned.data.params["learned.name"] == "collect_wood"
    assert len(parents) == 1 and parents[0].info.status == "FINISHED"
    assert parents[0].data.params["llm.backend"] == "offline"
    assert any(k.startswith("prompt.") for k in parents[0].data.params)
    assert len(children) == 2
    assert parents[0].data.params["params.train.sample_budget"] == "1200"  # all of params.yaml
    for child in children:
        m = child.data.metrics
        assert {"success_rate", "samples", "dead_loop_ratio", "tokens"} <= set(m)
        assert m["samples"] >= 1200 and m["tokens"] > 0
        assert "sb3/train/entropy_loss" in m and "sb3/train/explained_variance" in m
        assert child.data.params["rl.sample_budget"] == "1200"
        assert "rl.macro_actions" in child.data.params
        rid = child.info.run_id
        top = {a.path for a in client.list_artifacts(rid)}
        assert {"episodes.json", "policy", "actions"} <= top
        policy = {a.path for a in client.list_artifacts(rid, "policy")}
        assert policy == {"policy/policy.zip", "policy/LOADING.md"}
    # the recipe loads what was logged: the masked policy, in the logged action space
    from sb3_contrib import MaskablePPO

    from rlgpt.rl.policy import load_policy

    got = Path(client.download_artifacts(rid, "policy", str(tmp_path / "dl")))
    recipe = (got / "LOADING.md").read_text()
    assert 'load_policy("policy.zip")' in recipe and 'masking="plan"' in recipe
    model = load_policy(got / "policy.zip")
    cfg = json.loads(Path(client.download_artifacts(rid, "rl_config.json", str(tmp_path / "dl")))
                     .read_text())  # fmt: skip
    prims = 17 if cfg["primitive_actions"] is None else len(cfg["primitive_actions"])
    assert isinstance(model, MaskablePPO)
    assert model.action_space.n == prims + len(cfg["macro_actions"])


def test_lineage_both_directions(tmp_path: Path, tiny_params: Path, cli_env):
    run = subprocess.run(
        [rlgpt_exe(), "run", "--params", str(tiny_params), "--run-id", "lin", "--quiet"],
        cwd=tmp_path, env=cli_env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    runs = str(tmp_path / "runs")
    policy = tmp_path / "runs" / "lin" / "iter_2" / "train" / "policy.zip"

    def lineage(target: str) -> dict:
        cmd = [rlgpt_exe(), "lineage", target, "--runs-dir", runs, "--json"]
        proc = subprocess.run(cmd, cwd=tmp_path, env=cli_env, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)

    forward = lineage(str(policy))["chain"][0]
    assert forward["iteration"] == 2 and forward["checkpoint"]["path"] == str(policy)
    kinds = [ex["template"]["name"] for ex in forward["exchanges"]]
    assert kinds[0] == "slow_decompose" and "critic" in kinds
    assert "collect_wood" in forward["code_sha256"]
    assert forward["evaluation"]["samples"] >= 1200

    whole = lineage("lin")["chain"]
    assert [c["iteration"] for c in whole] == [1, 2]

    critic_hash = next(e for e in forward["exchanges"] if e["template"]["name"] == "critic")
    back = lineage(critic_hash["template"]["sha256"][:16])["policies"]
    assert {(p["run_id"], p["iteration"]) for p in back} == {("lin", 1), ("lin", 2)}
    assert all(len(p["sha256"]) == 64 for p in back)

    bad = subprocess.run([rlgpt_exe(), "lineage", "nothing-here", "--runs-dir", runs],
                         cwd=tmp_path, env=cli_env, capture_output=True, text=True)  # fmt: skip
    assert bad.returncode == 2 and "not a checkpoint" in bad.stderr


def test_the_deployable_flow_takes_plain_parameters_and_runs(tmp_path: Path, cli_env):
    """flows/main_flow.py: what a Prefect deployment or the UI's form can start."""
    script = f"""
import json
from flows.launch import offline_env
offline_env()
from flows.main_flow import rlgpt_flow
from rlgpt.errors import UserError
schema = rlgpt_flow.to_deployment(name="t")._parameter_openapi_schema.model_dump()
types = {{k: json.dumps(v) for k, v in schema["properties"].items()}}
try:
    rlgpt_flow(task="place_table", sets=["train.sample_budget=lots"], run_id="bad")
except UserError as exc:
    bad = str(exc)
sets = ["run.iterations=1", "train.sample_budget=800", "train.n_envs=1", "eval.episodes=2",
        "run.runs_dir={tmp_path}/runs", "tracking.mlflow_uri=sqlite:///{tmp_path}/m.db"]
summary = rlgpt_flow(task="place_table", sets=sets, run_id="dep")
print(json.dumps({{"types": types, "bad": bad, "summary": summary}}))
"""
    env = {**cli_env, "PYTHONPATH": str(REPO)}  # flows/ is a folder of the project, not a package
    proc = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    # plain JSON types only: a form can fill every one
    assert set(out["types"]) == {"task", "params_path", "sets", "run_id", "force"}
    assert all('"object"' not in t and "$ref" not in t for t in out["types"].values())
    assert "train.sample_budget" in out["bad"], "an override is validated like --set"
    summary = out["summary"]
    assert summary["run_id"] == "dep" and summary["task"] == "place_table"
    assert len(summary["iterations"]) == 1 and summary["iterations"][0]["samples"] >= 800
    assert (tmp_path / "runs" / "dep" / "manifest.json").is_file()
    with sqlite3.connect(tmp_path / ".prefect" / "prefect.db") as db:
        names = {r[0] for r in db.execute("select name from flow_run")}
    assert {"dep", "bad"} <= names, names
