"""Coded actions cannot reach each other: one worker per action in training, read-only shared
tables and fresh module copies inside a worker; a hung worker is restarted."""

from __future__ import annotations

import time

import pytest

from rlgpt.errors import MacroError
from rlgpt.sandbox import limits
from rlgpt.sandbox.pool import MacroPool
from tests.support.world import CRAFTER_SKILLS

TAMPER = (
    "    import math\n"
    "    MOVES[(1, 0)] = 'noop'\n"
    "    math.isqrt = lambda n: 0\n"
    "    yield 'noop'\n"
)  # fmt: skip
VICTIM = (
    "    import math\n"
    "    yield MOVES[(1, 0)]\n"
    "    yield 'noop' if math.isqrt(16) == 4 else 'do'\n"
)  # fmt: skip


@pytest.fixture
def state(local_state):
    return local_state({(0, 1): "tree"}, facing=(0, 1), inventory={"wood": 0})


def _play(runner, name: str, state: dict) -> list[str]:
    out, prim = [], runner.start(name, state)
    while prim is not None:
        out.append(prim)
        prim = runner.next(state)
    return out


def test_without_isolation_one_action_can_poison_another(make_worker, coded_action, state):
    """The class of attack: two actions in one process with the gate off share the tables."""
    worker = make_worker([coded_action("a", TAMPER), coded_action("b", VICTIM)], gate=False)
    _play(worker, "a", state)
    assert _play(worker, "b", state) == ["noop", "do"]


def test_a_pool_gives_each_action_its_own_worker(coded_action, state):
    pool = MacroPool(
        [coded_action("a", TAMPER), coded_action("b", VICTIM)], CRAFTER_SKILLS, "bwrap", gate=False
    )
    try:
        _play(pool, "a", state)
        assert _play(pool, "b", state) == ["move_right", "noop"]
    finally:
        pool.close()


def test_shared_tables_are_read_only_and_modules_are_copies(make_worker, coded_action, state):
    tamper = coded_action("a", "    MOVES[(1, 0)] = 'noop'\n    yield 'noop'\n")
    victim = coded_action("b", VICTIM)
    worker = make_worker([tamper, victim])
    with pytest.raises(MacroError) as info:
        worker.start("a", state)
    assert info.value.kind == "exception" and "mappingproxy" in info.value.message
    assert _play(worker, "b", state) == ["move_right", "noop"]


def test_a_hung_worker_is_restarted(coded_action, state):
    sleeper = coded_action(
        "s", "    yield 'noop'\n    while True:\n        pass\n    yield 'noop'\n"
    )
    pool = MacroPool([sleeper], CRAFTER_SKILLS, "bwrap", timeout_s=1.0)
    try:
        assert pool.start("s", state) == "noop"
        with pytest.raises(MacroError) as info:
            pool.next(state)
        assert info.value.kind == "timeout" and pool.restarts == 1
        assert pool.start("s", state) == "noop", "a fresh worker answers again"
    finally:
        pool.close()


def test_a_worker_that_burns_cpu_between_calls_is_stopped_for_good(coded_action, state):
    """Its burner is found while another action is called, and its action then answers
    kind cpu (disabled by the runtime) instead of being restarted."""
    if limits.mode() == "rlimit":
        pytest.skip("no writable cgroup here: CPU is not measured")
    burner = coded_action(
        "burn", "    import os\n    if os.fork() == 0:\n        while True:\n            pass\n"
        "    yield 'noop'\n",
    )  # fmt: skip
    pool = MacroPool(
        [burner, coded_action("other", "    yield 'noop'\n")], CRAFTER_SKILLS, "bwrap", gate=False
    )
    try:
        assert pool.start("burn", state) == "noop"
        assert pool.next(state) is None
        time.sleep(0.7)
        assert pool.start("other", state) == "noop"  # the sweep looks at idle workers
        with pytest.raises(MacroError) as info:
            pool.start("burn", state)
        assert info.value.kind == "cpu" and "between calls" in info.value.message
        assert pool.restarts == 0
    finally:
        pool.close()


