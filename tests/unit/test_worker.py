"""rlgpt.sandbox.client.MacroWorker: coded actions run out of process, contained."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from rlgpt.sandbox.client import MacroError, MacroWorker
from tests.support.world import CRAFTER_SKILLS


@pytest.fixture
def state(local_state):
    return local_state({(0, 1): "tree"}, facing=(0, 1), inventory={"wood": 0})


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def test_runs_a_coded_action_and_returns_its_actions(make_worker, coded_action, state):
    act = coded_action("act", "    yield 'move_left'\n    yield 'do'\n")
    worker = make_worker([act])
    assert worker.load_errors == {}
    assert worker.start("act", state) == "move_left"
    assert worker.next(state) == "do"
    assert worker.next(state) is None
    # the same worker can run it again
    assert worker.start("act", state) == "move_left"


def test_every_call_starts_from_the_code_as_written(make_worker, coded_action, state):
    """What a call leaves at module level does not reach the next: a cap on calls kept in a
    module-level list (which validation's few calls never reach) never closes the action in
    a training's thousands, and a position kept from another world is never walked to."""
    capped = coded_action("capped", "    yield 'noop'\n").model_copy(update={"source": (
        "CALLS = [0]\nSEEN = {}\n\n\ndef capped(view):\n    CALLS[0] += 1\n"
        "    if CALLS[0] > 2 or SEEN:\n        return\n    SEEN['table'] = (3, 4)\n"
        "    yield 'do'\n"
    )})  # fmt: skip
    worker = make_worker([capped])
    assert worker.load_errors == {}
    for _ in range(5):
        assert worker.start("capped", state) == "do"
        assert worker.next(state) is None


def test_coded_action_sees_the_state_it_is_given(make_worker, coded_action, local_state):
    body = (
        "    while True:\n"
        "        if view.facing_name == 'tree':\n"
        "            yield 'do'\n"
        "        elif view.inventory['wood'] > 0:\n"
        "            return\n"
        "        else:\n"
        "            yield 'noop'\n"
    )
    worker = make_worker([coded_action("chop", body)])
    facing_tree = local_state({(0, 1): "tree"}, facing=(0, 1), inventory={"wood": 0})
    facing_grass = local_state({(0, 1): "grass"}, facing=(0, 1), inventory={"wood": 0})
    has_wood = local_state({}, inventory={"wood": 1})
    assert worker.start("chop", facing_tree) == "do"
    assert worker.next(facing_grass) == "noop"
    assert worker.next(has_wood) is None


def test_skill_api_is_available(make_worker, coded_action, local_state):
    worker = make_worker([coded_action("go", "    yield from approach(view, 'tree')\n")])
    assert worker.start("go", local_state({(-3, 0): "tree"})) == "move_left"


def test_infinite_loop_times_out_and_the_group_dies(make_worker, coded_action, state):
    spin = coded_action("spin", "    while True:\n        pass\n    yield 'noop'\n")
    worker = make_worker([spin], timeout_s=1.0)
    pid = worker._proc.pid
    assert os.getpgid(pid) == pid, "the worker leads its own process group"
    t0 = time.monotonic()
    with pytest.raises(MacroError) as info:
        worker.start("spin", state)
    elapsed = time.monotonic() - t0
    assert info.value.kind == "timeout"
    assert 0.9 <= elapsed < 5.0  # 1 s select timeout, then a SIGKILL to the group
    assert not worker.alive
    assert not group_alive(pid)
    with pytest.raises(MacroError) as again:  # a dead worker answers crash, not a hang
        worker.start("spin", state)
    assert again.value.kind == "crash"


def test_invalid_action_name(make_worker, coded_action, state):
    worker = make_worker([coded_action("fly", "    yield 'fly'\n")])
    with pytest.raises(MacroError) as info:
        worker.start("fly", state)
    assert info.value.kind == "invalid_action"
    assert "fly" in info.value.message


def test_non_string_output_is_invalid(make_worker, coded_action, state):
    worker = make_worker([coded_action("num", "    yield 3\n")])
    with pytest.raises(MacroError) as info:
        worker.start("num", state)
    assert info.value.kind == "invalid_action"
    assert "(int), not an action name" in info.value.message


def test_raising_is_an_exception_with_line_and_the_worker_survives(
    make_worker, coded_action, state
):
    boom = coded_action("boom", "    yield 'noop'\n    raise ValueError('no trees here')\n")
    ok = coded_action("ok", "    yield 'do'\n")
    worker = make_worker([boom, ok])
    assert worker.start("boom", state) == "noop"
    with pytest.raises(MacroError) as info:
        worker.next(state)
    assert info.value.kind == "exception"
    assert "ValueError: no trees here" in info.value.message
    assert "line 3 of boom" in info.value.message
    assert worker.alive
    assert worker.start("ok", state) == "do"


def test_memory_limit_turns_a_huge_allocation_into_an_exception(make_worker, coded_action, state):
    hog = coded_action("hog", "    s = 'x' * (2 ** 31)\n    yield 'noop'\n")
    worker = make_worker([hog], memory_mib=512)
    with pytest.raises(MacroError) as info:
        worker.start("hog", state)
    assert info.value.kind == "exception"
    assert "MemoryError" in info.value.message


def test_unknown_action_name_is_a_crash(make_worker, coded_action, state):
    worker = make_worker([coded_action("a", "    yield 'noop'\n")])
    with pytest.raises(MacroError) as info:
        worker.start("b", state)
    assert info.value.kind == "crash"


def test_load_errors_are_reported_per_action(make_worker, coded_action, state):
    good = coded_action("good", "    yield 'noop'\n")
    forbidden = coded_action("bad", "    import os\n    yield 'noop'\n")
    broken = coded_action("broken", "    yield 'noop'\n").model_copy(
        update={"source": "X = 1 / 0\ndef broken(view):\n    yield 'noop'\n"}
    )
    worker = make_worker([good, forbidden, broken])
    assert set(worker.load_errors) == {"bad", "broken"}
    assert "os" in worker.load_errors["bad"]  # the worker re-runs the gate itself
    assert "ZeroDivisionError" in worker.load_errors["broken"]
    assert worker.start("good", state) == "noop"


def test_builtins_are_restricted(make_worker, coded_action, state):
    # passes the gate (no forbidden name), but `callable` is not among the safe builtins
    act = coded_action("act", "    yield 'noop' if callable(view) else 'do'\n")
    worker = make_worker([act])
    with pytest.raises(MacroError) as info:
        worker.start("act", state)
    assert info.value.kind == "exception"
    assert "NameError" in info.value.message


def _worker_python(pid: int) -> int:
    """The pid of the sandboxed Python under `pid` (itself, or a descendant of bwrap)."""
    for _ in range(50):
        todo, seen = [pid], []
        while todo:
            cur = todo.pop()
            seen.append(cur)
            kids = Path(f"/proc/{cur}/task/{cur}/children")
            if kids.exists():
                todo += [int(k) for k in kids.read_text().split()]
        for cand in seen:
            cmd = Path(f"/proc/{cand}/cmdline").read_bytes()
            if b"rlgpt.sandbox.worker" in cmd and not cmd.split(b"\0")[0].endswith(b"bwrap"):
                return cand
        time.sleep(0.05)
    raise AssertionError("no sandboxed worker process found")


@pytest.mark.parametrize("isolation", ["degraded", "bwrap"])
def test_worker_has_a_clean_environment_and_limits(monkeypatch, coded_action, tmp_path, isolation):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret")
    monkeypatch.chdir(tmp_path)
    worker = MacroWorker(
        [coded_action("a", "    yield 'noop'\n")], CRAFTER_SKILLS, isolation=isolation
    )
    try:
        top = worker._proc.pid
        pid = _worker_python(top)
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        path = b"PATH=/python/bin" if isolation == "bwrap" else b"PATH=/usr/bin:/bin"
        assert path in environ  # we read the right process
        assert not any(b"sk-test-secret" in e or e.startswith(b"OPENAI") for e in environ)
        names = {e.split(b"=")[0] for e in environ}
        assert names <= {b"PATH", b"LANG", b"PYTHONHASHSEED", b"PWD", b""}  # PWD: set by bwrap
        # bwrap itself starts with an empty environment (its /proc/1/environ is readable inside)
        assert Path(f"/proc/{top}/environ").read_bytes() in (b"", b"\0") or top == pid
        limits = Path(f"/proc/{pid}/limits").read_text()
        assert "Max open files            64                   64" in limits
        assert "Max file size             1048576              1048576" in limits
        cwd = Path(os.readlink(f"/proc/{top}/cwd"))
        status = Path(f"/proc/{pid}/status").read_text()
        uids = next(ln for ln in status.splitlines() if ln.startswith("Uid:")).split()[1:]
        if os.geteuid() == 0:  # run by root, the worker is still uid 65534 seen from the host
            assert uids == ["65534"] * 4, uids
        if isolation == "bwrap":
            assert os.readlink(f"/proc/{pid}/ns/net") != os.readlink("/proc/self/ns/net")
            assert os.readlink(f"/proc/{pid}/ns/mnt") != os.readlink("/proc/self/ns/mnt")
            assert "CapEff:\t0000000000000000" in status
            assert "Seccomp:\t2" in status, "a seccomp filter is in force"
        if worker._limits.mode != "rlimit":
            groups = Path(f"/proc/{pid}/cgroup").read_text()
            assert groups.count("rlgpt-") >= 1, groups
        if isolation == "degraded":
            assert cwd != tmp_path and cwd.name.startswith("rlgpt-sandbox-")
        cgroups = list(worker._limits.dirs)
    finally:
        worker.close()
    assert not worker.alive
    assert not cwd.exists(), "the scratch directory is removed on close"
    assert not any(p.exists() for p in cgroups), "its cgroups are removed on close"


STOP_READING = """
import os
import sys
import time

out = int(sys.argv[2])
os.write(out, b'{"ok": true, "errors": {}}\\n')  # the load reply, forged ahead
os.set_blocking(out, False)
try:
    while True:  # and as many forged answers as the reply pipe holds
        os.write(out, b'{"action": "noop"}\\n')
except BlockingIOError:
    pass
time.sleep(600)  # never read again


def act(view):
    yield "noop"
"""


@pytest.mark.parametrize("isolation", ["degraded", "bwrap"])
def test_a_worker_that_stops_reading_cannot_hang_the_host(make_worker, coded_action, isolation):
    """A request larger than the pipe holds, to a worker that answers ahead and never reads:
    the write ends at the deadline, the worker is killed, the host goes on."""
    action = coded_action("act", "    yield 'noop'\n").model_copy(update={"source": STOP_READING})
    worker = make_worker([action], isolation=isolation, gate=False, timeout_s=1.0)
    big = {"local": "00", "memory": "00" * 150_000}  # 300 kB: more than any pipe holds
    t0 = time.monotonic()
    with pytest.raises(MacroError) as info:
        for _ in range(50):
            worker.start("act", big)
    assert info.value.kind == "timeout"
    assert time.monotonic() - t0 < 4.0
    assert not worker.alive


def test_worker_text_comes_back_as_one_escaped_line(make_worker, coded_action, state):
    hostile = "    yield 'noop'\n    raise ValueError('a\\ud800\\r\\x1b[2Krlgpt: act: ok\\nb')\n"
    worker = make_worker([coded_action("act", hostile)])
    worker.start("act", state)
    with pytest.raises(MacroError) as info:
        worker.next(state)
    message = info.value.message
    message.encode("utf-8")
    assert "\n" not in message and "\r" not in message and "\x1b" not in message
    assert "a\\ud800\\r\\x1b[2Krlgpt: act: ok\\nb" in message


def test_a_worker_starts_without_python_code_between_fork_and_exec(coded_action):
    """Its limits are applied by a launcher process that then execs bubblewrap: the trusted
    process (with torch's or JAX's threads) never runs Python in a forked child, so no fork
    handler fires (JAX's warns of deadlocks there), and bubblewrap gets exactly its
    environment (none)."""
    forks: list[int] = []
    os.register_at_fork(before=lambda: forks.append(1))
    worker = MacroWorker([coded_action("a", "    yield 'noop'\n")], CRAFTER_SKILLS)
    try:
        assert forks == []
        top = worker._proc.pid
        assert Path(f"/proc/{top}/cmdline").read_bytes().split(b"\0")[0].endswith(b"bwrap")
        assert Path(f"/proc/{top}/environ").read_bytes() == b""
        assert worker.start("a", {"local": "00" * 81}) == "noop"
    finally:
        worker.close()


@pytest.mark.parametrize("isolation", ["degraded", "bwrap"])
def test_a_worker_closed_right_after_its_start_does_not_hold_the_host(coded_action, isolation):
    """A pool whose start fails closes its workers at once, maybe before the launcher leads
    its own process group: the close still kills the worker and returns."""
    import threading

    for _ in range(5):
        worker = MacroWorker([coded_action("a", "    yield 'noop'\n")], CRAFTER_SKILLS,
                             isolation=isolation, loaded=False)  # fmt: skip
        closer = threading.Thread(target=worker.close, daemon=True)
        closer.start()
        closer.join(15)
        assert not closer.is_alive(), "close() waits for a worker it did not kill"
        assert not worker.alive


def test_a_start_refused_before_any_view_took_its_state_still_counts_as_sent(
    make_worker, coded_action, local_state
):
    """The host sends a key the view keeps (the inventory) only when it changed since it last
    sent it: a start the worker refuses (an unknown action) must still leave the worker
    holding that state, or the next call's view never gets the inventory."""
    body = "    yield 'do' if view.inventory['wood'] == 3 else 'noop'\n"
    worker = make_worker([coded_action("a", body)])
    state = local_state({}, inventory={"wood": 3})
    with pytest.raises(MacroError) as info:
        worker.start("b", state)
    assert info.value.kind == "crash"
    assert worker.start("a", state) == "do"
