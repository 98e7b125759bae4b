"""Scheduled reproduction: a real Prefect server on loopback, `rlgpt serve` registers the
deployment, a triggered run replays the recorded run and records the comparison."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

from mlflow.tracking import MlflowClient

from tests.conftest import BIN, rlgpt_exe


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(cmd: list[str], cwd: Path, env: dict[str, str], log: Path) -> subprocess.Popen:
    return subprocess.Popen(cmd, cwd=cwd, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT,
                            start_new_session=True)  # fmt: skip


def _wait(check, timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if check():
            return
        time.sleep(1)
    raise AssertionError(f"timed out waiting for {what}")


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as r:  # noqa: S310 - loopback only
            return r.status == 200
    except OSError:
        return False


def test_serve_registers_a_deployment_and_a_triggered_run_records_the_comparison(
    tmp_path, tiny_params, cli_env
):
    orig = subprocess.run([rlgpt_exe(), "run", "--params", str(tiny_params), "--run-id", "orig",
                           "--quiet"], cwd=tmp_path, env=cli_env, capture_output=True, text=True,
                          timeout=600)  # fmt: skip
    assert orig.returncode == 0, orig.stderr[-2000:]
    port = _free_port()
    api = f"http://127.0.0.1:{port}/api"
    env = {**cli_env, "PREFECT_API_URL": api, "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
    procs = []
    try:
        server = [
            str(BIN / "prefect"),
            "server",
            "start",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ]
        procs.append(_start(server, tmp_path, env, tmp_path / "server.log"))
        _wait(lambda: _healthy(f"{api}/health"), 120, "the Prefect server")
        procs.append(_start([rlgpt_exe(), "serve", "--from", "orig", "--cron", "0 3 * * *",
                             "--runs-dir", str(tmp_path / "runs")], tmp_path, env,
                            tmp_path / "serve.log"))  # fmt: skip

        def triggered() -> bool:
            run = subprocess.run([str(BIN / "prefect"), "deployment", "run",
                                  "rlgpt-reproduce/reproduce-orig"], cwd=tmp_path, env=env,
                                 capture_output=True, text=True)  # fmt: skip
            return run.returncode == 0

        _wait(triggered, 120, "the deployment to be registered")
        records = tmp_path / "runs" / "orig" / "reproductions"
        _wait(lambda: any(records.glob("*.json")), 300, "the reproduction record")
    finally:
        for p in procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    (record,) = records.glob("*.json")
    comparison = json.loads(record.read_text())
    assert comparison["original"] == "orig" and comparison["passed"] is True
    assert comparison["max_abs_delta"] == 0.0 and len(comparison["deltas"]) == 2
    repro = tmp_path / "runs" / comparison["reproduction"]
    assert json.loads((repro / "summary.json").read_text())["llm"].startswith("replay")

    client = MlflowClient(tracking_uri=f"sqlite:///{tmp_path}/mlflow.db")
    exp = client.get_experiment_by_name("rlgpt")
    tagged = client.search_runs([exp.experiment_id],
                                filter_string="tags.`rlgpt.reproduction_of` = 'orig'")  # fmt: skip
    assert len(tagged) == 1 and tagged[0].data.tags["rlgpt.reproduction_passed"] == "true"


def test_serve_without_a_server_is_a_user_error(tmp_path, tiny_params, cli_env):
    (tmp_path / "runs" / "x").mkdir(parents=True)
    (tmp_path / "runs" / "x" / "summary.json").write_text("{}")
    (tmp_path / "runs" / "x" / "manifest.json").write_text("{}")
    env = {k: v for k, v in cli_env.items() if k != "PREFECT_API_URL"}
    proc = subprocess.run([rlgpt_exe(), "serve", "--from", "x", "--cron", "0 3 * * *"],
                          cwd=tmp_path, env=env, capture_output=True, text=True)  # fmt: skip
    assert proc.returncode == 2 and "prefect server start" in proc.stderr
    missing = subprocess.run([rlgpt_exe(), "reproduce", "nope"], cwd=tmp_path, env=env,
                             capture_output=True, text=True)  # fmt: skip
    assert missing.returncode == 2 and "run 'nope' under runs/ does not exist" in missing.stderr
