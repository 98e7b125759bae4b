"""Validation against realistic model mistakes: every program of `mistakes/` is rejected with the
class its header names, with a message and (for what ran) a trace a model can repair from; what
the lint finds, the runtime layer still rejects without it; the offline author's reference
actions pass."""

from __future__ import annotations

import typing

import pytest

from rlgpt.config import SandboxParams
from rlgpt.messages import ErrorKind, ValidationReport
from rlgpt.validation.validate import validate_action
from rlgpt.worlds.crafter.author import write_action
from rlgpt.worlds.crafter.planner import plan_steps
from rlgpt.worlds.crafter.preconditions import requirement
from rlgpt.worlds.crafter.tasks import registry
from tests.validation.corpus import (
    STATIC_LINT,
    Mistake,
    assert_rejected_with_its_class,
    corpus,
    validate,
)
from tests.validation.corpus import show as _show

ITEMS = corpus()
NON_PLANNABLE = (
    "collect_drink", "collect_sapling", "eat_cow", "eat_plant", "defeat_zombie",
    "defeat_skeleton", "wake_up", "place_plant",
)  # fmt: skip


@pytest.mark.parametrize("item", ITEMS, ids=[m.stem for m in ITEMS])
def test_mistake_is_rejected_with_its_class(item: Mistake):
    assert_rejected_with_its_class(item, validate(item.stem))


def test_corpus_is_large_and_varied():
    kinds = set(typing.get_args(ErrorKind))
    assert len(ITEMS) >= 25
    for item in ITEMS:
        assert item.expect <= kinds, item.stem
        assert len(item.expect) == 1, f"{item.stem}: alternatives only when nondeterministic"
        assert requirement(item.sub_action) is not None, f"{item.stem}: not an achievement"
        assert item.budget > 0 and item.mistake, item.stem
        if "syntax" not in item.expect:
            assert f"def {item.sub_action}(" in item.source or "signature" in item.expect
    classes = {k for item in ITEMS for k in item.expect}
    assert len(classes) >= 8, classes
    runtime = [item.stem for item in ITEMS if item.layer == "runtime"]
    assert len(runtime) >= 12, runtime
    assert len({item.sub_action for item in ITEMS}) >= 8


LINT_ONLY = [m for m in ITEMS if m.layer == "lint"]


@pytest.mark.parametrize("item", LINT_ONLY, ids=[m.stem for m in LINT_ONLY])
def test_lint_findings_are_rejected_by_the_runtime_layer_too(item: Mistake):
    static = validate(item.stem)
    assert static.error_kind in STATIC_LINT and not static.scenarios, _show(item, static)
    runtime = validate(item.stem, lint_code=False)
    assert not runtime.ok, _show(item, runtime)
    assert runtime.scenarios, _show(item, runtime)  # it ran: the verdict is the runtime's
    assert runtime.message.strip() and "local map at the end" in runtime.trace


def _reference_cases() -> list[tuple[str, bool]]:
    plans = {ach for task in registry().values() for ach, _ in plan_steps(task.achievement)}
    achs = sorted(plans | set(NON_PLANNABLE))
    return [(a, r) for a in achs for r in ((False, True) if a.startswith("make_") else (False,))]


REFERENCE = _reference_cases()


@pytest.mark.parametrize(
    ("ach", "revised"), REFERENCE, ids=[a + ("-revised" if r else "") for a, r in REFERENCE]
)
def test_reference_actions_of_the_offline_author_pass(ach: str, revised: bool):
    action = write_action(ach, 80, revised=revised)
    verdict = validate_action(action, sandbox=SandboxParams())
    assert verdict.ok, verdict.feedback()


def test_no_mistake_reaches_training():
    """What the flow inserts into the action space is `report.passed(coded)`: none of these."""
    coded = [item.action() for item in ITEMS]
    report = ValidationReport(actions=[validate(item.stem) for item in ITEMS])
    assert report.passed(coded) == []
    excluded = report.excluded()
    assert set(excluded) == {item.sub_action for item in ITEMS}
    assert all(why.split(":")[0] in typing.get_args(ErrorKind) for why in excluded.values())
