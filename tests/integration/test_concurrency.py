"""Several `rlgpt run` processes in one project at once: all start and finish, each on its own
Prefect server that dies with it, and nothing is left behind (a SIGKILLed run's server:
tests/integration/test_faults.py, slow suite)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import time
from pathlib import Path

from mlflow.tracking import MlflowClient

from tests.conftest import rlgpt_exe


def _ours(tmp: Path) -> list[str]:
    """Processes whose environment names this project's Prefect home (runs and servers)."""
    mark = f"PREFECT_HOME={tmp / '.prefect'}".encode()
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit() and int(proc.name) != os.getpid():
            try:
                if mark in (proc / "environ").read_bytes().split(b"\0"):
                    found.append((proc / "cmdline").read_bytes().replace(b"\0", b" ").decode())
            except OSError:  # gone, or not ours to read
                continue
    return found


def _gone(tmp: Path, within_s: float = 15.0) -> list[str]:
    deadline = time.monotonic() + within_s
    while (left := _ours(tmp)) and time.monotonic() < deadline:
        time.sleep(0.5)
    return left


def test_four_runs_at_once_all_finish_and_leave_nothing_behind(tmp_path, tiny_params, cli_env):
    cmd = [rlgpt_exe(), "run", "--params", str(tiny_params), "--quiet", "--iterations", "1"]
    procs = [
        subprocess.Popen([*cmd, "--run-id", f"c{i}", "--seed", str(i)], cwd=tmp_path, env=cli_env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for i in range(4)
    ]  # fmt: skip
    outs = [p.communicate(timeout=900) for p in procs]
    for p, (_, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0, err[-2000:]
    for i in range(4):
        summary = json.loads((tmp_path / "runs" / f"c{i}" / "summary.json").read_text())
        assert summary["status"] == "complete" and len(summary["iterations"]) == 1
    with sqlite3.connect(tmp_path / ".prefect" / "prefect.db") as db:
        runs = dict(db.execute("select name, state_type from flow_run").fetchall())
    assert runs == {f"c{i}": "COMPLETED" for i in range(4)}
    c = MlflowClient(f"sqlite:///{tmp_path}/mlflow.db")
    parents = [r for r in c.search_runs(["1"]) if "rlgpt.iteration" not in r.data.tags]
    assert sorted(r.info.run_name for r in parents) == [f"c{i}" for i in range(4)]
    assert all(r.info.status == "FINISHED" for r in parents)
    assert _gone(tmp_path) == [], "no server or worker outlives its run"
