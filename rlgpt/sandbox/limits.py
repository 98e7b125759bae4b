"""Memory and process limits that hold across every process of one sandboxed worker.

Per-process rlimits (address space, file size, open files, CPU) are always set. On top, each
worker gets its own cgroup: cgroup v2 when a writable hierarchy has the memory and pids
controllers, else cgroup v1's memory and pids hierarchies. The memory limit then counts every
process of the worker and the pages of its tmpfs; the pids limit caps its processes and threads.
Where no cgroup is writable, RLIMIT_NPROC caps the processes of the worker's uid and the tmpfs
has a fixed size (bubblewrap's --size). Which mode is in force is probed once and logged.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import logging
import os
import resource
import signal
import time
from pathlib import Path

log = logging.getLogger(__name__)
CGROUP_ROOT = Path("/sys/fs/cgroup")
PIDS_MAX = 32
NPROC_FALLBACK = 256
_serial = itertools.count()


def _own_v1(controller: str) -> Path | None:
    """This process's cgroup v1 directory of `controller`, if that hierarchy is mounted."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            return CGROUP_ROOT / controller / path.lstrip("/")
    return None


def _own_v2() -> Path | None:
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        if line.startswith("0::"):
            base = CGROUP_ROOT if (CGROUP_ROOT / "cgroup.controllers").exists() else None
            if base is None:
                return None
            return base / line[3:].lstrip("/")
    return None


def _writable(path: Path | None) -> bool:
    if path is None or not path.is_dir():
        return False
    probe = path / f"rlgpt-probe-{os.getpid()}"
    try:
        probe.mkdir()
        probe.rmdir()
    except OSError:
        return False
    return True


def _sweep(base: Path | None) -> None:
    """Remove empty cgroups left by rlgpt processes that died without closing them."""
    if base is None:
        return
    for path in base.glob("rlgpt-*-*"):
        try:
            os.kill(int(path.name.split("-")[1]), 0)
        except ProcessLookupError:
            with contextlib.suppress(OSError):
                path.rmdir()
        except (ValueError, PermissionError):
            continue


@functools.cache
def mode() -> str:
    """'cgroup2', 'cgroup1' or 'rlimit' (logged once); sweeps cgroups of dead rlgpt runs."""
    for base in (_own_v2(), _own_v1("memory"), _own_v1("pids")):
        _sweep(base)
    v2 = _own_v2()
    if v2 is not None and _writable(v2):
        ctl = (v2 / "cgroup.controllers").read_text().split()
        if {"memory", "pids"} <= set(ctl):
            log.info("sandbox limits: cgroup v2 (memory.max, pids.max) under %s", v2)
            return "cgroup2"
    mem, pids = _own_v1("memory"), _own_v1("pids")
    if _writable(mem) and _writable(pids):
        log.info("sandbox limits: cgroup v1 (memory and pids) under %s and %s", mem, pids)
        return "cgroup1"
    log.warning("sandbox limits: no writable cgroup; RLIMIT_NPROC and a sized tmpfs instead")
    return "rlimit"


class Limits:
    """The limits of one worker. `enter()` runs in the child before exec (it joins the
    cgroups and sets the rlimits); `close()` removes the cgroups once the worker is dead."""

    def __init__(self, memory_mib: int, cpu_s: int | None) -> None:
        self.memory_mib = memory_mib
        self.cpu_s = cpu_s
        self.mode = mode()
        self.dirs: list[Path] = []
        name = f"rlgpt-{os.getpid()}-{next(_serial)}"
        limit = str(memory_mib << 20)
        if self.mode == "cgroup2":
            base = _own_v2()
            assert base is not None
            self._make(base / name, {"memory.max": limit, "memory.swap.max": "0",
                                     "pids.max": str(PIDS_MAX)})  # fmt: skip
        elif self.mode == "cgroup1":
            mem, pids = _own_v1("memory"), _own_v1("pids")
            assert mem is not None and pids is not None
            self._make(mem / name, {"memory.limit_in_bytes": limit,
                                    "memory.memsw.limit_in_bytes": limit})  # fmt: skip
            self._make(pids / name, {"pids.max": str(PIDS_MAX)})

    def _make(self, path: Path, values: dict[str, str]) -> None:
        path.mkdir()
        self.dirs.append(path)
        for key, value in values.items():
            with contextlib.suppress(OSError):  # e.g. memsw without swap accounting
                (path / key).write_text(value)

    def enter(self) -> None:
        """In the child, before exec: join the cgroups, then the per-process limits."""
        os.setsid()
        for path in self.dirs:
            (path / "cgroup.procs").write_text(str(os.getpid()))
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
        mem = self.memory_mib << 20
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if self.cpu_s is not None:
            resource.setrlimit(resource.RLIMIT_CPU, (self.cpu_s, self.cpu_s + 1))
        if self.mode == "rlimit":
            resource.setrlimit(resource.RLIMIT_NPROC, (NPROC_FALLBACK, NPROC_FALLBACK))

    def close(self) -> None:
        """Kill anything left in the cgroups, then remove them."""
        for path in self.dirs:
            procs = path / "cgroup.procs"
            with contextlib.suppress(OSError, ValueError):
                for pid in procs.read_text().split():
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.kill(int(pid), signal.SIGKILL)
            for _ in range(50):
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # its last process is still being reaped
                    time.sleep(0.01)
        self.dirs = []

    def peak_memory_bytes(self) -> int | None:
        """The most memory the worker's cgroup held (None without a cgroup)."""
        for path in self.dirs:
            for key in ("memory.peak", "memory.max_usage_in_bytes"):
                with contextlib.suppress(OSError, ValueError):
                    return int((path / key).read_text())
        return None
