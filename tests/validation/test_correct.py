"""Correct but unusual actions (tests/validation/correct/<world>/): written otherwise than the
offline author's, each passes every state validation builds on its world. A state or a check
that rejects one of them is wrong, however many mistakes it catches."""

from __future__ import annotations

import pytest

from tests.validation.corpus import CORRECT, OK, Mistake, correct, show, validate

pytest.importorskip("craftax")

ITEMS = [m for world in CORRECT for m in correct(world)]


@pytest.mark.parametrize("item", ITEMS, ids=[f"{m.world}-{m.stem}" for m in ITEMS])
def test_a_correct_unusual_action_passes(item: Mistake):
    assert item.expect == {OK}, item.stem
    verdict = validate(item.stem, world=item.world)
    assert verdict.ok, show(item, verdict)


def test_every_world_has_correct_unusual_actions():
    assert {m.world for m in ITEMS} == set(CORRECT)
