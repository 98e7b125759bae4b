"""The inner repair loop against a scripted model on a real OpenAI-compatible server on
127.0.0.1: a model's buggy coded action is caught by validation, the model gets the class and
the trace, and either fixes it (the run trains with the fix) or never does (the action is kept
out of training, and the critique and the iteration table say why)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from rlgpt.agents.roles import FastAgent
from rlgpt.config import LLMParams, SandboxParams
from rlgpt.llm.openai_backend import OpenAIBackend
from rlgpt.messages import CodedAction, SubAction
from rlgpt.validation.validate import validate_action
from rlgpt.worlds.crafter.author import write_action
from rlgpt.worlds.crafter.tasks import get_task
from tests.support.llm_server import ChatServer, crafter_responder, scripted_run

KEY = "sk-test-repair-0000"
# A model's first tries. place_table: an off-by-one precondition (a table needs 2 wood), so with
# 1 wood it keeps trying to place; the model fixes it when told. make_wood_pickaxe: it never
# walks to the table, so where the table is in view but out of reach (every validation state)
# the pickaxe is never made; this model never fixes it.
BUGGY = {
    "place_table": '''def place_table(view):
    """Place a crafting table in front of the player."""
    if view.inventory["wood"] < 1:
        return
    start = view.achievements["place_table"]
    while view.achievements["place_table"] == start:
        if view.facing_name in WALKABLE:
            yield "place_table"
        else:
            yield from face_free(view)
''',
    "make_wood_pickaxe": '''def make_wood_pickaxe(view):
    """Make a wooden pickaxe at the crafting table."""
    if view.inventory["wood"] < 1:
        return
    start = view.achievements["make_wood_pickaxe"]
    while view.achievements["make_wood_pickaxe"] == start:
        yield "make_wood_pickaxe"
''',
}
FIXED_BY_THE_MODEL = {"place_table"}


def _coded_reply(name: str, source: str) -> str:
    return json.dumps({"name": name, "docstring": name, "source": source, "step_budget": 80})


def _respond(body: dict[str, Any]) -> str:
    first_user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    for name, source in BUGGY.items():
        if f"`def {name}(view):`" in first_user:
            if "repairing code" in first_user and name in FIXED_BY_THE_MODEL:
                return _coded_reply(name, write_action(name, 80).source)
            return _coded_reply(name, source)
    return crafter_responder(body)


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> tuple[subprocess.CompletedProcess[str], Path, list[str]]:
    """One iteration with llm.max_repairs 2 and 3 validation states per action."""
    tmp = tmp_path_factory.mktemp("repair")
    proc, requests = scripted_run(tmp, _respond, KEY, "r", llm={"max_repairs": 2})
    prompts = [r["messages"][-1]["content"] for r in requests]
    repairs = [p for p in prompts if "repairing code" in p]
    return proc, tmp / "runs" / "r" / "iter_1", repairs


def _repairs_of(repairs: list[str], name: str) -> list[str]:
    return [p for p in repairs if "Your coded action for this sub-action" in p
            and f'"name": "{name}"' in p]  # fmt: skip


def test_buggy_action_is_repaired_from_its_feedback_and_the_fix_trains(run):
    proc, it, repairs = run
    (prompt,) = _repairs_of(repairs, "place_table")
    assert "Validation found `unmet_precondition`" in prompt
    assert "wood (has 1, needs 2)" in prompt and "check the precondition first" in prompt
    for part in ("local map at the end", "inventory: ", "last actions: place_table"):
        assert part in prompt
    validation = json.loads((it / "validation.json").read_text())
    verdict = {a["name"]: a for a in validation["actions"]}["place_table"]
    assert verdict["ok"], verdict
    assert (it / "actions" / "place_table.py").read_text() == write_action("place_table", 80).source
    cfg = json.loads((it / "rl_config.json").read_text())
    assert "place_table" in cfg["macro_actions"], "the fixed action trains"
    assert json.loads((it / "train" / "train.json").read_text())["samples"] >= 1200


def test_action_never_fixed_is_excluded_with_the_reason(run):
    proc, it, repairs = run
    tries = _repairs_of(repairs, "make_wood_pickaxe")
    assert len(tries) == 2, "llm.max_repairs rounds, then it gives up"
    assert "Validation found `no_effect`" in tries[0] and "table at (" in tries[0]
    assert "repair attempt 2 of 2" in tries[1]
    validation = json.loads((it / "validation.json").read_text())
    verdict = {a["name"]: a for a in validation["actions"]}["make_wood_pickaxe"]
    assert (verdict["ok"], verdict["error_kind"]) == (False, "no_effect")
    cfg = json.loads((it / "rl_config.json").read_text())
    assert "make_wood_pickaxe" not in cfg["macro_actions"], "it never reaches training"
    critique = json.loads((it / "critique.json").read_text())
    assert critique["excluded"]["make_wood_pickaxe"].startswith("no_effect: ")
    assert "failed validation" in critique["fast_feedback"]["make_wood_pickaxe"]
    row = next(ln for ln in proc.stdout.splitlines() if ln.strip().startswith("1 "))
    assert "excluded: make_wood_pickaxe (no_effect)" in row and "1 excl" in row
    summary = json.loads((it.parent / "summary.json").read_text())
    assert summary["iterations"][0]["excluded"] == {"make_wood_pickaxe": "no_effect"}
    assert "make_wood_pickaxe" in summary["iterations"][0]["learned"]


# A state from later in an episode: the model's collect_wood returns once daylight drops, so at
# dusk a call does nothing (gave_up). Told so, it keeps going and fights what comes instead.
GIVES_UP_AT_DUSK = '''def collect_wood(view):
    """Chop a tree; too dangerous once it gets dark."""
    start = view.achievements["collect_wood"]
    while view.achievements["collect_wood"] == start:
        if view.daylight < 0.5:
            return  # zombies come out at night
        if view.facing_name == "tree":
            yield "do"
        elif not (yield from go_to(view, "tree")):
            yield from explore(view, 8)
'''
KEEPS_GOING = '''def collect_wood(view):
    """Chop a tree, fighting off what comes, day or night."""
    start = view.achievements["collect_wood"]
    while view.achievements["collect_wood"] == start:
        if (yield from guard(view)):
            continue
        if view.facing_name == "tree":
            yield "do"
        elif not (yield from go_to(view, "tree")):
            yield from explore(view, 8)
'''


def test_a_model_repairs_an_action_that_gives_up_at_dusk(tmp_path, monkeypatch):
    """One real exchange over HTTP: the repair prompt carries the new class, the state it
    failed in and its trace; the scripted model's fix then passes every state."""
    action = CodedAction(name="collect_wood", docstring="chop", source=GIVES_UP_AT_DUSK,
                         step_budget=80)  # fmt: skip
    first = validate_action(action, sandbox=SandboxParams())
    assert (first.ok, first.error_kind) == (False, "gave_up")

    def model(body: dict[str, Any]) -> str:  # fixes what it is told, as a model would
        told = body["messages"][-1]["content"]
        fixed = "Validation found `gave_up`" in told and "daylight 0.45" in told
        return _coded_reply("collect_wood", KEEPS_GOING if fixed else GIVES_UP_AT_DUSK)

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with ChatServer(model) as server:
        params = LLMParams(backend="openai", model="scripted-7b", base_url=server.base_url,
                           backoff_s=0.01, timeout_s=10.0)  # fmt: skip
        agent = FastAgent(OpenAIBackend(params), tmp_path / "llm", run_root=tmp_path,
                          llm_params=params)  # fmt: skip
        sub = SubAction(name="collect_wood", description="collect wood", mode="code",
                        precondition="-", expected_effect="collect_wood rises")  # fmt: skip
        fixed = agent.repair(get_task("collect_wood"), sub, action, first, 1, 2)
        (request,) = server.requests
    prompt = request["messages"][-1]["content"]
    (tmp_path / "repair_prompt.md").write_text(prompt)  # the exchange, for a reader
    assert server.base_url.startswith("http://127.0.0.1:")
    found = "Validation found `gave_up`: \"returned after 0 steps without 'collect_wood' in dusk"
    assert found in prompt
    for part in ("daylight 0.45", "local map at the end", "gave_up (it returned"):
        assert part in prompt, part
    assert fixed.source == KEEPS_GOING
    second = validate_action(fixed, sandbox=SandboxParams())
    assert second.ok, second.feedback()
    assert {o.spec.state for o in second.scenarios if o.spec} >= {"dusk", "night", "hazard"}
