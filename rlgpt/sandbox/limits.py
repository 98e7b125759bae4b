"""Memory, process and CPU limits that hold across every process of a sandboxed worker, and
across all the workers of one run.

Per-process rlimits (address space, file size, open files, queued signals, message queues,
locked memory, CPU while validating) are always set. On top, the workers of one rlgpt process
(a run) share one cgroup, `rlgpt-<pid>`, that caps their memory and processes together, and
each worker has its own cgroup inside it: its memory, at most PIDS_MAX processes, one CPU's
worth of time (a process it leaves running cannot take more), and a CPU-time counter the host
reads around each call (rlgpt/sandbox/client.py) to tell how much CPU a step cost and whether
the worker burned CPU while it should have been idle. cgroup v2 when a writable hierarchy
gives those controllers, else cgroup v1's memory, pids, cpu and cpuacct hierarchies. Where no
cgroup is writable, RLIMIT_NPROC caps the processes of the worker's uid and RLIMIT_CPU the
CPU of each process, and the CPU is read from /proc for the worker's process tree (its live
processes and the children they reaped; a process that leaves the tree, as a daemon does
outside bubblewrap's PID namespace, is no longer counted). Which mode is in force is probed
once and logged.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import itertools
import logging
import os
import signal
import time
from pathlib import Path

log = logging.getLogger(__name__)
CGROUP_ROOT = Path("/sys/fs/cgroup")
PIDS_MAX = 8  # bubblewrap, its init, the worker, and a few children a test may fork
RUN_PIDS_MAX = 256
NPROC_FALLBACK = 256
CPU_PERIOD_US = 100_000
IDLE_CPU_S = 3600  # rlimit mode, training: a process left burning dies after this much CPU
TREE_MAX = 64  # processes of a worker's tree read for its CPU (rlimit mode), at most
_TICK_NS = 1_000_000_000 // os.sysconf("SC_CLK_TCK")
_serial = itertools.count()


def _own(controller: str | None) -> Path | None:
    """This process's cgroup directory: cgroup v2 (controller None) or v1's `controller`."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controller is None and controllers == "":
            if not (CGROUP_ROOT / "cgroup.controllers").exists():
                return None
            return CGROUP_ROOT / path.lstrip("/")
        if controller is not None and controller in controllers.split(","):
            return CGROUP_ROOT / controllers / path.lstrip("/")
    return None


def _write(path: Path, value: str) -> bool:
    try:
        path.write_text(value)
    except OSError:
        return False
    return True


def _probe(base: Path | None, files: tuple[str, ...]) -> bool:
    """Whether a child cgroup made under `base` gets `files` (its controllers are on)."""
    if base is None or not base.is_dir():
        return False
    probe = base / f"rlgpt-probe-{os.getpid()}"
    try:
        probe.mkdir()
    except OSError:
        return False
    try:
        return all((probe / f).exists() for f in files)
    finally:
        with contextlib.suppress(OSError):
            probe.rmdir()


def _sweep(base: Path | None) -> None:
    """Remove the cgroups of rlgpt processes that died without removing them."""
    if base is None:
        return
    for path in base.glob("rlgpt-*"):
        try:
            os.kill(int(path.name.split("-")[1]), 0)
        except ProcessLookupError:
            for child in [*path.glob("w*"), path]:
                with contextlib.suppress(OSError):
                    child.rmdir()
        except (ValueError, PermissionError, IndexError):
            continue


def tree_cpu_ns(root: int) -> int | None:
    """CPU used so far by `root` and its descendants (user and system time, and that of the
    children they reaped), from /proc; None where `root` cannot be read."""
    total, seen, todo = 0, 0, [root]
    while todo and seen < TREE_MAX:
        pid = todo.pop()
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                stat = f.read()
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            if pid == root:
                return None
            continue
        seen += 1
        fields = stat[stat.rindex(b")") + 2 :].split()
        total += sum(int(v) for v in fields[11:15])  # utime, stime, cutime, cstime
        for tid in tasks:
            with (
                contextlib.suppress(OSError, ValueError),
                open(f"/proc/{pid}/task/{tid}/children", "rb") as f,
            ):
                todo.extend(int(c) for c in f.read().split())
    return total * _TICK_NS


