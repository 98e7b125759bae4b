"""benchmarks/paper.py in miniature: every method really runs (PPO, the coded actions, the
loop with and without the critic), the files and the JSON line come out, the runs land in
MLflow under one parent, and a rerun resumes from the job records."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from tests.conftest import REPO
from tests.support.llm_server import ChatServer, plan_responder

# The miniature sweep runs six methods end to end (about 2.5 min here): `make test-slow`.
# tests/unit/test_results.py checks the claims and the report from job records in the default run.
pytestmark = pytest.mark.slow

PNG = b"\x89PNG\r\n\x1a\n"


def _paper(
    tmp_path: Path, cli_env: dict[str, str], *extra: str
) -> subprocess.CompletedProcess[str]:
    cmd = [
        sys.executable, "benchmarks/paper.py", "--quick", "--tasks", "place_table", "--seeds", "1",
        "--episodes", "3", "--budget-scale", "0.25", "--out", str(tmp_path / "results"),
        "--work", str(tmp_path / "work"), "--mlflow-uri", f"sqlite:///{tmp_path}/mlflow.db",
        "--methods", "pure_rl,pure_code,rlgpt,no_critic,reward_only,one_agent,two_agents,masks_off",
        *extra,
    ]  # fmt: skip
    return subprocess.run(cmd, cwd=REPO, env=cli_env, capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def miniature(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, str]:
    import os

    tmp = tmp_path_factory.mktemp("paper")
    env = {**os.environ, "PREFECT_HOME": str(tmp / ".prefect"),
           "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}"}  # fmt: skip
    proc = _paper(tmp, env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    headline = json.loads(proc.stdout.strip().splitlines()[-1])
    return tmp, headline, proc.stdout


def test_every_method_runs_and_the_files_and_json_line_come_out(miniature):
    tmp, headline, _ = miniature
    out = tmp / "results"
    for name in ("results.md", "runs.csv", "curves.csv", "summary.csv"):
        assert (out / name).stat().st_size > 0, name
    for name in ("success_vs_samples", "success_per_iteration", "dead_loop_per_iteration"):
        assert (out / f"{name}.png").read_bytes().startswith(PNG)
    assert headline["label"] == "quick-custom" and headline["failed_jobs"] == 0
    rates = headline["success"]["place_table"]
    assert set(rates) == {"pure_rl", "pure_code", "rlgpt", "no_critic", "reward_only",
                          "one_agent", "two_agents", "masks_off"}  # fmt: skip
    assert rates["pure_code"] >= 2 / 3  # the reference skills place a table
    # one agent against two, both played by the scripted model (the offline author is none)
    claims = ("pure_rl", "critic", "reward", "agents")
    assert all(isinstance(headline["claims"][k], bool) for k in claims)
    # the loop stops once an iteration reaches the threshold: the iterations claim has a
    # reading where it took two, and says it was not run where it stopped at its first
    record = json.loads((tmp / "work" / "jobs" / "rlgpt-place_table-s0.json").read_text())
    iterations = len(record["points"])
    assert 1 <= iterations <= 2
    stopped = iterations == 1 and record["points"][0]["verdict"] == "success"
    assert iterations == 2 or stopped
    assert isinstance(headline["claims"]["iterations"], bool) == (iterations == 2)
    rows = list(csv.DictReader((out / "runs.csv").open()))
    assert {r["method"] for r in rows} == set(rates) and all(not r["error"] for r in rows)
    # PPO alone spends the whole budget; a loop spends its share per iteration it ran (3000
    # over its two: it stops at the first that reaches the threshold)
    assert all(int(r["samples"]) >= 3000 for r in rows if r["method"] in ("pure_rl", "reward_only"))
    loops = [r for r in rows if r["method"] not in ("pure_rl", "reward_only", "pure_code")]
    assert all(int(r["samples"]) >= 1500 for r in loops)
    curves = list(csv.DictReader((out / "curves.csv").open()))
    loop = [c for c in curves if c["method"] == "rlgpt"]
    assert [int(c["point"]) for c in loop] == list(range(1, iterations + 1))  # one a round
    md = (out / "results.md").read_text()
    assert "QUICK-CUSTOM RUN" in md and "skipped" not in md
    one = tmp / "work" / "one_agent-place_table-s0" / "runs" / "one_agent-place_table-s0"
    assert json.loads((one / "params.yaml").read_text())["llm"]["backend"] == "openai"
    assert f"| place_table | rlgpt | {iterations} |" in md and "![success_vs_samples]" in md
    if iterations == 1:
        assert "not run (the loop needs two iterations or more)" in md
    assert "## What RL adds over the skills alone" in md and "## What masks contribute" in md
    assert str(REPO) not in md, "no machine path in a committed file"
    off = tmp / "work" / "masks_off-place_table-s0" / "runs" / "masks_off-place_table-s0"
    assert json.loads((off / "params.yaml").read_text())["train"]["action_masking"] == "off"


def test_the_critic_ablation_withholds_every_critique(miniature):
    tmp, _, _ = miniature
    run = tmp / "work" / "no_critic-place_table-s0" / "runs" / "no_critic-place_table-s0"
    ran = sorted(int(p.name[5:]) for p in run.glob("iter_*"))
    assert ran and ran == list(range(1, len(ran) + 1))  # every iteration it ran (one or two)
    for k in ran:
        critique = json.loads((run / f"iter_{k}" / "critique.json").read_text())
        assert critique["reasoning"].startswith("critic withheld")
        assert not critique["fast_feedback"] and not critique["bottlenecks"]
        assert not list((run / f"iter_{k}" / "llm").glob("*critic*"))  # the critic was not asked
    full = tmp / "work" / "rlgpt-place_table-s0" / "runs" / "rlgpt-place_table-s0"
    assert list((full / "iter_1" / "llm").glob("*critic*"))


def test_every_run_lands_in_mlflow_under_one_parent(miniature):
    tmp, _, _ = miniature
    c = MlflowClient(f"sqlite:///{tmp}/mlflow.db")
    exp = c.get_experiment_by_name("rlgpt-paper")
    runs = c.search_runs([exp.experiment_id])
    parents = [r for r in runs if "mlflow.parentRunId" not in r.data.tags]
    assert [p.info.run_name for p in parents] == ["paper-quick-custom"]
    parent = parents[0].info.run_id
    children = {r.info.run_name for r in runs if r.data.tags.get("mlflow.parentRunId") == parent}
    assert children == {f"{m}-place_table-s0" for m in
                        ("pure_rl", "pure_code", "rlgpt", "no_critic", "reward_only",
                         "one_agent", "two_agents", "masks_off")}  # fmt: skip
    assert parents[0].info.status == "FINISHED"
    artifacts = {a.path for a in c.list_artifacts(parent)}
    assert "results.md" in artifacts and "success_vs_samples.png" in artifacts


def test_a_rerun_resumes_from_the_job_records(miniature, cli_env):
    tmp, headline, _ = miniature
    proc = _paper(tmp, cli_env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.count("(recorded)") == 8  # no job ran again
    assert json.loads(proc.stdout.strip().splitlines()[-1])["success"] == headline["success"]


def test_a_bad_task_is_a_one_line_error(tmp_path, cli_env):
    proc = _paper(tmp_path, cli_env, "--tasks", "place_tabel")
    assert proc.returncode != 0
    assert proc.stderr.strip() == (
        "paper: unknown task(s) ['place_tabel']; choose from ['place_table', "
        "'make_wood_pickaxe', 'make_stone_pickaxe', 'place_furnace', 'make_iron_pickaxe']"
    )


@pytest.mark.slow  # a minute; the one-agent loop itself is in test_openai_run.py
def test_with_a_real_endpoint_the_one_agent_ablation_runs(tmp_path, cli_env):
    """--llm openai: the loop and its one-agent variant talk to a model over HTTP (a scripted
    one on 127.0.0.1) and the agents claim gets a reading instead of a skip."""
    plan = [("collect_wood", 1), ("place_table", 1)]
    env = {**cli_env, "OPENAI_API_KEY": "sk-test-paper"}
    with ChatServer(plan_responder("place_table", plan)) as srv:
        proc = _paper(tmp_path, env, "--methods", "rlgpt,one_agent", "--llm", "openai",
                      "--model", "scripted-model", "--base-url", srv.base_url)  # fmt: skip
        kinds = [next(m["content"] for m in r["messages"] if m["role"] == "user")[:25]
                 for r in srv.requests]  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    headline = json.loads(proc.stdout.strip().splitlines()[-1])
    assert set(headline["success"]["place_table"]) == {"rlgpt", "one_agent"}
    assert isinstance(headline["claims"]["agents"], bool)
    assert any("one agent" in k for k in kinds) and any("slow agent" in k for k in kinds)
    md = (tmp_path / "results" / "results.md").read_text()
    assert "| place_table | one_agent | 2 |" in md and "Author: openai scripted-model" in md


@pytest.mark.slow  # two tiny loops
def test_with_a_scripted_model_both_agent_modes_run_against_it_and_say_so(tmp_path, cli_env):
    """--llm scripted: each loop job serves its own scripted model on 127.0.0.1 and talks to it
    through the openai client; the record counts what the model drew and got wrong, and the
    tables name the model."""
    proc = _paper(tmp_path, cli_env, "--methods", "rlgpt,one_agent", "--llm", "scripted",
                  "--mistake-rate", "0.5")  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    headline = json.loads(proc.stdout.strip().splitlines()[-1])
    assert headline["author"] == "scripted model (mistake rate 0.5)"
    assert set(headline["success"]["place_table"]) == {"rlgpt", "one_agent"}
    for method in ("rlgpt", "one_agent"):
        rec = json.loads((tmp_path / "work" / "jobs" / f"{method}-place_table-s0.json").read_text())
        assert rec["protocol"]["llm"]["backend"] == "scripted" and rec["mistakes"]["drawn"]
        run = tmp_path / "work" / f"{method}-place_table-s0"
        params = json.loads((run / "runs" / run.name / "params.yaml").read_text())
        assert params["llm"]["backend"] == "openai" and params["llm"]["seed"] == 0
        assert params["llm"]["base_url"].startswith("http://127.0.0.1:")
        assert (run / "scripted_mistakes.json").exists()
    md = (tmp_path / "results" / "results.md").read_text()
    assert "Author: scripted model (mistake rate 0.5)" in md
    assert "| two agents vs one | 0.34 one agent vs 0.52 two | scripted model" in md
