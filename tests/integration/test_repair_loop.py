"""The inner repair loop against a scripted model on a real OpenAI-compatible server on
127.0.0.1: a model's buggy coded action is caught by validation, the model gets the class and
the trace, and either fixes it (the run trains with the fix) or never does (the action is kept
out of training, and the critique and the iteration table say why)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import yaml

from rlgpt.llm.offline import write_action
from tests.conftest import rlgpt_exe
from tests.support.llm_server import ChatServer, crafter_responder

KEY = "sk-test-repair-0000"
# A model's first try: it never walks to the table, so where the table is in view but out of
# reach (every validation state), the pickaxe is never made.
BUGGY = '''def make_wood_pickaxe(view):
    """Make a wooden pickaxe at the crafting table."""
    if view.inventory["wood"] < 1:
        return
    start = view.achievements["make_wood_pickaxe"]
    while view.achievements["make_wood_pickaxe"] == start:
        yield "make_wood_pickaxe"
'''


def _coded_reply(source: str) -> str:
    return json.dumps({"name": "make_wood_pickaxe", "docstring": "pickaxe", "source": source,
                       "step_budget": 80})  # fmt: skip


def _responder(fixes: bool):
    def respond(body: dict[str, Any]) -> str:
        first_user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        if "`def make_wood_pickaxe(view):`" in first_user:
            repairing = "repairing code" in first_user
            if repairing and fixes:
                return _coded_reply(write_action("make_wood_pickaxe", 80).source)
            return _coded_reply(BUGGY)
        return crafter_responder(body)

    return respond


def _run(tmp_path: Path, tiny_params: Path, cli_env: dict[str, str], fixes: bool):
    data = yaml.safe_load(tiny_params.read_text())
    data["llm"] = {"backend": "openai", "model": "scripted-7b", "backoff_s": 0.01,
                   "timeout_s": 10, "max_repairs": 2}  # fmt: skip
    params = tmp_path / "openai.yaml"
    params.write_text(yaml.safe_dump(data))
    with ChatServer(_responder(fixes)) as srv:
        env = {**cli_env, "OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": srv.base_url}
        proc = subprocess.run(
            [rlgpt_exe(), "run", "--params", str(params), "--run-id", "r", "--iterations", "1",
             "--quiet"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        requests = list(srv.requests)
    assert proc.returncode == 0, proc.stderr[-3000:]
    repairs = [r for r in requests if "repairing code" in r["messages"][-1]["content"]]
    return proc, tmp_path / "runs" / "r" / "iter_1", repairs


def test_buggy_action_is_repaired_from_its_feedback_and_the_fix_trains(
    tmp_path, tiny_params, cli_env
):
    proc, it, repairs = _run(tmp_path, tiny_params, cli_env, fixes=True)
    assert len(repairs) == 1
    prompt = repairs[0]["messages"][-1]["content"]
    assert "Validation found `no_effect`" in prompt
    assert "'make_wood_pickaxe' did not rise" in prompt
    for part in ("local map at the end", "inventory: ", "last actions:"):
        assert part in prompt
    assert "table at (" in prompt, "the trace says where the table was"
    validation = json.loads((it / "validation.json").read_text())
    assert all(a["ok"] for a in validation["actions"]), validation
    fixed = (it / "actions" / "make_wood_pickaxe.py").read_text()
    assert fixed == write_action("make_wood_pickaxe", 80).source
    cfg = json.loads((it / "rl_config.json").read_text())
    assert "make_wood_pickaxe" in cfg["macro_actions"]
    assert json.loads((it / "train" / "train.json").read_text())["samples"] >= 1200
    assert "excluded" not in proc.stdout


def test_action_never_fixed_is_excluded_with_the_reason(tmp_path, tiny_params, cli_env):
    proc, it, repairs = _run(tmp_path, tiny_params, cli_env, fixes=False)
    assert len(repairs) == 2, "llm.max_repairs rounds, then it gives up"
    validation = json.loads((it / "validation.json").read_text())
    verdict = {a["name"]: a for a in validation["actions"]}["make_wood_pickaxe"]
    assert (verdict["ok"], verdict["error_kind"]) == (False, "no_effect")
    cfg = json.loads((it / "rl_config.json").read_text())
    assert "make_wood_pickaxe" not in cfg["macro_actions"], "it never reaches training"
    assert "place_table" in cfg["macro_actions"]
    critique = json.loads((it / "critique.json").read_text())
    assert critique["excluded"]["make_wood_pickaxe"].startswith("no_effect: ")
    assert "failed validation" in critique["fast_feedback"]["make_wood_pickaxe"]
    row = next(ln for ln in proc.stdout.splitlines() if ln.strip().startswith("1 "))
    assert "excluded: make_wood_pickaxe (no_effect)" in row and "1 excl" in row
    summary = json.loads((it.parent / "summary.json").read_text())
    assert summary["iterations"][0]["excluded"] == {"make_wood_pickaxe": "no_effect"}
    assert "make_wood_pickaxe" in summary["iterations"][0]["learned"]
