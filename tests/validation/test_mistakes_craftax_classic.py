"""Validation against a model's mistakes with Craftax-Classic (tests/validation/
mistakes_craftax_classic/): its own recipes read as Crafter's (the iron pickaxe's stone), a
furnace taken for granted, sleep within a zombie's reach, a target out of sight given up on,
indexed unseen or waited for. Each is rejected with the class its header names and feedback
a model can repair from, with the lint and without it."""

from __future__ import annotations

import typing

import pytest

from rlgpt.messages import ErrorKind
from tests.validation.corpus import Mistake, assert_rejected_with_its_class, corpus, show, validate

pytest.importorskip("craftax")

WORLD = "craftax-classic"
ITEMS = corpus(WORLD)


@pytest.mark.parametrize("item", ITEMS, ids=[m.stem for m in ITEMS])
def test_classic_mistake_is_rejected_with_its_class(item: Mistake):
    assert_rejected_with_its_class(item, validate(item.stem, world=WORLD))


@pytest.mark.parametrize("item", ITEMS, ids=[m.stem for m in ITEMS])
def test_classic_mistake_is_rejected_with_the_lint_off(item: Mistake):
    """The states and checks are the runtime's: none of these needs the lint."""
    verdict = validate(item.stem, lint_code=False, world=WORLD)
    assert not verdict.ok and verdict.error_kind in item.expect, show(item, verdict)


def test_classic_corpus_names_classic_achievements_and_the_new_states():
    from rlgpt.worlds import get_world

    kinds = set(typing.get_args(ErrorKind))
    assert len(ITEMS) >= 5
    for item in ITEMS:
        assert item.expect <= kinds and len(item.expect) == 1, item.stem
        assert get_world(WORLD).requirement_text(item.sub_action), item.stem
    failed = {s.scenario for m in ITEMS for s in validate(m.stem, world=WORLD).scenarios
              if not s.ok}  # fmt: skip
    assert {"monster_near", "unseen"} <= failed and any(f.startswith("unmet") for f in failed)