def test_a_stop_waits_in_turns_and_still_runs_the_actions_finally(coded_action, state):
    """A call cut short is closed with a stop that, like a start or a next, hands back the
    reply pipe it waits on (another env steps meanwhile); its `finally` still runs, and what
    it raises still comes back."""
    body = "    try:\n        yield 'noop'\n        yield 'noop'\n    finally:\n        1 / 0\n"
    pool = MacroPool([coded_action("a", body)], CRAFTER_SKILLS, "bwrap")
    try:
        assert pool.start("a", state) == "noop"
        stopping = pool.stop_waits()
        assert isinstance(next(stopping), int)  # paused on the worker's reply pipe
        with pytest.raises(MacroError, match="while stopping: ZeroDivisionError") as err:
            next(stopping)
        assert err.value.kind == "exception"
    finally:
        pool.close()


def test_the_cpu_per_step_allowed_in_training_follows_what_validation_measured():
    from rlgpt.sandbox.pool import FLOOR_MS, step_cpu_limit

    assert step_cpu_limit(25.0, None) == (25.0, "sandbox.step_cpu_ms")
    assert step_cpu_limit(None, 1.0)[0] is None
    limit, why = step_cpu_limit(25.0, 0.8)
    assert limit == 8.0 and "0.80 ms per step its validation measured" in why
    assert step_cpu_limit(25.0, 0.01)[0] == FLOOR_MS
    assert step_cpu_limit(25.0, 4.0) == (25.0, "sandbox.step_cpu_ms"), "never over the limit"


BURN_EVERY_STEP = (
    "    for _ in range(5):\n"
    "        n = 0\n"
    "        for i in range(12_000_000):\n"
    "            n += i % 7\n"
    "        yield 'noop'\n"
)  # fmt: skip


@pytest.mark.parametrize("measured_by", ["cgroup", "proc"])
def test_a_worker_is_judged_for_its_cpu_from_its_first_step(
    coded_action, state, monkeypatch, measured_by
):
    """About 0.5 s of CPU a step: over the one-off 0.4 s at its first step, killed there, not
    after sixteen; where no cgroup is writable, its process tree's CPU in /proc tells."""
    if measured_by == "proc":
        monkeypatch.setattr(limits, "mode", lambda: "rlimit")
    elif limits.mode() == "rlimit":
        pytest.skip("no writable cgroup here")
    pool = MacroPool([coded_action("burn", BURN_EVERY_STEP)], CRAFTER_SKILLS, "bwrap",
                     gate=False, step_cpu_ms=25.0)  # fmt: skip
    try:
        steps = 0
        with pytest.raises(MacroError) as info:
            pool.start("burn", state)
            steps = 1
            while pool.next(state) is not None:
                steps += 1
        assert info.value.kind == "cpu" and "ms of CPU per step" in info.value.message
        assert steps <= 1, (steps, info.value.message)
    finally:
        pool.close()


def test_a_pool_limits_each_action_by_what_its_validation_measured(coded_action):
    """The CPU per step validation measured travels with the action (never in a record) and
    sets its worker's limit in training."""
    from rlgpt.messages import ActionValidation, ValidationReport

    action = coded_action("idle", "    yield 'noop'\n")
    verdict = ActionValidation(name="idle", ok=True).timed(0.8)
    [passed] = ValidationReport(actions=[verdict]).passed([action])
    assert passed.validated_cpu_ms == 0.8 and "0.8" not in verdict.model_dump_json()
    assert passed.content_hash() == action.content_hash(), "a timing is no part of the record"
    pool = MacroPool([passed], CRAFTER_SKILLS, "bwrap", gate=False, step_cpu_ms=25.0)
    try:
        worker = pool._workers["idle"]
        assert worker.step_cpu_ms == 8.0 and "its validation measured" in worker.step_cpu_why
    finally:
        pool.close()
