"""Validation against a model's mistakes with full Craftax's API (tests/validation/
mistakes_craftax/): misnamed actions and achievements, a skill called without `yield from`,
preconditions forgotten (mana, a bow, the right pickaxe, the floor), crafting out of reach of
the stations, a None ladder unpacked, a call that never ends, a closed ladder given up on. Each
is rejected with the class its header names and feedback a model can repair from; what the lint
finds, the runtime layer rejects without it."""

from __future__ import annotations

import typing

import pytest

from rlgpt.messages import ErrorKind
from tests.validation.corpus import Mistake, assert_rejected_with_its_class, corpus, show, validate

pytest.importorskip("craftax")

ITEMS = corpus("craftax")


@pytest.mark.parametrize("item", ITEMS, ids=[m.stem for m in ITEMS])
def test_craftax_mistake_is_rejected_with_its_class(item: Mistake):
    verdict = validate(item.stem, world="craftax")
    assert_rejected_with_its_class(item, verdict)
    failed = next((s for s in verdict.scenarios if not s.ok), None)
    if failed is not None and failed.spec is not None and failed.spec.floor:
        assert f"on the {failed.spec.floor} floor" in verdict.trace, show(item, verdict)


def test_craftax_corpus_is_varied_and_names_craftax_achievements():
    from rlgpt.worlds.craftax.rules import requirement

    kinds = set(typing.get_args(ErrorKind))
    assert len(ITEMS) >= 15
    for item in ITEMS:
        assert item.expect <= kinds and len(item.expect) == 1, item.stem
        assert requirement(item.sub_action) is not None, f"{item.stem}: not an achievement"
        assert f"def {item.sub_action}(" in item.source, item.stem
    classes = {k for item in ITEMS for k in item.expect}
    assert len(classes) >= 7, classes
    assert len([m for m in ITEMS if m.layer == "runtime"]) >= 8


LINT_ONLY = [m for m in ITEMS if m.layer == "lint"]


@pytest.mark.parametrize("item", LINT_ONLY, ids=[m.stem for m in LINT_ONLY])
def test_craftax_lint_findings_are_rejected_by_the_runtime_layer_too(item: Mistake):
    runtime = validate(item.stem, lint_code=False, world="craftax")
    assert not runtime.ok and runtime.scenarios, show(item, runtime)
    assert runtime.message.strip() and "local map at the end" in runtime.trace
