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


def _ratio_agrees(ratio: float, num: float, den: float, step: float) -> bool:
    """The printed ratio is the unrounded rates' ratio: the rates are rounded to `step`, so
    the ratio of the printed rates may differ from it by as much as that rounding allows."""
    half = step / 2
    low, high = (num - half) / (den + half), (num + half) / (den - half)
    return low - 0.01 <= ratio <= high + 0.01


def test_env_throughput_reports_both_rates_and_their_ratio():
    out = _last_json(["benchmarks/env_throughput.py", "--steps", "600", "--stock-steps", "200"])
    assert out["stock_steps_per_s"] > 0 and out["fast_steps_per_s"] > 0
    assert _ratio_agrees(out["ratio"], out["fast_steps_per_s"], out["stock_steps_per_s"], 0.1)


def test_wakeups_times_each_way_of_waiting_for_the_other_process():
    out = _last_json(["benchmarks/wakeups.py", "--n", "300"])
    assert {"both_sleep", "both_sleep_one_core"} <= set(out) and "guest_halt_poll_ns" in out
    for way, figures in out.items():
        if way != "guest_halt_poll_ns":
            assert figures["wall_us"] > 0 and 0 <= figures["host_cpu_us"] <= 10 * figures["wall_us"]


def test_decision_cost_times_the_policy_and_the_mask_before_and_now():
    out = _last_json(["benchmarks/decision_cost.py", "--rounds", "1", "--scale", "0.05"])
    us = out["us_per_call"]
    assert set(us) == {"forward_checks", "forward_lean", "update_checks", "update_lean",
                       "forward_lean_policy", "update_lean_policy", "update_sparse_input",
                       "mask_planned", "mask_memo"} and all(v > 0 for v in us.values())  # fmt: skip
    assert out["mask_before_over_now"] == round(us["mask_planned"] / us["mask_memo"], 2)
    assert out["update_over_sparse_input"] == round(
        us["update_lean"] / us["update_sparse_input"], 2
    )


@pytest.mark.slow  # 30 s: two trainings, the baseline's on stock crafter (make test-slow)
def test_ppo_throughput_reports_rates_ratio_and_memory():
    out = _last_json([
        "benchmarks/ppo_throughput.py", "--samples", "600", "--baseline-samples", "256",
        "--rounds", "1", "--together", "2",
    ])  # fmt: skip
    assert set(out) == {"baseline_samples_per_s", "rlgpt_samples_per_s", "ratio", "peak_rss_mib",
                        "rlgpt_together_samples_per_s", "together_vs_alone"}  # fmt: skip
    assert out["peak_rss_mib"] > 50 and out["rlgpt_samples_per_s"] > 0
    assert _ratio_agrees(out["ratio"], out["rlgpt_samples_per_s"],
                         out["baseline_samples_per_s"], 0.1)  # fmt: skip
    assert _ratio_agrees(out["together_vs_alone"], out["rlgpt_together_samples_per_s"],
                         out["rlgpt_samples_per_s"], 0.1)  # fmt: skip


@pytest.mark.slow  # 80 s of PPO in fresh processes; the default suite stays near 20 minutes
def test_sandbox_overhead_reports_latency_and_rates():
    out = _last_json(["benchmarks/sandbox_overhead.py", "--samples", "600", "--rounds", "2"])
    assert out["round_trip_us_bwrap"] > 0 and out["validation_s_per_action"] > 0
    for key in ("in_process", "bwrap", "degraded"):
        assert out[f"ppo_samples_per_s_{key}"] > 0 and out[f"cpu_us_per_sample_{key}"] > 0
    for key in ("worker_cost_fraction", "together_cost_fraction"):  # the median of the rounds
        rounds = out[f"{key}_rounds"]
        assert len(rounds) == 2 and abs(out[key] - sum(rounds) / 2) < 1e-3
    cpu = out["cpu_us_per_sample_bwrap"] / out["cpu_us_per_sample_in_process"] - 1
    assert abs(out["cpu_cost_fraction"] - cpu) < 1e-3
    calls = out["calls_per_sample"]  # the same dynamics in every kind: the same calls
    assert calls["bwrap"] > 0 and calls["bwrap"] == calls["in_process"] == calls["degraded"]
    more = out["cpu_us_per_sample_bwrap"] - out["cpu_us_per_sample_in_process"]
    assert abs(out["boundary_cpu_us_per_call"] - more / calls["bwrap"]) < 0.5  # (figures rounded)
    floor = out["bare_round_trip_cpu_us"]
    assert floor["host_us"] > 0 and floor["worker_us"] > 0 and floor["wall_us"] > 0


