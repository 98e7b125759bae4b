"""A late reply is judged by what the worker did, not by the wall clock alone: a starved
correct action is waited for, a loop that never yields and a worker asleep or blocked are
still killed (rlgpt/sandbox/patience.py). The starved machine is real: a CPU quota on the
worker's cgroup, as a container's quota gives."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from rlgpt.errors import MacroError
from rlgpt.sandbox.limits import mode
from rlgpt.sandbox.patience import WALL_SLACK, Patience, schedstat
from tests.conftest import REPO

measured = pytest.mark.skipif(
    mode() == "rlimit" or not schedstat([os.getpid()]),
    reason="needs a cgroup CPU counter and /proc/PID/schedstat",
)


def _patience(cpu: list[float], pids: list[int], hard_end: float | None = None) -> Patience:
    return Patience(100.0, 2.0, hard_end, lambda: cpu[0] if cpu else None, lambda: pids)


def test_a_loop_that_burned_its_limit_in_cpu_is_killed_at_once():
    end, why = _patience([1.99], [os.getpid()]).after(102.0)
    assert end is None and "of CPU" in why


def test_without_any_measure_the_first_expiry_kills():
    end, why = _patience([], []).after(102.0)
    assert end is None and "within 2.0s" in why


def test_a_stage_deadline_is_never_passed():
    patience = _patience([0.1], [os.getpid()], hard_end=101.0)
    assert patience.first_end() == 101.0
    end, why = patience.after(101.0)
    assert end is None and "end of its time" in why


def test_a_worker_that_neither_runs_nor_waits_to_run_is_asleep_and_killed():
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        time.sleep(0.3)
        start = time.monotonic()
        patience = Patience(start, 0.2, None, lambda: 0.0, lambda: [sleeper.pid])
        end, why = patience.after(time.monotonic())
        assert end is not None, "the first look only starts watching"
        while end is not None:
            time.sleep(max(end - time.monotonic(), 0))
            end, why = patience.after(time.monotonic())
        assert "asleep or blocked" in why
        assert time.monotonic() - start < 0.2 + 2 * patience.interval + 0.3
    finally:
        sleeper.kill()
        sleeper.wait()


def test_a_worker_held_back_by_its_quota_is_not_taken_for_asleep():
    """Throttled time shows neither as running nor as waiting: a worker whose cgroup was
    throttled through a whole look (a quota overrun can hold it back for several periods)
    is waited for; the same look without the throttling kills it."""
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        time.sleep(0.3)
        for throttled, killed in ((True, False), (False, True)):
            held = [0]
            start = time.monotonic()
            patience = Patience(start, 0.2, None, lambda: 0.0, lambda: [sleeper.pid],
                                lambda held=held: held[0])  # fmt: skip
            patience.after(start)  # the first look only starts watching
            time.sleep(patience.interval + 0.05)
            held[0] += int((patience.interval + 0.05) * 1e9) if throttled else 0
            end, why = patience.after(time.monotonic())
            assert (end is None) == killed, why
    finally:
        sleeper.kill()
        sleeper.wait()


@pytest.fixture
def state(local_state):
    return local_state({})


def _throttle(worker, share: float) -> None:
    """A CPU quota on the worker's cgroup, as a container's quota or a busy machine gives."""
    period = 100_000
    for path in worker._limits.dirs:
        if (path / "cpu.max").exists():
            (path / "cpu.max").write_text(f"{int(period * share)} {period}")
        elif (path / "cpu.cfs_quota_us").exists():
            (path / "cpu.cfs_quota_us").write_text(str(int(period * share)))


WORK = "    n = 0\n    for i in range({n}):\n        n += i % 7\n    yield 'noop'\n"


@measured
def test_a_correct_action_starved_of_cpu_gets_its_answer_in(make_worker, coded_action, state):
    """About 0.3 s of CPU for its first step; with a tenth of a CPU that takes longer than
    the 1 s limit in wall time: the answer still counts."""
    worker = make_worker([coded_action("work", WORK.format(n=6_000_000))], timeout_s=1.0)
    _throttle(worker, 0.1)
    t0 = time.monotonic()
    assert worker.start("work", state) == "noop"
    elapsed = time.monotonic() - t0
    assert elapsed > 1.0, f"not starved ({elapsed:.2f}s): the test proves nothing"
    assert worker.cpu_ns / 1e9 < 1.0 and worker.alive
    assert (worker._limits.throttled_ns() or 0) > 0, "the quota's hold is read"


@measured
def test_a_loop_that_never_yields_is_killed_for_its_cpu_even_when_starved(
    make_worker, coded_action, state
):
    spin = coded_action("spin", "    while True:\n        pass\n    yield 'noop'\n")
    worker = make_worker([spin], timeout_s=0.5)
    _throttle(worker, 0.25)
    t0 = time.monotonic()
    with pytest.raises(MacroError) as info:
        worker.start("spin", state)
    assert info.value.kind == "timeout" and "of CPU" in info.value.message
    assert time.monotonic() - t0 < 0.5 * WALL_SLACK + 2
    assert not worker.alive


@measured
def test_a_sleeping_worker_is_killed_soon_after_its_limit(make_worker, coded_action, state):
    """The OS layer alone (no gate): a sleep never answers and is not starvation."""
    sleeper = coded_action("nap", "    import time\n    time.sleep(60)\n    yield 'noop'\n")
    worker = make_worker([sleeper], timeout_s=1.0, gate=False)
    t0 = time.monotonic()
    with pytest.raises(MacroError) as info:
        worker.start("nap", state)
    assert info.value.kind == "timeout" and "asleep or blocked" in info.value.message
    assert time.monotonic() - t0 < 1.0 + 2 * 0.25 + 1.5


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs CPU affinity")
def test_a_correct_action_validated_on_a_busy_cpu_is_not_too_slow():
    """Eight busy loops share one CPU with the validation (host and worker, pinned there): it
    takes more wall time than `sandbox.timeout_s`, but the time it sat in the run queue is
    the machine's, not the action's (rlgpt/validation/validate.py, Budget). Each child pins
    itself (no fork-time hook in this process, which may hold JAX's threads).

    The limit is three times what the validation takes alone on that CPU (measured first, best
    of two), so a fast machine is tested too; eight loops slow its wall time about ninefold,
    well past it. The time charged is not exactly the time alone: a CPU shared nine ways also
    costs the action cache misses and context switches (1.6x alone was read in CI with four
    loops)."""
    cpu = min(os.sched_getaffinity(0))
    once = [sys.executable, str(REPO / "tests/support/validate_once.py")]

    def validate(limit: float, *pin: str) -> dict[str, float]:
        proc = subprocess.run([*once, str(limit), *pin], capture_output=True, text=True,
                              timeout=120)  # fmt: skip
        return json.loads(proc.stdout.strip().splitlines()[-1])

    runs = [validate(60.0, str(cpu)) for _ in range(2)]  # the first may meet cold caches
    assert all(r["ok"] for r in runs), runs
    limit = 3.0 * min(r["wall"] for r in runs)
    loop = f"import os\nos.sched_setaffinity(0, {{{cpu}}})\nwhile True:\n    pass\n"
    spin = [subprocess.Popen([sys.executable, "-c", loop]) for _ in range(8)]
    try:
        out = validate(limit, str(cpu))
    finally:
        for p in spin:
            p.kill()
            p.wait()
    assert out["wall"] > limit, f"the busy CPU did not slow it past {limit:.2f} s: {out}"
    assert out["ok"], out["message"]
