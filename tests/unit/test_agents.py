"""rlgpt.agents.base: reply parsing, format retries and the record of every exchange."""

from __future__ import annotations

import json

import jinja2
import pytest

from rlgpt.agents.base import Agent, FormatError, parse_reply
from rlgpt.agents.prompting import template_hash
from rlgpt.llm.base import LLMReply, LLMRequest
from rlgpt.messages import Critique

GOOD = {"verdict": "success", "reasoning": "done"}


def test_bare_json():
    assert parse_reply(json.dumps(GOOD), Critique) == Critique(**GOOD)


def test_fenced_json_with_prose():
    text = f"Here is my critique:\n```json\n{json.dumps(GOOD, indent=2)}\n```\nHope it helps."
    assert parse_reply(text, Critique).verdict == "success"


def test_plain_fence_without_language():
    text = f"```\n{json.dumps(GOOD)}\n```"
    assert parse_reply(text, Critique).reasoning == "done"


def test_prose_around_an_object():
    text = f"Sure. {json.dumps(GOOD)} That is all."
    assert parse_reply(text, Critique) == Critique(**GOOD)


def test_invalid_json_is_a_format_error_with_feedback():
    with pytest.raises(FormatError, match=r"invalid JSON: .* at line \d+"):
        parse_reply('{"verdict": "success", "reasoning": }', Critique)


def test_no_object_is_a_format_error():
    with pytest.raises(FormatError):
        parse_reply("I cannot help with that.", Critique)


def test_schema_mismatch_names_the_field():
    with pytest.raises(FormatError, match="schema mismatch at 'verdict'"):
        parse_reply('{"verdict": "great", "reasoning": "x"}', Critique)


class FakeLLM:
    """Replays canned texts and keeps the requests it got (implements rlgpt.llm.base.LLM)."""

    backend = "fake"
    model = "fake-1"

    def __init__(self, texts: list[str]) -> None:
        self.texts = list(texts)
        self.requests: list[LLMRequest] = []

    def model_for(self, role: str) -> str:
        return self.model

    def sampling(self) -> dict:
        return {}

    def complete(self, request: LLMRequest) -> LLMReply:
        self.requests.append(request)
        return LLMReply(text=self.texts.pop(0), backend=self.backend, model=self.model)


class CriticLike(Agent):
    role = "critic"


CONTEXT = dict(
    task={"name": "t"}, decomposition={}, validation={}, evaluation={}, success_threshold=0.9
)


def test_ask_retries_after_a_bad_reply_and_records_both(tmp_path):
    llm = FakeLLM(["not json at all", json.dumps(GOOD)])
    agent = CriticLike(llm, tmp_path / "llm", format_retries=2)
    result = agent.ask("critic", Critique, **CONTEXT)
    assert result == Critique(**GOOD)
    assert len(llm.requests) == 2
    first, second = llm.requests
    assert [m.role for m in first.messages] == ["system", "user"]
    # the retry carries the rejected reply and the feedback
    assert [m.role for m in second.messages] == ["system", "user", "assistant", "user"]
    assert second.messages[2].content == "not json at all"
    assert "rejected" in second.messages[3].content and "invalid JSON" in second.messages[3].content
    assert first.template_hash == template_hash("critic")
    assert first.agent == "critic" and first.kind == "critic"
    assert first.context["success_threshold"] == 0.9

    files = sorted((tmp_path / "llm").glob("*.json"))
    assert [f.name for f in files] == ["001_critic_critic.json", "002_critic_critic.json"]
    records = [json.loads(f.read_text()) for f in files]
    assert [r["ok"] for r in records] == [False, True]
    assert "invalid JSON" in records[0]["error"]
    assert records[0]["reply"]["text"] == "not json at all"
    assert records[1]["request"]["template_hash"] == template_hash("critic")
    assert len(agent.replies) == 2


def test_ask_gives_up_after_the_retries(tmp_path):
    llm = FakeLLM(["nope"] * 5)
    agent = CriticLike(llm, tmp_path, format_retries=1)
    with pytest.raises(FormatError, match="no valid reply after 2 attempts"):
        agent.ask("critic", Critique, **CONTEXT)
    assert len(llm.requests) == 2
    assert len(list(tmp_path.glob("*.json"))) == 2


def test_prompt_is_rendered_strictly(tmp_path):
    llm = FakeLLM([json.dumps(GOOD)])
    agent = CriticLike(llm, tmp_path)
    with pytest.raises(jinja2.UndefinedError, match="is undefined"):
        agent.ask("critic", Critique)  # the template's variables are missing
    assert llm.requests == []


def test_one_agent_contains_a_model_that_forgets_code_or_writes_code_for_no_step(tmp_path):
    """run.agents: one. collect_wood is marked "code" without code: it is learned instead;
    code for collect_diamond, which the plan does not have, never reaches training."""
    from rlgpt.agents.roles import OneAgent
    from rlgpt.worlds.crafter.author import write_action
    from rlgpt.worlds.crafter.tasks import get_task

    steps = (("collect_wood", 2), ("place_table", 1))
    subs = [{"name": n, "description": n, "mode": "code", "count": c, "precondition": "-",
             "expected_effect": "-"} for n, c in steps]  # fmt: skip
    code = [write_action(n, 80).model_dump() for n in ("place_table", "collect_diamond")]
    reply = {"decomposition": {"task": "wrong", "sub_actions": subs, "reasoning": "r"},
             "actions": code}  # fmt: skip
    llm = FakeLLM([json.dumps(reply)])
    dec, coded = OneAgent(llm, tmp_path).plan_and_code(get_task("place_table"), None, [], None, 80)
    assert dec.task == "place_table"
    assert [(s.name, s.mode) for s in dec.sub_actions] == [
        ("collect_wood", "rl"), ("place_table", "code")]  # fmt: skip
    assert [c.name for c in coded] == ["place_table"]
    request = llm.requests[0]
    assert request.agent == "one" and request.kind == "one_agent"
    prompt = request.messages[-1].content
    assert "# Role: one agent" in prompt and "def <sub-action name>(view):" in prompt
