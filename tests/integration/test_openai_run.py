"""Whole runs through the CLI against a scripted OpenAI-compatible server on 127.0.0.1, then a
replay with no server at all; failures end in one line with the exchanges kept."""

from __future__ import annotations

import json
import socket
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.conftest import rlgpt_exe
from tests.support.llm_server import ChatServer, crafter_responder, error, ok, plan_responder

KEY = "sk-test-NEVER-WRITTEN-7777"


def _cli(args, cwd, env, timeout=600):
    return subprocess.run([rlgpt_exe(), *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)  # fmt: skip


def _openai_params(tiny_params: Path, **llm) -> Path:
    data = yaml.safe_load(tiny_params.read_text())
    data["llm"] = {"backend": "openai", "model": "scripted-model", "backoff_s": 0.01,
                   "timeout_s": 10, "prices": {"scripted-model": {"prompt_per_1k": 0.5,
                   "completion_per_1k": 1.5}}, **llm}  # fmt: skip
    out = tiny_params.with_name("openai.yaml")
    out.write_text(yaml.safe_dump(data))
    return out


def _code_and_plans(root: Path) -> dict[str, str]:
    files = sorted(root.glob("iter_*/actions/*.py")) + sorted(
        root.glob("iter_*/decomposition.json")
    )
    return {str(p.relative_to(root)): p.read_text() for p in files}


def test_two_iterations_over_http_then_replay_without_network(tmp_path, tiny_params, cli_env):
    params = _openai_params(tiny_params)
    env = {**cli_env, "OPENAI_API_KEY": KEY}
    with ChatServer(crafter_responder) as srv:
        env["OPENAI_BASE_URL"] = srv.base_url
        proc = _cli(["run", "--params", str(params), "--run-id", "rec", "--quiet"], tmp_path, env)
        calls = len(srv.requests)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert calls >= 8  # slow, 2-3 coded actions, rl config, critic; twice
    root = tmp_path / "runs" / "rec"
    summary = json.loads((root / "summary.json").read_text())
    its = summary["iterations"]
    assert [i["verdict"] for i in its] == ["revise_plan", "success"]
    assert its[0]["learned"] == ["collect_wood"] and "collect_wood" in its[1]["coded"]
    for it in its:
        assert it["tokens"] > 0 and set(it["tokens_by_role"]) == {"slow", "fast", "critic"}
        assert it["cost_usd"] > 0
    assert summary["tokens"] == sum(i["tokens"] for i in its)

    # the key is nowhere on disk: run directory, MLflow store, Prefect home
    for path in [*tmp_path.rglob("*")]:
        if path.is_file() and path.stat().st_size < 50_000_000:
            assert KEY.encode() not in path.read_bytes(), path

    # replay: no server, no key, same plans and code byte for byte
    env_off = {k: v for k, v in cli_env.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    rep = _cli(["run", "--params", str(params), "--llm", "replay", "--from", "rec",
                "--run-id", "rep", "--quiet"], tmp_path, env_off)  # fmt: skip
    assert rep.returncode == 0, rep.stderr[-2000:]
    assert _code_and_plans(tmp_path / "runs" / "rep") == _code_and_plans(root)
    assert json.loads((tmp_path / "runs" / "rep" / "summary.json").read_text())["llm"].startswith(
        "replay"
    )


@pytest.mark.slow  # 40 s; tests/unit/test_agents.py checks the same containment without a run
def test_one_agent_plans_and_codes_in_one_reply_and_its_slips_are_contained(
    tmp_path, tiny_params, cli_env
):  # fmt: skip
    """run.agents: one. The model marks collect_wood "code" but writes no code for it, and
    writes code for collect_diamond, which its plan does not have: collect_wood is learned, the
    stray code never reaches validation or training, and the critique gets it coded next."""
    params = _openai_params(tiny_params)
    data = yaml.safe_load(params.read_text())
    data["run"] |= {"agents": "one", "task": "make_wood_pickaxe"}
    params.write_text(yaml.safe_dump(data))
    plan = [("collect_wood", 3), ("place_table", 1), ("make_wood_pickaxe", 1)]
    env = {**cli_env, "OPENAI_API_KEY": KEY}
    with ChatServer(plan_responder("make_wood_pickaxe", plan, forget_code="collect_wood")) as srv:
        env["OPENAI_BASE_URL"] = srv.base_url
        proc = _cli(["run", "--params", str(params), "--run-id", "one", "--quiet"], tmp_path, env)
        roles = [next(m["content"] for m in r["messages"] if m["role"] == "user")[:30]
                 for r in srv.requests]  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert not any("slow agent" in r or "(coder)" in r for r in roles)  # one prompt did both
    root = tmp_path / "runs" / "one"
    its = json.loads((root / "summary.json").read_text())["iterations"]
    assert its[0]["learned"] == ["collect_wood"] and its[0]["verdict"] == "revise_plan"
    assert sorted(p.stem for p in (root / "iter_1" / "actions").glob("*.py")) == [
        "make_wood_pickaxe", "place_table"]  # fmt: skip
    assert "collect_wood" in its[1]["coded"] and its[1]["verdict"] == "success"
    assert set(its[0]["tokens_by_role"]) == {"one", "fast", "critic"}
    assert (root / "iter_1" / "llm" / "001_one_one_agent.json").is_file()


def test_budget_runs_out_mid_run(tmp_path, tiny_params, cli_env):
    params = _openai_params(tiny_params, budget_tokens=4000)
    env = {**cli_env, "OPENAI_API_KEY": KEY}
    with ChatServer(crafter_responder) as srv:
        env["OPENAI_BASE_URL"] = srv.base_url
        proc = _cli(["run", "--params", str(params), "--run-id", "b", "--quiet"], tmp_path, env)
    assert proc.returncode == 1
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "token budget spent" in lines[0], proc.stderr
    root = tmp_path / "runs" / "b"
    summary = json.loads((root / "summary.json").read_text())
    assert summary["status"] == "budget_exhausted"
    assert list(root.glob("iter_*/llm/*.json")), "exchanges so far are kept"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _one_line_failure(proc, code: int, needle: str) -> None:
    assert proc.returncode == code, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ln.startswith("rlgpt:")]
    assert len(errors) == 1 and needle in errors[0], proc.stderr
    assert all(ln.startswith(("rlgpt:", "WARNING")) for ln in lines), "only retry notes besides"
    assert "Traceback" not in proc.stderr + proc.stdout


def test_unreachable_endpoint(tmp_path, tiny_params, cli_env):
    params = _openai_params(tiny_params, max_retries=1)
    env = {**cli_env, "OPENAI_API_KEY": KEY,
           "OPENAI_BASE_URL": f"http://127.0.0.1:{_free_port()}/v1"}  # fmt: skip
    proc = _cli(["run", "--params", str(params), "--run-id", "u", "--quiet"], tmp_path, env)
    _one_line_failure(proc, 2, "cannot reach")


def test_rejected_key_and_missing_key(tmp_path, tiny_params, cli_env):
    params = _openai_params(tiny_params)
    with ChatServer() as srv:
        srv.script = [error(401, "Incorrect API key provided")]
        env = {**cli_env, "OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": srv.base_url}
        proc = _cli(["run", "--params", str(params), "--run-id", "k", "--quiet"], tmp_path, env)
        assert len(srv.requests) == 1
    _one_line_failure(proc, 2, "rejected the API key")
    assert KEY not in proc.stderr
    env.pop("OPENAI_API_KEY")
    proc = _cli(["run", "--params", str(params), "--run-id", "k2", "--quiet"], tmp_path, env)
    _one_line_failure(proc, 2, "no API key")


def test_reply_that_never_validates(tmp_path, tiny_params, cli_env):
    params = _openai_params(tiny_params)
    with ChatServer() as srv:
        srv.script = [ok("no JSON here, sorry")] * 3
        env = {**cli_env, "OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": srv.base_url}
        proc = _cli(["run", "--params", str(params), "--run-id", "n", "--quiet"], tmp_path, env)
    _one_line_failure(proc, 1, "no valid reply after 3 attempts")
    assert len(list((tmp_path / "runs" / "n").glob("iter_1/llm/*.json"))) == 3