@functools.cache
def mode() -> str:
    """'cgroup2', 'cgroup1' or 'rlimit' (logged once); sweeps cgroups of dead rlgpt runs."""
    for base in (_own(None), *(_own(c) for c in ("memory", "pids", "cpu", "cpuacct"))):
        _sweep(base)
    if _probe(_own(None), ("memory.max", "pids.max")):
        log.info("sandbox limits: cgroup v2 under %s", _own(None))
        return "cgroup2"
    if _probe(_own("memory"), ("memory.limit_in_bytes",)) and _probe(_own("pids"), ("pids.max",)):
        log.info("sandbox limits: cgroup v1 (memory, pids, cpu, cpuacct)")
        return "cgroup1"
    log.warning(
        "sandbox limits: no writable cgroup; RLIMIT_NPROC and RLIMIT_CPU instead, and "
        "CPU between calls is not measured"
    )
    return "rlimit"


@functools.cache
def _run_groups() -> dict[str, Path]:
    """This process's run-level cgroups by controller ('' for v2), made once, removed at exit
    (once its workers' groups are gone)."""
    name = f"rlgpt-{os.getpid()}"
    if mode() == "cgroup2":
        own = _own(None)
        assert own is not None
        groups = {"": own / name}
    else:
        found = {c: _own(c) for c in ("memory", "pids", "cpu", "cpuacct")}
        groups = {c: base / name for c, base in found.items() if base is not None}
    for path in groups.values():
        with contextlib.suppress(FileExistsError):
            path.mkdir()
    for controller in ("memory", "pids", "cpu") if "" in groups else ():
        _write(groups[""] / "cgroup.subtree_control", f"+{controller}")  # one by one: any may fail
    atexit.register(_remove_run_groups, list(groups.values()))
    return groups


def _remove_run_groups(paths: list[Path]) -> None:
    for path in paths:
        with contextlib.suppress(OSError):
            path.rmdir()


