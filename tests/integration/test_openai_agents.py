"""The openai backend through the real openai client against a scripted server on 127.0.0.1."""

from __future__ import annotations

import json

import pytest

from rlgpt.agents.base import FormatError
from rlgpt.agents.roles import FastAgent, SlowAgent
from rlgpt.config import LLMParams
from rlgpt.llm.base import BudgetExceeded, LLMConfigError, LLMError
from rlgpt.llm.openai_backend import OpenAIBackend
from rlgpt.messages import SubAction
from rlgpt.worlds.crafter.author import write_action
from rlgpt.worlds.crafter.tasks import get_task
from tests.support.llm_server import ChatServer, crafter_responder, error, ok

KEY = "sk-test-DO-NOT-LEAK-4242"
TASK = get_task("make_wood_pickaxe")
SUB = SubAction(name="collect_wood", description="d", mode="code", count=3,
                precondition="-", expected_effect="-")  # fmt: skip


@pytest.fixture
def server():
    with ChatServer(crafter_responder) as srv:
        yield srv


def _params(server: ChatServer, **kw) -> LLMParams:
    base = {"backend": "openai", "model": "test-model", "base_url": server.base_url,
            "backoff_s": 0.01, "timeout_s": 5.0}  # fmt: skip
    return LLMParams(**(base | kw))


def _fast(server, tmp_path, monkeypatch, **kw) -> FastAgent:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    params = _params(server, **kw)
    return FastAgent(OpenAIBackend(params), tmp_path / "iter_1" / "llm", run_root=tmp_path,
                     llm_params=params)  # fmt: skip


def test_structured_request_and_recording(server, tmp_path, monkeypatch):
    agent = _fast(server, tmp_path, monkeypatch)
    action = agent.write_action(TASK, SUB, 80, {})
    assert action.source == write_action("collect_wood", 80).source
    req = server.requests[0]
    assert req["model"] == "test-model" and req["temperature"] == 0.0 and req["seed"] == 0
    assert req["response_format"]["type"] == "json_schema"
    assert server.headers[0]["authorization"] == f"Bearer {KEY}"
    (rec,) = (tmp_path / "iter_1" / "llm").glob("*.json")
    blob = json.loads(rec.read_text())
    assert blob["ok"] and blob["request"]["template_hash"] and blob["reply"]["prompt_tokens"] > 0
    assert KEY not in rec.read_text()


def test_malformed_json_then_valid(server, tmp_path, monkeypatch):
    server.script = [ok('{"name": "collect_wood", "docstring": "x", "source": ')]
    action = _fast(server, tmp_path, monkeypatch).write_action(TASK, SUB, 80, {})
    assert action.name == "collect_wood" and len(server.requests) == 2
    feedback = server.requests[1]["messages"][-1]["content"]
    assert "rejected" in feedback and "invalid JSON" in feedback


def test_prose_around_the_json(server, tmp_path, monkeypatch):
    good = write_action("collect_wood", 80).model_dump_json()
    server.script = [ok(f"Sure! Here it is: {good} Hope this helps.")]
    action = _fast(server, tmp_path, monkeypatch).write_action(TASK, SUB, 80, {})
    assert action.source == write_action("collect_wood", 80).source and len(server.requests) == 1


def test_code_without_a_fence(server, tmp_path, monkeypatch):
    server.script = [ok(write_action("collect_wood", 80).source)]
    action = _fast(server, tmp_path, monkeypatch).write_action(TASK, SUB, 80, {})
    assert action.source.startswith("def collect_wood(view):") and len(server.requests) == 1


def test_truncated_reply_is_repaired(server, tmp_path, monkeypatch):
    server.script = [ok('{"name": "collect_wood", "docstring": "', finish="length")]
    action = _fast(server, tmp_path, monkeypatch).write_action(TASK, SUB, 80, {})
    assert action.name == "collect_wood" and len(server.requests) == 2
    assert "cut off" in server.requests[1]["messages"][-1]["content"]


def test_429_then_success(server, tmp_path, monkeypatch):
    server.script = [error(429, "slow down")]
    _fast(server, tmp_path, monkeypatch).write_action(TASK, SUB, 80, {})
    assert len(server.requests) == 2


def test_500_twice_then_success(server, tmp_path, monkeypatch):
    server.script = [error(500), error(503)]
    _fast(server, tmp_path, monkeypatch).write_action(TASK, SUB, 80, {})
    assert len(server.requests) == 3


