"""rlgpt.validation.validate: gate and lint, then effect checks on arranged Crafter states."""

from __future__ import annotations

import json

import pytest

from rlgpt.config import SandboxParams
from rlgpt.messages import CodedAction, Scenario, ScenarioOutcome, ValidationReport
from rlgpt.validation.judge import verdict
from rlgpt.validation.validate import SCENARIO_SEED_BASE, validate_action, validate_all
from rlgpt.worlds.crafter.author import write_action
from rlgpt.worlds.crafter.planner import plan_steps

SANDBOX = SandboxParams()


def _action(name: str, body: str, budget: int = 80) -> CodedAction:
    return CodedAction(name=name, docstring="", source=f"def {name}(view):\n{body}",
                       step_budget=budget)  # fmt: skip


def test_offline_actions_for_wood_pickaxe_validate():
    coded = [write_action(ach, 80) for ach, _ in plan_steps("make_wood_pickaxe")]
    report = validate_all(coded, sandbox=SANDBOX)
    assert isinstance(report, ValidationReport)
    assert report.ok, [v.feedback() for v in report.failed()]
    assert [a.name for a in report.actions] == ["collect_wood", "place_table", "make_wood_pickaxe"]
    for action in report.actions:
        met = [s for s in action.scenarios if s.spec and s.spec.precondition == "met"]
        plain = [s for s in met if not s.spec.state]
        assert [s.spec.seed for s in plain] == [SCENARIO_SEED_BASE + i for i in range(3)]
        assert all(s.effect and s.steps >= 1 for s in plain), "every met scenario needs walking"
        assert {"dusk", "night", "low_vitals"} <= {s.spec.state for s in met}
        assert "rises within 80 steps" in action.expected_effect
    table = report.actions[1]
    (unmet,) = [s for s in table.scenarios if s.spec and s.spec.precondition == "unmet"]
    assert unmet.spec.inventory == {"wood": 1} and "wood (has 1, needs 2)" in unmet.spec.missing
    assert unmet.ok and unmet.ended and unmet.steps == 0


def test_misspelled_action_once_it_has_wood_is_caught_with_and_without_the_lint():
    """The issue's first example: before, it came back ok with 0 steps everywhere."""
    body = (
        "    if view.inventory['wood'] < 2:\n        return\n"
        "    while True:\n        yield 'place_tabel'\n"
    )
    act = _action("place_table", body)
    static = validate_action(act, sandbox=SANDBOX)
    assert (static.ok, static.error_kind) == (False, "invalid_action")
    assert "did you mean 'place_table'" in static.message and "line 5" in static.message
    runtime = validate_action(act, sandbox=SANDBOX, lint_code=False)
    assert (runtime.ok, runtime.error_kind) == (False, "invalid_action")
    assert "'place_tabel'" in runtime.message and "did you mean 'place_table'" in runtime.message
    assert "local map at the end" in runtime.trace and "inventory: " in runtime.trace
    assert "wood=2" in runtime.trace


def test_spinning_without_yielding_once_it_has_wood_times_out():
    """The issue's second example."""
    body = (
        "    if view.inventory['wood'] < 1:\n        return\n"
        "    while view.inventory['wood'] > 0:\n        pass\n    yield 'make_wood_pickaxe'\n"
    )
    fast = SANDBOX.model_copy(update={"reply_timeout_s": 1.0})
    result = validate_action(_action("make_wood_pickaxe", body), sandbox=fast)
    assert (result.ok, result.error_kind) == (False, "timeout")
    assert "met-1" in result.message


def test_returning_before_acting_is_no_action():
    result = validate_action(
        _action("collect_wood", "    return\n    yield 'do'\n"), sandbox=SANDBOX
    )
    assert (result.ok, result.error_kind) == (False, "no_action")
    assert "precondition held" in result.message


def test_never_reaching_the_effect_is_no_effect_with_a_trace():
    body = "    while True:\n        yield 'noop'\n"
    result = validate_action(_action("collect_wood", body, budget=30), sandbox=SANDBOX)
    assert (result.ok, result.error_kind) == (False, "no_effect")
    assert "0 of 3" in result.message and "still running after 30 steps" in result.message
    assert "'collect_wood' went 0 -> 0" in result.trace
    assert "last actions: noop noop" in result.trace


def test_ignoring_the_missing_tool_is_unmet_precondition():
    body = (
        "    start = view.achievements['collect_stone']\n"
        "    while view.achievements['collect_stone'] == start:\n"
        "        if view.facing_name == 'stone':\n            yield 'do'\n"
        "        else:\n            ok = yield from approach(view, 'stone')\n"
        "            if not ok:\n                yield from explore(view, 4)\n"
    )
    result = validate_action(_action("collect_stone", body), sandbox=SANDBOX)
    assert (result.ok, result.error_kind) == (False, "unmet_precondition")
    assert "wood_pickaxe (has 0, needs 1)" in result.message
    met = [s for s in result.scenarios if s.spec.precondition == "met"]
    assert all(s.effect for s in met), "with the pickaxe it works"


def test_exception_trace_shows_the_line():
    body = "    tools = {k: v for k, v in view.inventory.items() if v}\n    yield 'noop'\n" \
           "    if tools['wood_pickaxe'] > 0:\n        yield 'do'\n"  # fmt: skip
    result = validate_action(_action("collect_stone", body), sandbox=SANDBOX)
    assert (result.ok, result.error_kind) == (False, "exception")
    assert "KeyError" in result.message
    assert "line 4: if tools['wood_pickaxe'] > 0:" in result.trace


