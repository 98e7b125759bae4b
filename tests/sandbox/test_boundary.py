"""The OS boundary on its own: full Python (no gate, real builtins) inside the worker, and what
it can see and do. Each program reports what it found by yielding it as a string, which comes
back in the invalid_action message."""

from __future__ import annotations

import ctypes
import os
import re
import time
from pathlib import Path

import pytest

from rlgpt.errors import MacroError
from rlgpt.messages import CodedAction
from rlgpt.sandbox import limits
from rlgpt.sandbox.boundary import bwrap_works, visible_paths
from rlgpt.sandbox.client import BURST_CPU_NS, MacroWorker
from rlgpt.sandbox.limits import PIDS_MAX
from tests.support.world import CRAFTER_SKILLS

pytestmark = pytest.mark.skipif(not bwrap_works(), reason="needs bubblewrap and libseccomp")


def _report(body: str, *, memory_mib: int = 1024, timeout_s: float = 20.0) -> str:
    """Run `body` (the inside of `def act(view):`) with the gate off; what it yielded."""
    source = "def act(view):\n" + "".join(f"    {ln}\n" for ln in body.strip().splitlines())
    worker = MacroWorker([CodedAction(name="act", docstring="", source=source)], CRAFTER_SKILLS,
                         gate=False,
                         memory_mib=memory_mib, timeout_s=timeout_s)  # fmt: skip
    try:
        worker.start("act", {"local": "00"})
    except MacroError as exc:
        m = re.search(r"yielded '(.*)', which is not an action", exc.message)
        assert m, exc.message
        return m.group(1)
    finally:
        worker.close()
    raise AssertionError("the probe yielded a real action")


def test_the_root_holds_only_the_interpreter_its_libraries_and_the_worker_code():
    seen = _report("import os\nyield ','.join(sorted(os.listdir('/')))")
    assert set(seen.split(",")) <= {"dev", "lib", "lib64", "python", "sandbox", "tmp"}
    assert _report("import os\nyield ','.join(sorted(os.listdir('/dev')))") == (
        "full,null,random,urandom,zero"
    ), "no ptmx, no pts, no shm, no tty"
    sandbox = _report("import os\nyield ','.join(sorted(os.listdir('/sandbox/rlgpt')))")
    assert set(sandbox.split(",")) == {"__init__.py", "sandbox", "worlds"}
    skills = _report(
        "import os\nyield ','.join(sorted(os.listdir('/sandbox/rlgpt/worlds/crafter')))"
    )
    assert set(skills.split(",")) == {"__init__.py", "skills"}, "only the skill package"
    libs = _report("import os\nyield ','.join(sorted(os.listdir('/lib')))")
    assert {"libc.so.6", "libm.so.6"} <= set(libs.split(",")) and len(libs.split(",")) <= 8
    assert "/python/lib/python3" in " ".join(visible_paths(CRAFTER_SKILLS.package))


def test_no_socket_of_any_family_and_no_network():
    out = _report(
        "import socket\nerrs = []\n"
        "for fam in (socket.AF_UNIX, socket.AF_INET, socket.AF_INET6, socket.AF_NETLINK):\n"
        "    try:\n        socket.socket(fam, socket.SOCK_DGRAM)\n        errs.append('open')\n"
        "    except OSError as e:\n        errs.append(str(e.errno))\nyield ','.join(errs)"
    )
    assert out == "1,1,1,1", out  # EPERM from the seccomp filter, whatever the family


def test_root_cannot_be_regained_and_the_uid_is_nobody():
    out = _report(
        "import os\ntry:\n    os.setuid(0)\n    r = 'root'\nexcept OSError:\n    r = 'no'\n"
        "yield f'{os.getuid()},{os.geteuid()},{r}'"
    )
    uid, euid, regained = out.split(",")
    assert regained == "no"
    if os.geteuid() == 0:
        assert (uid, euid) == ("65534", "65534")


