"""The OS boundary on its own: full Python (no gate, real builtins) inside the worker, and what
it can see and do. Each program reports what it found by yielding it as a string, which comes
back in the invalid_action message."""

from __future__ import annotations

import os
import re
import time

import pytest

from rlgpt.errors import MacroError
from rlgpt.messages import CodedAction
from rlgpt.sandbox.boundary import bwrap_works, visible_paths
from rlgpt.sandbox.client import MacroWorker
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
    assert set(seen.split(",")) <= {"dev", "lib", "lib64", "proc", "python", "sandbox", "tmp"}
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


def test_tmpfs_is_size_limited():
    out = _report(
        "n = 0\ntry:\n    for i in range(200):\n"
        "        with open(f'/tmp/f{i}', 'wb') as f:\n            f.write(b'x' * (1 << 19))\n"
        "        n += 1 << 19\nexcept OSError:\n    pass\nyield str(n)"
    )
    assert int(out) <= 16 << 20


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
