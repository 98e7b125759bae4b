"""rlgpt.sandbox.validate: gate, then runs on real Crafter states in a sandboxed worker."""

from __future__ import annotations

from rlgpt.envs.planner import plan_steps
from rlgpt.envs.tasks import get_task
from rlgpt.llm.offline import write_action
from rlgpt.messages import ValidationReport
from rlgpt.sandbox.validate import SCENARIO_SEED_BASE, validate_action, validate_all

TASK = get_task("make_wood_pickaxe")


def test_offline_actions_for_wood_pickaxe_validate():
    coded = [write_action(ach, 80) for ach, _ in plan_steps("make_wood_pickaxe")]
    report = validate_all(coded, TASK, scenarios=2, scenario_steps=60, timeout_s=20.0)
    assert isinstance(report, ValidationReport)
    assert report.ok, report.failed()
    assert [a.name for a in report.actions] == ["collect_wood", "place_table", "make_wood_pickaxe"]
    for action in report.actions:
        assert action.error_kind is None
        assert [s.scenario for s in action.scenarios] == [
            f"seed={SCENARIO_SEED_BASE}",
            f"seed={SCENARIO_SEED_BASE + 1}",
        ]
    wood = report.actions[0]
    for outcome in wood.scenarios:
        assert 1 <= outcome.steps <= 60
        assert outcome.actions and outcome.actions == outcome.actions[:12]
    # without wood, place_table gives up at once (a fresh world has an empty inventory)
    table = report.actions[1]
    assert all(s.steps == 0 and s.message == "finished" for s in table.scenarios)


def test_crashing_action_is_reported(coded_action):
    crash = coded_action("boom", "    yield 'noop'\n    x = [][1]\n    yield 'noop'\n")
    report = validate_all([crash], TASK, scenarios=1, scenario_steps=10, timeout_s=20.0)
    assert not report.ok
    (result,) = report.failed()
    assert result.name == "boom"
    assert result.error_kind == "crash"
    assert "IndexError" in result.message
    assert "line 3" in result.message


def test_gate_rejection_comes_back_without_running(coded_action):
    bad = coded_action("bad", "    import os\n    yield 'noop'\n")
    result = validate_action(bad, TASK, scenarios=1, scenario_steps=10, timeout_s=20.0)
    assert (result.ok, result.error_kind) == (False, "forbidden")
    assert result.scenarios == []


def test_looping_action_times_out(coded_action):
    spin = coded_action("spin", "    while True:\n        pass\n    yield 'noop'\n")
    result = validate_action(spin, TASK, scenarios=1, scenario_steps=10, timeout_s=1.0)
    assert (result.ok, result.error_kind) == (False, "timeout")


def test_invalid_output_is_reported(coded_action):
    fly = coded_action("fly", "    yield 'noop'\n    yield 'fly'\n")
    result = validate_action(fly, TASK, scenarios=1, scenario_steps=10, timeout_s=20.0)
    assert (result.ok, result.error_kind) == (False, "invalid_output")
    assert "fly" in result.message


def test_load_time_error_is_a_crash(coded_action):
    broken = coded_action("broken", "    yield 'noop'\n").model_copy(
        update={"source": "X = {}['k']\ndef broken(view):\n    yield 'noop'\n"}
    )
    result = validate_action(broken, TASK, scenarios=1, scenario_steps=10, timeout_s=20.0)
    assert (result.ok, result.error_kind) == (False, "crash")
    assert "KeyError" in result.message


def test_action_that_never_finishes_is_ok_but_says_so(coded_action):
    walk = coded_action("walk", "    while True:\n        yield 'noop'\n")
    result = validate_action(walk, TASK, scenarios=1, scenario_steps=15, timeout_s=20.0)
    assert result.ok
    (outcome,) = result.scenarios
    assert outcome.steps == 15
    assert "still running" in outcome.message