def test_no_proc_and_nothing_writable_so_nothing_written_runs():
    out = _report(
        "import os\nfound = []\n"
        "for path in ('/proc/1/cmdline', '/proc/self/mountinfo', '/proc/sys/kernel/hostname',"
        " '/proc/sysrq-trigger'):\n"
        "    found.append(str(os.path.exists(path)))\n"
        "for path in ('/tmp/x', '/x', '/dev/x', '/sandbox/x', '/python/x'):\n"
        "    try:\n        open(path, 'w').close()\n        found.append('wrote ' + path)\n"
        "    except OSError as e:\n        found.append(str(e.errno))\n"
        "fd = os.memfd_create('x')\nos.write(fd, open('/python/bin/python3.11', 'rb').read())\n"
        "try:\n    os.execve(fd, ['x', '-c', 'pass'], {})\nexcept OSError as e:\n"
        "    found.append('exec ' + str(e.errno))\n"
        "yield ','.join(found)"
    )
    assert out.split(",")[:4] == ["False"] * 4, out
    assert out.split(",")[4:9] == ["30"] * 5, out  # EROFS everywhere, /tmp included
    assert out.split(",")[9] in ("exec 1", "exec 2"), out  # execveat denied, no /proc path
    assert str(Path(__file__).resolve().parents[2]) not in out


def test_process_count_is_capped():
    out = _report(
        "import os, time\nn = 0\nfor _ in range(200):\n    try:\n        pid = os.fork()\n"
        "    except OSError:\n        break\n    if pid == 0:\n        time.sleep(30)\n"
        "        os._exit(0)\n    n += 1\nyield f'forked {n}'"
    )
    assert int(out.split()[1]) < PIDS_MAX


def test_memory_limit_holds_across_processes():
    """Three children of 200 MiB each, under each process's own limit, exceed the worker's
    256 MiB together: the cgroup stops them (the kernel kills one), not the per-process
    limit."""
    out = _report(
        "import os, time\npids = []\nfor _ in range(3):\n    pid = os.fork()\n"
        "    if pid == 0:\n        hog = bytearray(200 << 20)\n"
        "        for i in range(0, len(hog), 4096):\n            hog[i] = 1\n"
        "        time.sleep(2)\n        os._exit(0)\n    pids.append(pid)\n"
        "codes = [os.waitpid(p, 0)[1] for p in pids]\nyield ','.join(map(str, codes))",
        memory_mib=256,
    )
    codes = [int(c) for c in out.split(",")]
    assert any(c != 0 for c in codes), "not all three could hold their memory"


def test_a_dripping_worker_is_cut_off_at_the_total_deadline():
    source = (
        "import os\nimport sys\nimport time\n\ndef act(view):\n    while True:\n"
        "        os.write(int(sys.argv[2]), b' ')\n        time.sleep(0.5)\n    yield 'noop'\n"
    )
    worker = MacroWorker([CodedAction(name="act", docstring="", source=source)], CRAFTER_SKILLS,
                         gate=False,
                         timeout_s=2.0)  # fmt: skip
    t0 = time.monotonic()
    with pytest.raises(MacroError) as info:
        worker.start("act", {"local": "00"})
    assert info.value.kind == "timeout"
    assert time.monotonic() - t0 < 3.5
    assert not worker.alive


