"""One real, tiny RL-GPT run through the CLI: Prefect flow, sandbox, PPO, MLflow, artifacts."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from mlflow.tracking import MlflowClient

from tests.conftest import rlgpt_exe


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
    # the critique changed the plan: the learned sub-action became coded
    assert its[0]["learned"] == ["collect_wood"] and "collect_wood" in its[1]["coded"]
    for it in its:
        assert it["samples"] >= 1200
        assert 0.0 <= it["success_rate"] <= 1.0 and 0.0 <= it["dead_loop_ratio"] <= 1.0
    assert summary["final_success_rate"] == its[-1]["success_rate"]

    it1 = root / "iter_1"
    for name in ("decomposition.json", "validation.json", "rl_config.json", "eval.json",
                 "critique.json", "episodes.parquet", "train/policy.zip"):  # fmt: skip
        assert (it1 / name).is_file(), name
    assert (it1 / "actions" / "place_table.py").read_text().startswith("def place_table(view)")
    exchanges = sorted((it1 / "llm").glob("*.json"))
    assert exchanges and all(
        json.loads(p.read_text())["request"]["template_hash"] for p in exchanges
    )
    manifest = json.loads((root / "manifest.json").read_text())
    assert "iter_2/train/policy.zip" in manifest["files"]

    client = MlflowClient(tracking_uri=f"sqlite:///{tmp_path}/mlflow.db")
    exp = client.get_experiment_by_name("rlgpt")
    runs = client.search_runs([exp.experiment_id])
    parents = [r for r in runs if "mlflow.parentRunId" not in r.data.tags]
    children = [r for r in runs if r.data.tags.get("mlflow.parentRunId") == parents[0].info.run_id]
    assert len(parents) == 1 and parents[0].info.status == "FINISHED"
    assert parents[0].data.params["llm.backend"] == "offline"
    assert any(k.startswith("prompt.") for k in parents[0].data.params)
    assert len(children) == 2
    for child in children:
        m = child.data.metrics
        assert {"success_rate", "samples", "dead_loop_ratio", "tokens"} <= set(m)
        assert m["samples"] >= 1200 and m["tokens"] > 0
