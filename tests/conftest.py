"""Shared fixtures: tiny params for real (small) runs."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def rlgpt_exe() -> str:
    exe = BIN / "rlgpt"
    return str(exe) if exe.exists() else (shutil.which("rlgpt") or "rlgpt")


TINY = {
    # collect_wood learned first (a tiny learned action, kept out below a reach of 1.0), then
    # coded once the critic finds it blocking: two iterations, both loops, every stage
    "run": {"iterations": 2, "max_inner": 1, "success_threshold": 0.99,
            "learn_first": ["collect_wood"]},
    "train": {"sample_budget": 1200, "n_envs": 2,
              "ppo": {"n_steps": 32, "batch_size": 32, "n_epochs": 1}},
    "eval": {"episodes": 3, "selection_episodes": 2},
    "sandbox": {"scenarios": 1, "scenario_steps": 40},
    "learn": {"sample_budget": 800, "step_budget": 60, "starts": 4, "held_out": 4,
              "rollouts": 1, "n_envs": 1, "snapshots": 4, "min_reach": 1.0,
              "stop_reach": None},  # trains its whole budget (tests/unit/test_learned.py)
    "library": {"use": False, "add": False},  # tests/integration/test_library.py turns it on
}  # fmt: skip


@pytest.fixture
def tiny_params(tmp_path: Path) -> Path:
    data = {**TINY, "tracking": {"mlflow_uri": f"sqlite:///{tmp_path}/mlflow.db"}}
    data["run"] = {**TINY["run"], "runs_dir": str(tmp_path / "runs")}
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.fixture
def cli_env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PREFECT_HOME"] = str(tmp_path / ".prefect")
    env["PATH"] = f"{BIN}:{env.get('PATH', '')}"
    return env