def _as_nobody_on_the_host() -> tuple[int, int]:
    """What a host process of uid 65534 gets now: (inotify instances, ptys), one of each."""
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.setgroups([])
            os.setresgid(65534, 65534, 65534)
            os.setresuid(65534, 65534, 65534)
            fd = ctypes.CDLL(None, use_errno=True).inotify_init1(0)
            code |= 1 if fd >= 0 else 0
            try:
                os.openpty()
                code |= 2
            except OSError:
                pass
        finally:
            os._exit(code)
    status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    return status & 1, (status & 2) >> 1


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to act as uid 65534 on the host")
def test_a_worker_cannot_starve_the_hosts_uid_65534_of_ptys_or_inotify():
    """The worker is uid 65534 on the host (no user namespace as root), but it can reach no pty
    (no ptmx) and no inotify (seccomp): while it holds what it could get, a host process of
    the same uid still gets both."""
    source = (
        "import os\nHELD = []\n\ndef act(view):\n    for _ in range(3000):\n"
        "        try:\n            HELD.append(os.openpty())\n        except OSError:\n"
        "            break\n    yield f'ptys {len(HELD)}'\n    yield 'noop'\n"
    )  # fmt: skip
    worker = MacroWorker(
        [CodedAction(name="act", docstring="", source=source)], CRAFTER_SKILLS, gate=False
    )
    try:
        with pytest.raises(MacroError, match="ptys 0"):
            worker.start("act", {"local": "00"})
        assert _as_nobody_on_the_host() == (1, 1)
    finally:
        worker.close()


def test_memory_is_bounded_per_run_across_workers():
    """Two workers of one run, each under its own 1 GiB, cannot hold 2 x 200 MiB when the run
    may hold 300 MiB in all."""
    if limits.mode() == "rlimit":
        pytest.skip("no writable cgroup here")
    body = (
        "HOG = bytearray(200 << 20)\nfor i in range(0, len(HOG), 4096):\n    HOG[i] = 1\n\n"
        "def act(view):\n    yield 'noop'\n"
    )  # fmt: skip
    action = CodedAction(name="act", docstring="", source=body)
    held = []
    try:
        for _ in range(2):
            try:
                held.append(MacroWorker([action], CRAFTER_SKILLS, gate=False, run_memory_mib=300))
            except MacroError:
                continue
        alive = [w for w in held if w.alive and not w.load_errors]
        assert len(alive) < 2, "both held their 200 MiB"
    finally:
        for worker in held:
            worker.close()


def test_cpu_used_between_calls_stops_the_worker():
    """A child left burning a core between calls is seen at the next call, and killed."""
    if limits.mode() == "rlimit":
        pytest.skip("no writable cgroup here: CPU is not measured")
    source = (
        "import os\n\ndef act(view):\n    if os.fork() == 0:\n        while True:\n"
        "            pass\n    while True:\n        yield 'noop'\n"
    )  # fmt: skip
    worker = MacroWorker(
        [CodedAction(name="act", docstring="", source=source)], CRAFTER_SKILLS, gate=False
    )
    try:
        assert worker.start("act", {"local": "00"}) == "noop"
        time.sleep(0.6)
        with pytest.raises(MacroError) as info:
            worker.next({"local": "00"})
        assert info.value.kind == "cpu" and "between calls" in info.value.message
        assert not worker.alive
    finally:
        worker.close()


def test_cpu_per_step_over_the_budget_stops_the_worker():
    if limits.mode() == "rlimit":
        pytest.skip("no writable cgroup here: CPU is not measured")
    source = (
        "def act(view):\n    while True:\n        n = 0\n        for i in range(300_000):\n"
        "            n += i\n        yield 'noop'\n"
    )  # fmt: skip
    worker = MacroWorker(
        [CodedAction(name="act", docstring="", source=source)], CRAFTER_SKILLS, step_cpu_ms=5
    )
    try:
        with pytest.raises(MacroError) as info:
            worker.start("act", {"local": "00"})
            for _ in range(100):
                worker.next({"local": "00"})
        assert info.value.kind == "cpu" and "ms of CPU per step" in info.value.message
        assert "beyond a one-off" in info.value.message
        over = worker.cpu_ns - worker.steps * 5_000_000  # judged from the first step:
        assert over > BURST_CPU_NS and worker.steps < 100, (over, worker.steps)  # once it ran
        # up more than the one-off allowance, not after a fixed number of steps
    finally:
        worker.close()