def test_gate_rejection_comes_back_without_running(coded_action):
    bad = coded_action("bad", "    import os\n    yield 'noop'\n")
    result = validate_action(bad, sandbox=SANDBOX)
    assert (result.ok, result.error_kind) == (False, "gate")
    assert result.scenarios == []


def test_load_time_error_is_an_exception(coded_action):
    broken = coded_action("broken", "    yield 'noop'\n").model_copy(
        update={"source": "X = {}['k']\ndef broken(view):\n    yield 'noop'\n"}
    )
    result = validate_action(broken, sandbox=SANDBOX)
    assert (result.ok, result.error_kind) == (False, "exception")
    assert "while loading: KeyError" in result.message


def test_an_action_not_named_after_an_achievement_is_only_contained(coded_action):
    walk = coded_action("walk", "    while True:\n        yield 'noop'\n")
    result = validate_action(walk, sandbox=SANDBOX.model_copy(update={"scenario_steps": 15}))
    assert result.ok and "unknown" in result.expected_effect
    assert [s.steps for s in result.scenarios] == [15, 15, 15]


def _outcome(name: str, effect: bool) -> ScenarioOutcome:
    spec = Scenario(name=name, seed=1, precondition="met", max_steps=10)
    kind = None if effect else "no_effect"
    return ScenarioOutcome(
        scenario=name, spec=spec, ok=effect, steps=10, effect=effect, error_kind=kind,
        message=f"{name} failed", trace=f"trace {name}",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("effects", "share", "ok"),
    [([True, True, False], 0.66, True), ([True, False, False], 0.66, False),
     ([True, True, False], 1.0, False), ([True, False, False], 0.3, True)],
)  # fmt: skip
def test_effect_share_decides(effects, share, ok):
    outcomes = [_outcome(f"met-{i}", e) for i, e in enumerate(effects)]
    required = SandboxParams(min_effect_share=share).required_effects(len(effects))
    result = verdict("collect_wood", outcomes, required, "x")
    assert result.ok is ok
    if not ok:
        assert result.error_kind == "no_effect"
        assert f"in {sum(effects)} of 3" in result.message
        assert result.trace.startswith("trace met-")


def test_a_missing_sandbox_stops_validation_instead_of_failing_the_action(monkeypatch):
    """Without the sandbox every action would be `crash` and the run would go on as plain PPO;
    the caller gets SandboxUnavailable (a one-line user error) instead."""
    from rlgpt.sandbox import boundary

    monkeypatch.setattr(boundary, "bwrap_works", lambda: False)
    with pytest.raises(boundary.SandboxUnavailable, match="no sandbox"):
        validate_action(write_action("collect_wood", 80), sandbox=SANDBOX)


def test_sandbox_check_gives_every_file_a_verdict_and_exit_3_when_one_could_not_be_checked(
    monkeypatch, tmp_path, capsys
):
    from flows import cli
    from rlgpt.validation import validate

    real = validate.validate_action
    files = []
    for name in ("good", "broken"):
        path = tmp_path / f"{name}.py"
        path.write_text(f"def {name}(view):\n    yield 'noop'\n    raise ValueError('\\ud800')\n")
        files.append(str(path))

    def flaky(action, **kwargs):
        if action.name == "broken":
            raise RuntimeError("internal \x1b[2K\nfailure")
        return real(action, **kwargs)

    monkeypatch.setattr(validate, "validate_action", flaky)
    with pytest.raises(SystemExit) as info:
        cli.main(["sandbox", "check", *files, "--timeout", "5", "--params", str(tmp_path / "x")])
    out = capsys.readouterr()
    assert info.value.code == 3
    report = json.loads(out.out)["actions"]
    assert [a["name"] for a in report] == ["good", "broken"]
    assert report[1]["error_kind"] == "crash" and "could not be checked" in report[1]["message"]
    lines = out.err.splitlines()
    assert [ln.split(":")[1].strip() for ln in lines if ln.startswith("rlgpt: ")] == [
        "good",
        "broken",
    ]
    assert "\x1b" not in out.err


def test_a_cold_start_is_not_charged_to_the_action(monkeypatch):
    """Imports, compilation and the worker's start happen before the clock: a world whose
    env takes longer to build than the whole limit (a JAX compile on a busy day) still
    validates a correct action."""
    import time

    from rlgpt.worlds.crafter.world import CrafterWorld

    real = CrafterWorld.validation_env

    def slow(self, name, radius):  # type: ignore[no-untyped-def]
        time.sleep(1.5)
        return real(self, name, radius)

    monkeypatch.setattr(CrafterWorld, "validation_env", slow)
    verdict = validate_action(
        write_action("collect_wood", 80), sandbox=SandboxParams(timeout_s=1.0)
    )
    assert verdict.ok, verdict.feedback()


SLOW_REPLIES = """
import time


def probe(view):
    while True:
        time.sleep(0.15)
        yield "noop"
"""


def test_a_timeout_says_where_the_time_went():
    """The action's replies are charged, the game's time and the cold start are named."""
    action = CodedAction(name="probe", docstring="", source=SLOW_REPLIES, step_budget=80)
    verdict = validate_action(action, sandbox=SandboxParams(timeout_s=1.0), gate_code=False)
    assert verdict.error_kind == "timeout", verdict.feedback()
    msg = verdict.message
    assert "the action took" in msg and "over the 1 s allowed" in msg, msg
    assert "its replies took" in msg and "the game's staging and steps" in msg, msg
    assert "cold start" in msg and "never yields" not in msg, msg
