"""`dvc repro run` runs the pipeline stage for real, and `dvc status` is clean afterwards."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import yaml

from tests.conftest import BIN, REPO, TINY


def _copy_project(dst: Path) -> None:
    for name in ("dvc.yaml", ".dvcignore"):
        shutil.copy(REPO / name, dst / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("rlgpt", "flows", "tasks", "prompts"):
        shutil.copytree(REPO / name, dst / name, ignore=ignore)


def test_dvc_repro_then_status_clean(tmp_path: Path, cli_env):
    proj = tmp_path / "proj"
    proj.mkdir()
    _copy_project(proj)
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    for section, values in TINY.items():
        params[section].update(values)
    params["run"]["runs_dir"] = "runs"
    (proj / "params.yaml").write_text(yaml.safe_dump(params))
    env = {**cli_env, "DVC_NO_ANALYTICS": "1", "PREFECT_HOME": str(proj / ".prefect")}

    def dvc(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(BIN / "dvc"), *args], cwd=proj, env=env, capture_output=True, text=True,
            timeout=600,
        )  # fmt: skip

    assert dvc("init", "--no-scm").returncode == 0
    repro = dvc("repro", "run")
    assert repro.returncode == 0, repro.stdout[-2000:] + repro.stderr[-2000:]
    summary = json.loads((proj / "runs" / "dvc" / "summary.json").read_text())
    assert summary["run_id"] == "dvc" and len(summary["iterations"]) == 2
    metrics = json.loads((proj / "metrics" / "summary.json").read_text())
    assert metrics["final_success_rate"] == summary["final_success_rate"]
    lock = yaml.safe_load((proj / "dvc.lock").read_text())
    outs = {o["path"]: o for o in lock["stages"]["run"]["outs"]}
    assert outs["runs/dvc"]["md5"].endswith(".dir") and "metrics/summary.json" in outs
    assert "train" in lock["stages"]["run"]["params"]["params.yaml"]

    # the run's plots: per iteration, and the learning curve
    plots = dvc("plots", "show", "--json", "per_iteration", "learning_curve")
    assert plots.returncode == 0, plots.stderr
    rows = (proj / "metrics" / "iterations.csv").read_text().splitlines()
    assert rows[0] == "iteration,samples,success_rate,dead_loop_ratio" and len(rows) == 3
    curve = (proj / "metrics" / "curve.csv").read_text().splitlines()
    assert curve[0] == "samples,success,return"
    samples = [int(r.split(",")[0]) for r in curve[1:]]
    total = sum(i["samples"] for i in summary["iterations"])  # learned actions' included
    assert samples == sorted(samples) and all(0 < s <= total for s in samples)
    shown = json.loads(plots.stdout)
    assert not shown.get("errors"), shown.get("errors")
    assert {"per_iteration", "learning_curve"} <= set(shown["data"]), list(shown["data"])

    status = dvc("status", "run")
    assert status.returncode == 0
    assert "up to date" in status.stdout, status.stdout
    # code and checkpoints go to the local remote and come back from it
    assert dvc("remote", "add", "-d", "local", str(tmp_path / "remote")).returncode == 0
    pushed = dvc("push")
    assert pushed.returncode == 0, pushed.stderr
    assert any((tmp_path / "remote").rglob("*")), "the remote holds the outputs"
    policy = proj / "runs" / "dvc" / "iter_2" / "train" / "policy.zip"
    digest = policy.read_bytes()
    shutil.rmtree(proj / "runs" / "dvc")
    assert dvc("cache", "dir", str(tmp_path / "empty-cache")).returncode == 0  # only the remote
    pulled = dvc("pull")
    assert pulled.returncode == 0, pulled.stderr
    assert policy.read_bytes() == digest and (proj / "runs/dvc/iter_2/actions").is_dir()
    # a params change makes the stage stale again
    params["train"]["sample_budget"] = 1300
    (proj / "params.yaml").write_text(yaml.safe_dump(params))
    assert "changed" in dvc("status", "run").stdout