def test_boundary_replay_reports_each_side_of_a_round_trip_and_their_difference():
    out = _last_json(["benchmarks/boundary_replay.py", "--samples", "300", "--rounds", "1",
                      "--gap", "0"])  # fmt: skip
    assert out["trips"] > 0 and out["rounds"] == 1
    assert out["host_us"] > 0 and out["worker_us"] > 0 and out["in_process_us"] > 0
    more = out["host_us"] + out["worker_us"] - out["in_process_us"]
    assert abs(out["boundary_us"] - more) < 0.2  # one round: its own figures (rounded)


def test_validation_benchmark_reports_time_per_action_on_both_worlds_and_the_baseline():
    pytest.importorskip("craftax")
    out = _last_json(["benchmarks/validation.py", "--only", "place_table", "make_wood_pickaxe"])
    for world in ("crafter", "craftax"):
        fig = out["worlds"][world]
        assert fig["actions"] == 3 and fig["passed"] == 3  # make_* comes in both variants
        assert fig["mean_s_per_action"] > 0 and fig["baseline_mean_s_per_action"] > 0
        assert fig["mean_scenarios"] >= 4  # 3 met + at least one unmet each
        assert _ratio_agrees(
            fig["ratio"], fig["mean_s_per_action"], fig["baseline_mean_s_per_action"], 0.001
        )
    crafter, craftax = (out["worlds"][w]["mean_s_per_action"] for w in ("crafter", "craftax"))
    assert _ratio_agrees(out["craftax_over_crafter"], craftax, crafter, 0.001)


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


def test_world_score_is_the_unlocked_reward_as_a_share_of_the_maximum():
    sys.path.insert(0, str(REPO / "benchmarks"))
    from tech_tree import score

    from rlgpt.worlds import get_world

    crafter = get_world("crafter").achievement_rewards()
    assert len(crafter) == 22 and set(crafter.values()) == {1}
    # two episodes: 2 of 22 achievements, then none
    assert score(["collect_wood,place_table", ""], crafter) == round(100 * 1 / 22, 2)
    craftax = get_world("craftax").achievement_rewards()
    assert len(craftax) == 67 and craftax["collect_wood"] == 1 and craftax["enter_dungeon"] > 1
    everything = ",".join(craftax)
    assert score([everything], craftax) == 100.0 and score([], craftax) == 0.0


def test_tech_tree_scores_what_the_evaluation_episodes_unlocked(tmp_path):
    out = _last_json([
        "benchmarks/tech_tree.py", "--agents", "script", "--tasks", "make_wood_pickaxe",
        "--seeds", "1", "--episodes", "2", "--out", str(tmp_path),
    ])  # fmt: skip
    row = out["tasks"]["make_wood_pickaxe"]["script"]
    got = row["achievements"]
    assert row["success"] == 1.0
    assert {"collect_wood", "place_table", "make_wood_pickaxe"} <= set(got)
    # two episodes: the mean unlocked share lies between the union's half and the whole union
    assert 100 * len(got) / 22 + 0.01 >= row["score"] >= 100 * len(got) / 22 / 2 - 0.01
    assert out["distinct_achievements"] == {"script": len(got)}


@pytest.mark.slow  # a minute: JAX and full Craftax's coded actions (make test-slow)
def test_tech_tree_scores_the_skills_on_full_craftax(tmp_path):
    pytest.importorskip("craftax")
    out = _last_json([
        "benchmarks/tech_tree.py", "--world", "craftax", "--agents", "oracle,script", "--tasks",
        "make_iron_pickaxe", "--seeds", "1", "--episodes", "1", "--out", str(tmp_path),
    ])  # fmt: skip
    assert "oracle" not in out["tasks"]["make_iron_pickaxe"]  # Craftax has none: no row of zeros
    row = out["tasks"]["make_iron_pickaxe"]["script"]
    from rlgpt.worlds import get_world

    weights = get_world("craftax").achievement_rewards()
    got = row["achievements"]
    assert row["success"] == 1.0 and "make_iron_pickaxe" in got  # the skills reach it
    # the recipe's chain is unlocked on the way, and the score weighs what was unlocked
    assert {"collect_wood", "place_table", "collect_iron", "place_furnace"} <= set(got)
    assert row["score"] == round(100 * sum(weights[a] for a in got) / sum(weights.values()), 2)
    assert out["distinct_achievements"] == {"script": len(got)}