def test_timeout_then_success(server, tmp_path, monkeypatch):
    server.script = [ok("{}", delay=2.0)]
    agent = _fast(server, tmp_path, monkeypatch, timeout_s=0.5)
    agent.write_action(TASK, SUB, 80, {})
    assert len(server.requests) == 2


def test_timeouts_exhaust_retries(server, tmp_path, monkeypatch):
    server.script = [ok("{}", delay=1.0)] * 3
    agent = _fast(server, tmp_path, monkeypatch, timeout_s=0.3, max_retries=2)
    with pytest.raises(LLMError, match="timed out after 3 attempts"):
        agent.write_action(TASK, SUB, 80, {})


def test_401_is_a_clear_error_without_retry(server, tmp_path, monkeypatch):
    server.script = [error(401, "Incorrect API key provided")]
    with pytest.raises(LLMConfigError, match=r"rejected the API key in \$OPENAI_API_KEY") as exc:
        _fast(server, tmp_path, monkeypatch).write_action(TASK, SUB, 80, {})
    assert len(server.requests) == 1 and KEY not in str(exc.value)


def test_missing_key_is_a_user_error(server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(LLMConfigError, match="no API key"):
        OpenAIBackend(_params(server))


def test_unsupported_response_format_falls_back(server, tmp_path, monkeypatch):
    server.script = [error(400, "response_format json_schema is not supported")]
    agent = _fast(server, tmp_path, monkeypatch)
    agent.write_action(TASK, SUB, 80, {})
    assert "response_format" not in server.requests[1]
    agent.write_action(TASK, SUB.model_copy(update={"name": "place_table"}), 80, {})
    assert "response_format" not in server.requests[2]


def test_reply_that_never_validates(server, tmp_path, monkeypatch):
    server.script = [ok("I cannot help with that.")] * 3
    with pytest.raises(FormatError, match="no valid reply after 3 attempts"):
        _fast(server, tmp_path, monkeypatch).write_action(TASK, SUB, 80, {})
    assert len(list((tmp_path / "iter_1" / "llm").glob("*.json"))) == 3


def test_cache_never_pays_twice_and_budget_stops(server, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    params = _params(server)
    slow = SlowAgent(OpenAIBackend(params), tmp_path / "iter_1" / "llm", run_root=tmp_path,
                     llm_params=params)  # fmt: skip
    first = slow.decompose(TASK, None, None)
    again = SlowAgent(OpenAIBackend(params), tmp_path / "iter_2" / "llm", run_root=tmp_path,
                      llm_params=params).decompose(TASK, None, None)  # fmt: skip
    assert first == again and len(server.requests) == 1  # the second came from the run's cache
    cached = json.loads(next((tmp_path / "iter_2" / "llm").glob("*.json")).read_text())
    assert cached["cached"] is True
    tight = _params(server, budget_tokens=10)
    broke = FastAgent(OpenAIBackend(tight), tmp_path / "iter_3" / "llm", run_root=tmp_path,
                      llm_params=tight)  # fmt: skip
    with pytest.raises(BudgetExceeded, match="token budget spent"):
        broke.write_action(TASK, SUB, 80, {})
    assert len(server.requests) == 1


def test_a_model_that_misspells_primitives_or_strands_a_learned_step_is_corrected(
    server, tmp_path, monkeypatch
):
    """A real model's RL config through the openai client: a misspelled primitive is dropped,
    and dropping the primitives while a sub-action is still learned keeps all 17."""
    from rlgpt.messages import Decomposition, PPOConfig

    dec = Decomposition(task=TASK.name, reasoning="r", sub_actions=[
        SUB, SUB.model_copy(update={"name": "place_table", "count": 1}),
    ])  # fmt: skip
    reply = {"macro_actions": ["collect_wood", "place_table"], "reward_terms": [],
             "sample_budget": 100, "primitive_actions": ["noop", "move_lefft"]}  # fmt: skip
    server.script = [ok(json.dumps(reply))]
    fast = _fast(server, tmp_path, monkeypatch)
    cfg = fast.rl_config(TASK, dec, ["collect_wood", "place_table"], PPOConfig(), 100)
    assert cfg.primitive_actions == ["noop"]
    server.script = [ok(json.dumps(reply | {"primitive_actions": []}))]
    cfg = fast.rl_config(TASK, dec, ["place_table"], PPOConfig(), 100)  # collect_wood failed
    assert cfg.macro_actions == ["place_table"] and cfg.primitive_actions is None
