"""The benchmark scripts run and end with one JSON line holding their figures (tiny sizes)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import REPO


def _last_json(args: list[str]) -> dict:
    proc = subprocess.run(
        [sys.executable, *args], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_env_throughput_reports_both_rates_and_their_ratio():
    out = _last_json(["benchmarks/env_throughput.py", "--steps", "600", "--stock-steps", "200"])
    assert out["stock_steps_per_s"] > 0 and out["fast_steps_per_s"] > 0
    assert abs(out["ratio"] - out["fast_steps_per_s"] / out["stock_steps_per_s"]) < 0.05


@pytest.mark.slow  # 30 s: two trainings, the baseline's on stock crafter (make test-slow)
def test_ppo_throughput_reports_rates_ratio_and_memory():
    out = _last_json(
        ["benchmarks/ppo_throughput.py", "--samples", "600", "--baseline-samples", "256"]
    )
    assert set(out) == {"baseline_samples_per_s", "rlgpt_samples_per_s", "ratio", "peak_rss_mib"}
    assert out["peak_rss_mib"] > 50 and out["rlgpt_samples_per_s"] > 0


@pytest.mark.slow  # a minute of PPO in four processes; the default suite stays near 10 minutes
def test_sandbox_overhead_reports_latency_and_rates():
    out = _last_json(["benchmarks/sandbox_overhead.py", "--samples", "600", "--rounds", "1"])
    assert out["round_trip_us_bwrap"] > 0 and out["validation_s_per_action"] > 0
    for key in ("in_process", "bwrap", "degraded"):
        assert out[f"ppo_samples_per_s_{key}"] > 0


def test_validation_benchmark_reports_time_per_action_and_the_baseline():
    out = _last_json(["benchmarks/validation.py", "--only", "place_table", "make_wood_pickaxe"])
    assert out["actions"] == 3  # make_* comes in both variants
    assert out["mean_s_per_action"] > 0 and out["baseline_mean_s_per_action"] > 0
    assert out["mean_scenarios"] >= 4  # 3 met + at least one unmet each
    assert abs(out["ratio"] - out["mean_s_per_action"] / out["baseline_mean_s_per_action"]) < 0.05


@pytest.mark.slow  # 25 s: a PPO training per method (make test-slow)
def test_tech_tree_measures_the_oracle_the_skills_and_pure_ppo_on_the_same_seeds(tmp_path):
    out = _last_json([
        "benchmarks/tech_tree.py", "--tasks", "make_stone_pickaxe", "--seeds", "1",
        "--episodes", "3", "--scale", "0.01", "--agents", "oracle,script,ppo",
        "--out", str(tmp_path),
    ])  # fmt: skip
    row = out["tasks"]["make_stone_pickaxe"]
    assert row["oracle"]["success"] == 1.0  # the whole-map planner always gets there
    assert row["script"]["success"] >= 2 / 3  # the reference skills in plan order
    assert row["ppo"]["samples"] >= 1980 and 0.0 <= row["ppo"]["success"] <= 1.0
    assert (out["episodes"], out["seeds"]) == (3, 1)
