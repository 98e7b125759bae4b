"""rlgpt.sandbox.driven in the worker: a skill generator a call never drove is api_misuse that
says "add `yield from`", however the call was written; what was yielded instead of an action
name is named, with what to yield."""

from __future__ import annotations

import time

import pytest

from rlgpt.sandbox.client import MacroError


def _error(call) -> MacroError:
    with pytest.raises(MacroError) as info:
        call()
    return info.value


def test_a_skill_called_without_yield_from_fails_when_the_call_ends(
    make_worker, coded_action, local_state
):
    body = "    approach(view, 'tree')\n    yield 'noop'\n"
    worker = make_worker([coded_action("walk", body)])
    state = local_state({(-3, 0): "tree"})
    assert worker.start("walk", state) == "noop"
    err = _error(lambda: worker.next(state))
    assert err.kind == "api_misuse"
    assert "approach(...) is a generator" in err.message and "add `yield from`" in err.message


def test_and_when_the_call_is_stopped(make_worker, coded_action, local_state):
    body = "    step = go_to\n    step(view, 'tree')\n    while True:\n        yield 'noop'\n"
    worker = make_worker([coded_action("walk", body)])
    state = local_state({(-3, 0): "tree"})
    assert worker.start("walk", state) == "noop"
    assert worker.next(state) == "noop"
    err = _error(worker.stop)
    assert err.kind == "api_misuse" and "go_to(...)" in err.message


def test_a_loop_of_undriven_calls_is_named_long_before_the_reply_times_out(
    make_worker, coded_action, local_state
):
    body = "    f = go_to\n    while True:\n        f(view, 'tree')\n    yield 'noop'\n"
    worker = make_worker([coded_action("spin", body)], timeout_s=5.0)
    t0 = time.monotonic()
    err = _error(lambda: worker.start("spin", local_state({(-3, 0): "tree"})))
    assert err.kind == "api_misuse" and "add `yield from`" in err.message
    assert time.monotonic() - t0 < 2.0
    assert worker.alive, "an error, not a kill: the worker serves on"


def test_driven_skills_and_a_fresh_call_are_not_flagged(make_worker, coded_action, local_state):
    body = (
        "    found = yield from go_to(view, 'tree')\n"  # nothing seen: returns at once
        "    if not found:\n        yield 'noop'\n"
    )
    worker = make_worker([coded_action("look", body)])
    state = local_state({})
    assert worker.start("look", state) == "noop"
    assert worker.next(state) is None
    assert worker.start("look", state) == "noop", "the last call's generators are forgotten"


@pytest.mark.parametrize(
    ("body", "words"),
    [("    yield go_to(view, 'tree')\n", ("go_to(...) is a generator", "add `yield from`")),
     ("    yield (1, 0)\n", ("(tuple)", "an offset is not an action")),
     ("    yield\n", ("None", "yield 'noop'")),
     ("    yield ['noop', 'do']\n", ("(list)", "one action name at a time"))],
)  # fmt: skip
def test_what_was_yielded_instead_of_an_action_is_named(
    make_worker, coded_action, local_state, body, words
):
    worker = make_worker([coded_action("bad", body)])
    err = _error(lambda: worker.start("bad", local_state({})))
    assert err.kind == "invalid_action"
    for word in words:
        assert word in err.message, err.message
