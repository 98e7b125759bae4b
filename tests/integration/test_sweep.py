"""`rlgpt sweep` on a real Dask LocalCluster through prefect-dask: a worker SIGKILLed in the
middle of a run costs only that run's attempt, which resumes on a worker and finishes; the
summary has every result; runs nest under the sweep's MLflow parent; nothing is left behind."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

from mlflow.tracking import MlflowClient

from tests.conftest import rlgpt_exe
from tests.integration.test_concurrency import _gone

TASKS = "make_wood_pickaxe,place_table"


def _sweep(tmp: Path, params: Path, env: dict[str, str], *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [rlgpt_exe(), "sweep", "--tasks", TASKS, "--seeds", "1", "--params", str(params),
         "--sweep-id", "sw", "--iterations", "1", "--runner", "dask", "--workers", "2", *extra],
        cwd=tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def _kill_worker_in_training(root: Path, run_id: str) -> int:
    """SIGKILL the Dask worker whose child runs `run_id`, once that run is training."""
    log = root / run_id / "stage_log.jsonl"
    deadline = time.monotonic() + 300
    while not (log.is_file() and '"train"' in log.read_text()):
        assert time.monotonic() < deadline, f"{run_id} never started training"
        time.sleep(0.3)
    pattern = f"--run-id {run_id} "
    out = subprocess.run(["pgrep", "-f", "--", pattern], capture_output=True, text=True)
    child = int(out.stdout.split()[0])
    worker = int(Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()[1])
    # the nanny set glibc's trim threshold for its worker; the run, a process of its own, is
    # free of it (it made training 27% slower)
    assert "MALLOC_TRIM_THRESHOLD_" in _environ(worker)
    assert "MALLOC_TRIM_THRESHOLD_" not in _environ(child)
    assert "PREFECT_API_URL" in _environ(child)
    os.kill(worker, signal.SIGKILL)
    return worker


def _environ(pid: int) -> set[str]:
    """The names in a live process's environment."""
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    return {kv.split(b"=", 1)[0].decode() for kv in raw.split(b"\0") if kv}


def test_sweep_survives_a_killed_worker_and_keeps_every_result(tmp_path, tiny_params, cli_env):
    env = {**cli_env, "RLGPT_SWEEP_HEARTBEAT_S": "3"}
    proc = _sweep(tmp_path, tiny_params, env, "--set", "train.sample_budget=8000")
    root = tmp_path / "runs" / "sw"
    killed = "sw-make_wood_pickaxe-s0"
    _kill_worker_in_training(root, killed)
    out, err = proc.communicate(timeout=900)
    assert proc.returncode == 0, err[-3000:]
    assert "[2/2]" in out and "2 run(s)" in out
    # the live line while runs are under way: what each is doing
    assert any(ln.startswith("[0/2 done, 0 waiting") and "train iter 1" in ln
               for ln in out.splitlines()), out[:2000]  # fmt: skip

    summary = json.loads((root / "summary.json").read_text())
    rows = {r["run_id"]: r for r in summary["rows"]}
    assert set(rows) == {killed, "sw-place_table-s0"}
    assert all(r["status"] == "complete" and r["samples"] >= 8000 for r in rows.values())
    assert rows[killed]["attempts"] == 2 and rows["sw-place_table-s0"]["attempts"] == 1
    assert "dask (LocalCluster, 2 worker(s)" in summary["runner"]
    assert (root / "summary.md").read_text().count("complete") == 2
    # the retry resumed: the stages before training ran once, training began twice
    stages = [json.loads(ln)["stage"] for ln in (root / killed / "stage_log.jsonl").open()]
    assert stages.count("decompose") == 1 and stages.count("train") == 2, stages

    # one Prefect server for the sweep: its flow run and every run's flow run
    with sqlite3.connect(tmp_path / ".prefect" / "prefect.db") as db:
        flows = [r[0] for r in db.execute("select name from flow_run where state_type='COMPLETED'")]
    assert {"sw", killed, "sw-place_table-s0"} <= set(flows)
    # MLflow: both runs nest under the sweep's parent run, which holds the summary
    c = MlflowClient(f"sqlite:///{tmp_path}/mlflow.db")
    runs = c.search_runs(["1"])
    (parent,) = [r for r in runs if r.data.tags.get("rlgpt.sweep_id") == "sw"]
    children = {r.info.run_name for r in runs
                if r.data.tags.get("mlflow.parentRunId") == parent.info.run_id}  # fmt: skip
    assert children == set(rows)
    assert parent.info.status == "FINISHED" and parent.data.metrics["failed_runs"] == 0
    assert _gone(tmp_path) == [], "no Dask worker, run or server outlives the sweep"

    # the same sweep again reads its results: nothing reruns
    before = (root / killed / "stage_log.jsonl").read_text()
    again = _sweep(tmp_path, tiny_params, cli_env, "--set", "train.sample_budget=8000")
    out, err = again.communicate(timeout=600)
    assert again.returncode == 0, err[-2000:]
    assert (root / killed / "stage_log.jsonl").read_text() == before
    assert json.loads((root / "summary.json").read_text())["rows"][0]["status"] == "complete"


def test_sweep_input_errors_are_one_line(tmp_path, tiny_params, cli_env):
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        cmd = [rlgpt_exe(), "sweep", "--params", str(tiny_params), *args]
        return subprocess.run(cmd, cwd=tmp_path, env=cli_env, capture_output=True, text=True)

    bad = run("--tasks", "make_wood_pickaxe,mine_gold")
    assert bad.returncode == 2 and "mine_gold" in bad.stderr and len(bad.stderr.splitlines()) == 1
    dup = run("--tasks", "place_table,place_table")
    assert dup.returncode == 2 and "distinct" in dup.stderr
    workers = run("--tasks", "place_table", "--workers", "0")
    assert workers.returncode == 2 and "--workers" in workers.stderr
    nowhere = run("--tasks", "place_table", "--address", "tcp://127.0.0.1:9")
    assert nowhere.returncode == 2 and "no Dask scheduler answers" in nowhere.stderr
    (tmp_path / "runs" / "plain").mkdir(parents=True)  # a run's directory, say
    (tmp_path / "runs" / "plain" / "summary.json").write_text("{}")
    plain = run("--tasks", "place_table", "--sweep-id", "plain")
    assert plain.returncode == 2 and "is not a sweep" in plain.stderr
    (tmp_path / "runs" / "old").mkdir(parents=True)
    (tmp_path / "runs" / "old" / "sweep.json").write_text(json.dumps({"grid": {"tasks": ["x"]}}))
    other = run("--tasks", "place_table", "--sweep-id", "old")
    assert other.returncode == 2 and "another grid" in other.stderr