class Limits:
    """The limits of one worker. `enter()` runs in the child before exec (it joins the
    cgroups and sets the rlimits); `close()` removes the worker's cgroups once it is dead."""

    def __init__(self, memory_mib: int, cpu_s: int | None, run_memory_mib: int = 0) -> None:
        self.memory_mib = memory_mib
        self.cpu_s = cpu_s
        self.mode = mode()
        self.dirs: list[Path] = []
        self._usage: tuple[int, bool] | None = None  # (fd, microseconds in cpu.stat)
        self.root: int | None = None  # the worker's first process (its tree's CPU: no cgroup)
        if self.mode == "rlimit":
            return
        groups = _run_groups()
        name = f"w{next(_serial)}"
        if run_memory_mib:
            memory_mib = min(memory_mib, run_memory_mib)
        limit, run_limit = str(memory_mib << 20), str(run_memory_mib << 20)
        if self.mode == "cgroup2":
            run = groups[""]
            if run_memory_mib:
                _write(run / "memory.max", run_limit)
            _write(run / "pids.max", str(RUN_PIDS_MAX))
            self._make(run / name, {"memory.max": limit, "memory.swap.max": "0",
                                    "pids.max": str(PIDS_MAX),
                                    "cpu.max": f"{CPU_PERIOD_US} {CPU_PERIOD_US}"})  # fmt: skip
            self._open_usage(run / name / "cpu.stat", True)
            return
        # memsw may never be below the memory limit: in this order, raising and lowering work
        for key in ("memory.limit_in_bytes", "memory.memsw.limit_in_bytes")[::-1] * 2:
            if run_memory_mib:
                _write(groups["memory"] / key, run_limit)
        _write(groups["pids"] / "pids.max", str(RUN_PIDS_MAX))
        self._make(
            groups["memory"] / name,
            {"memory.limit_in_bytes": limit, "memory.memsw.limit_in_bytes": limit},
        )
        self._make(groups["pids"] / name, {"pids.max": str(PIDS_MAX)})
        if "cpu" in groups:
            self._make(groups["cpu"] / name, {"cpu.cfs_quota_us": str(CPU_PERIOD_US)}, True)
        acct = groups["cpuacct"] / name if "cpuacct" in groups else None
        if acct is not None and (acct in self.dirs or self._make(acct, {}, True)):
            self._open_usage(acct / "cpuacct.usage", False)  # one dir where cpu,cpuacct share

    def _make(self, path: Path, values: dict[str, str], optional: bool = False) -> bool:
        try:
            path.mkdir()
        except OSError:
            if not optional:
                raise
            return False
        self.dirs.append(path)
        for key, value in values.items():
            _write(path / key, value)  # e.g. memsw without swap accounting: not there
        return True

    def _open_usage(self, path: Path, usec: bool) -> None:
        with contextlib.suppress(OSError):
            self._usage = (os.open(path, os.O_RDONLY | os.O_CLOEXEC), usec)

    def cpu_ns(self) -> int | None:
        """CPU time all of the worker's processes used so far (None where not measured): its
        cgroup's counter, else its process tree's (`root`)."""
        if self._usage is None:
            return None if self.root is None else tree_cpu_ns(self.root)
        fd, usec = self._usage
        try:
            data = os.pread(fd, 4096, 0)
        except OSError:
            return None
        if not usec:
            return int(data)
        first = data.split(b"\n", 1)[0].split()  # "usage_usec N"
        return int(first[1]) * 1000 if len(first) == 2 else None

    def throttled_ns(self) -> int | None:
        """Time the worker's cgroup was held back by its CPU quota so far (cpu.stat's
        throttled_usec on cgroup v2, throttled_time on v1); None where not measured."""
        for path in self.dirs:
            with contextlib.suppress(OSError, ValueError):
                for line in (path / "cpu.stat").read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key == "throttled_usec":
                        return int(value) * 1000
                    if key == "throttled_time":
                        return int(value)
        return None

    def pids(self) -> list[int]:
        """The worker's processes, as the host sees them (empty without a cgroup)."""
        for path in self.dirs[:1]:
            with contextlib.suppress(OSError, ValueError):
                return [int(p) for p in (path / "cgroup.procs").read_text().split()]
        return []

    def plan(self) -> dict[str, list[str] | list[list[object]]]:
        """What the launcher (rlgpt/sandbox/launch.py) applies in the worker's first process
        before exec: the cgroups it joins and its per-process limits."""
        mem = self.memory_mib << 20
        rlimits: list[list[object]] = [
            ["RLIMIT_FSIZE", 1 << 20, 1 << 20], ["RLIMIT_NOFILE", 64, 64],
            ["RLIMIT_AS", mem, mem], ["RLIMIT_CORE", 0, 0],
            # per-user kernel budgets: a worker may hold only a sliver of its uid's share
            ["RLIMIT_SIGPENDING", 64, 64], ["RLIMIT_MSGQUEUE", 0, 0], ["RLIMIT_MEMLOCK", 0, 0],
        ]  # fmt: skip
        cpu = self.cpu_s if self.cpu_s is not None else (IDLE_CPU_S if not self.dirs else None)
        if cpu is not None:
            rlimits.append(["RLIMIT_CPU", cpu, cpu + 1])
        if self.mode == "rlimit":
            rlimits.append(["RLIMIT_NPROC", NPROC_FALLBACK, NPROC_FALLBACK])
        return {"cgroups": [str(p) for p in self.dirs], "rlimits": rlimits}

    def close(self) -> None:
        """Kill anything left in the cgroups, then remove them."""
        if self._usage is not None:
            with contextlib.suppress(OSError):
                os.close(self._usage[0])
            self._usage = None
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