def test_a_benchmark_job_s_child_dies_with_the_job(tmp_path):
    """A job killed outright (SIGKILL: no handler runs) takes the `rlgpt run` it started with
    it, so no orphan goes on holding the run's lock (benchmarks/paper_methods.py)."""
    import os
    import signal
    import time

    pidfile = tmp_path / "child.pid"
    child_code = f"import os, time; open({str(pidfile)!r}, 'w').write(str(os.getpid())); "
    child_code += "time.sleep(120)"
    job = tmp_path / "job.py"
    job.write_text(
        "import subprocess, sys\n"
        f"sys.path.insert(0, {str(REPO / 'benchmarks')!r})\n"
        "from paper_methods import with_parent\n"
        f"subprocess.run(with_parent([sys.executable, '-c', {child_code!r}]),"
        " start_new_session=True)\n"
    )
    parent = subprocess.Popen([sys.executable, str(job)])
    deadline = time.monotonic() + 60
    while not (pidfile.exists() and pidfile.read_text()) and time.monotonic() < deadline:
        time.sleep(0.1)
    child = int(pidfile.read_text())
    os.kill(child, 0)  # alive while its job runs
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    os.kill(child, signal.SIGKILL)
    raise AssertionError("the job's child outlived it")


@pytest.mark.slow  # 35 s: two short rlgpt runs and the skills alone (make test-slow)
def test_weak_model_runs_both_authors_and_the_skills_on_the_same_task_and_reads_records(tmp_path):
    args = ["benchmarks/weak_model.py", "--tasks", "place_table", "--seeds", "1", "--episodes",
            "3", "--scale", "0.05", "--mistake-rate", "0", "--out", str(tmp_path)]  # fmt: skip
    out = _last_json(args)["place_table"]
    assert set(out) >= {"skills", "offline", "scripted", "scripted_over_offline"}
    assert out["skills"] >= 2 / 3  # the reference skills in plan order
    if out["offline"]:  # one seed: the paired figures are the rates' (rounded to 0.001)
        assert out["scripted_over_offline"] == pytest.approx(out["scripted"] / out["offline"],
                                                             abs=0.005)  # fmt: skip
    assert out["offline_minus_skills"] == pytest.approx(out["offline"] - out["skills"], abs=0.002)
    records = sorted(p.name for p in (tmp_path / "jobs").glob("*.json"))
    assert records == [f"{a}-place_table-s0.json" for a in ("offline", "scripted", "skills")]
    proc = subprocess.run([sys.executable, *args, "--agents", "skills"], cwd=REPO,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 0 and "(recorded)" in proc.stdout  # a rerun runs nothing again
    assert json.loads(proc.stdout.strip().splitlines()[-1])["place_table"] == out


def test_weak_model_says_what_to_fix_for_an_unknown_task_or_agent():
    for bad, said in ((["--tasks", "make_rocket"], "unknown task(s) ['make_rocket']"),
                      (["--agents", "gpt5"], "--agents takes a subset of")):  # fmt: skip
        proc = subprocess.run([sys.executable, "benchmarks/weak_model.py", *bad], cwd=REPO,
                              capture_output=True, text=True, timeout=120)  # fmt: skip
        assert proc.returncode != 0 and said in proc.stderr
        assert "Traceback" not in proc.stderr


@pytest.mark.slow  # 16 s: one tiny learned training (make test-slow)
def test_learned_space_trains_one_learned_action_and_reports_its_reach(tmp_path):
    """A tiny run: reach before and after from held-out starts, samples, and why it stopped
    where it stopped early; a step that is no step of the plan is a one-line error."""
    args = ["--task", "make_wood_pickaxe", "--action", "collect_wood", "--budget", "1200",
            "--macros", "defeat_zombie"]  # fmt: skip
    out = _last_json(["benchmarks/learned_space.py", *args, "--out", str(tmp_path / "w")])
    assert out["action"] == "collect_wood" and 0 <= out["reach_before"] <= 1
    assert out["macros"] == ["defeat_zombie"]
    assert 0 <= out["reach_after"] <= 1 and 0 < out["samples"] <= 1200 + 300
    assert (tmp_path / "w" / "curve.csv").is_file()
    proc = subprocess.run([sys.executable, "benchmarks/learned_space.py", "--action", "fly"],
                          cwd=REPO, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode != 0 and "fly is no step of make_stone_pickaxe's plan" in proc.stderr
    assert "Traceback" not in proc.stderr
    proc = subprocess.run([sys.executable, "benchmarks/learned_space.py", "--macros", "fly"],
                          cwd=REPO, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode != 0 and "--macros ['fly'] are no achievements" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_survival_calls_plays_each_rule_on_the_same_episodes_beside_the_skills_alone():
    out = _last_json(["benchmarks/survival_calls.py", "--tasks", "make_wood_pickaxe",
                      "--seeds", "1", "--episodes", "2", "--rules", "none;9,-,-"])  # fmt: skip
    rules = out["make_wood_pickaxe"]
    assert rules["none"]["mean"] == 1.0  # the skills alone make it
    assert rules["9,-,-"]["mean"] == 0.0  # a call for water before every step: never
    assert len(rules["none"]["seeds"]) == 1
