"""Crash injection: SIGKILL the run inside each stage (and mid-training), resume it, and check
that only the interrupted stage ran twice, nothing recorded before the crash was lost, and the
result equals an uninterrupted run with the same seeds."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import subprocess
from collections import Counter
from pathlib import Path

import pytest
import yaml
from mlflow.tracking import MlflowClient

from tests.conftest import TINY, rlgpt_exe

_SLOW = pytest.mark.slow  # ~40 s each; the default run keeps mid-training
FAULTS = [
    pytest.param("decompose:2", marks=_SLOW), pytest.param("generate_code:2", marks=_SLOW),
    pytest.param("validate:2", marks=_SLOW), pytest.param("train:2", marks=_SLOW),
    pytest.param("evaluate:2", marks=_SLOW),
    pytest.param("critique:2", marks=_SLOW), "train_mid",
]  # fmt: skip
COMPARED = ["decomposition.json", "validation.json", "rl_config.json", "eval.json",
            "critique.json", "episodes.parquet"]  # fmt: skip


def _params(root: Path) -> Path:
    data = {**TINY, "tracking": {"mlflow_uri": f"sqlite:///{root}/mlflow.db"}}
    data["run"] = {**TINY["run"], "runs_dir": str(root / "runs")}
    data["train"] = {**TINY["train"], "checkpoint_every": 400}
    path = root / "params.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def _cli(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run the CLI in its own process group; output goes to files, and whatever the killed run
    left behind (Prefect's temporary server) is killed with the group afterwards."""
    out, err = cwd / "stdout.txt", cwd / "stderr.txt"
    with out.open("w") as o, err.open("w") as e:
        proc = subprocess.Popen([rlgpt_exe(), *args], cwd=cwd, env=env, stdout=o, stderr=e,
                                start_new_session=True)  # fmt: skip
        try:
            code = proc.wait(timeout=600)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
    return subprocess.CompletedProcess(args, code, out.read_text(), err.read_text())


def _artifacts(run: Path) -> dict[str, str]:
    out = {}
    for it in sorted(run.glob("iter_*")):
        for name in COMPARED:
            if (it / name).is_file():
                out[f"{it.name}/{name}"] = hashlib.sha256((it / name).read_bytes()).hexdigest()
        for code in sorted((it / "actions").glob("*.py")):
            out[f"{it.name}/actions/{code.name}"] = code.read_text()
    return out


def _starts(run: Path) -> Counter[str]:
    lines = (run / "stage_log.jsonl").read_text().splitlines()
    return Counter(f"{e['stage']}:{e['iteration']}" for e in map(json.loads, lines))


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> tuple[dict[str, str], dict, Counter[str]]:
    root = tmp_path_factory.mktemp("reference")
    proc = _cli(["run", "--params", str(_params(root)), "--run-id", "ref", "--quiet"], root,
                {**os.environ, "PREFECT_HOME": str(root / ".prefect")})  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    run = root / "runs" / "ref"
    return _artifacts(run), json.loads((run / "summary.json").read_text()), _starts(run)


@pytest.mark.parametrize("fault", FAULTS)
def test_crash_then_resume(fault, reference, tmp_path, cli_env):
    ref_artifacts, ref_summary, ref_starts = reference
    params = _params(tmp_path)
    crashed = _cli(["run", "--params", str(params), "--run-id", "r", "--quiet"], tmp_path,
                   {**cli_env, "RLGPT_FAULT": fault})  # fmt: skip
    assert crashed.returncode == -9, crashed.stderr[-2000:]
    run = tmp_path / "runs" / "r"
    before = {k: v for k, v in _artifacts(run).items() if k.startswith("iter_1/")}

    resumed = _cli(["resume", "r", "--runs-dir", str(tmp_path / "runs"), "--quiet"], tmp_path,
                   cli_env)  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr[-2000:]

    starts = _starts(run)
    interrupted = "train:1" if fault == "train_mid" else fault
    assert starts[interrupted] == 2
    assert starts - Counter({interrupted: 1}) == ref_starts, "each other stage ran once"
    after = _artifacts(run)
    assert {k: after[k] for k in before} == before, "nothing recorded before the crash is lost"
    summary = json.loads((run / "summary.json").read_text())
    assert summary["status"] == "complete" and (run / "manifest.json").is_file()
    keep = ("iteration", "coded", "learned", "verdict", "validation")
    if fault == "train_mid":  # training went on from its checkpoint: same plan, new numbers
        train = json.loads((run / "iter_1" / "train" / "train.json").read_text())
        assert train["resumed_from"] >= 400
    else:
        assert after == ref_artifacts
        keep += ("success_rate", "samples", "dead_loop_ratio")
    strip = [{k: it[k] for k in keep} for it in summary["iterations"]]
    assert strip == [{k: it[k] for k in keep} for it in ref_summary["iterations"]]

    client = MlflowClient(tracking_uri=f"sqlite:///{tmp_path}/mlflow.db")
    runs = client.search_runs([client.get_experiment_by_name("rlgpt").experiment_id])
    parents = [r for r in runs if "mlflow.parentRunId" not in r.data.tags]
    assert len(parents) == 1 and parents[0].info.status == "FINISHED"
    children = [r for r in runs if r.data.tags.get("mlflow.parentRunId")]
    iterations = [r for r in children if "rlgpt.learned" not in r.data.tags]
    assert sorted(r.data.tags["rlgpt.iteration"] for r in iterations) == ["1", "2"]
    learned = Counter(f"{r.data.tags['rlgpt.iteration']}/{r.data.tags['rlgpt.learned']}"
                      for r in children if "rlgpt.learned" in r.data.tags)  # fmt: skip
    expected = Counter(f"{it['iteration']}/{name}" for it in summary["iterations"]
                       for name in it["learned_actions"])  # fmt: skip
    assert expected and learned == expected, "each learned action logged once"
    history = client.get_metric_history(parents[0].info.run_id, "success_rate")
    assert sorted(m.step for m in history) == [1, 2], "no metric logged twice"
