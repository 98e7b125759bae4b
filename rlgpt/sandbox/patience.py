"""Whose fault a late reply is: the code's, or a busy machine's.

A wall-clock deadline judges the machine, not the code: on a starved machine a correct coded
action can miss it (its worker is runnable but gets no CPU), and validation would then exclude
it, so a run's action space would depend on what else the machine was doing. So when a reply
is late, the host looks at what the worker did before it gives up:

- where its cgroup counts CPU, a worker that used `limit` seconds of CPU in the call is a
  loop that never yields: killed, however busy the machine is;
- where the kernel keeps per-process scheduler statistics (/proc/PID/schedstat), the host
  watches the worker's processes for a short interval at a time: if none of them ran or
  waited in the run queue for even RUNNABLE_SHARE of it, the worker is asleep or blocked (a
  drip, a stalled pipe) and will not answer: killed; otherwise it is working, or starved by
  other processes or by a CPU quota (time throttled by a quota shows as neither, so the time
  the worker's own cgroup was throttled counts as waiting: a quota can hold a worker back
  for longer than a look after it overran; an ancestor's quota, a container's, is not
  read): the wait goes on, up to WALL_SLACK times the limit in all;
- where neither is measured, the first expiry kills it, as before.

Nothing here runs on the path of a reply that comes in time: the first look is taken at the
first expiry.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable

WALL_SLACK = 10.0  # a starved worker may take this many times its limit, in wall time
RUNNABLE_SHARE = 0.05  # under this share of an interval running or queued: asleep or blocked
CPU_TOLERANCE_S = 0.02


def _stat(path: str) -> tuple[int, int] | None:
    """(ns running, ns queued for a CPU) from a schedstat file; None where unreadable."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        with open(path, "rb") as f:
            fields = f.read().split()
        return int(fields[0]), int(fields[1])
    return None


def schedstat(pids: list[int]) -> dict[int, int]:
    """Nanoseconds each process has spent running or queued for a CPU, by pid (those readable)."""
    stats = {pid: _stat(f"/proc/{pid}/schedstat") for pid in pids}
    return {pid: st[0] + st[1] for pid, st in stats.items() if st is not None}


def queued_ns(pids: list[int] | None = None) -> int:
    """Nanoseconds the given processes (None: this process's threads) waited in the run
    queue; 0 for those that cannot be read."""
    if pids is None:
        try:
            paths = [f"/proc/self/task/{t}/schedstat" for t in os.listdir("/proc/self/task")]
        except OSError:
            paths = []
    else:
        paths = [f"/proc/{pid}/schedstat" for pid in pids]
    return sum(st[1] for st in map(_stat, paths) if st is not None)


class Patience:
    """How long to go on waiting for one reply that began at `start` with `limit` seconds.

    `cpu_s()` is the CPU the worker used since the call began (None: not measured); `pids()`
    lists its processes (empty: not known); `hard_end` is a time no wait may pass (a stage's
    deadline). `first_end()` is the first deadline; after each expiry `after(now)` gives the
    next one, or None with the reason to kill the worker.
    """

    def __init__(
        self, start: float, limit: float, hard_end: float | None,
        cpu_s: Callable[[], float | None], pids: Callable[[], list[int]],
        throttled_ns: Callable[[], int | None] = lambda: None,
    ) -> None:  # fmt: skip
        self.start, self.limit = start, limit
        self.cap = start + limit * WALL_SLACK
        if hard_end is not None:
            self.cap = min(self.cap, hard_end)
        self.hard_end = hard_end
        self._cpu_s, self._pids, self._throttled_ns = cpu_s, pids, throttled_ns
        self.interval = max(0.25, limit / 4)
        self._seen: dict[int, int] | None = None
        self._seen_at, self._throttled_at = start, 0

    def first_end(self) -> float:
        end = self.start + self.limit
        return end if self.hard_end is None else min(end, self.hard_end)

    def after(self, now: float) -> tuple[float | None, str]:
        waited = now - self.start
        if self.hard_end is not None and now >= self.hard_end:
            return None, f"no complete answer within {waited:.1f}s, the end of its time (killed)"
        cpu = self._cpu_s()
        if cpu is not None and cpu >= self.limit - CPU_TOLERANCE_S:
            return None, (
                f"no answer after {cpu:.1f}s of CPU, over the {self.limit:g}s a "
                "reply may take (a loop that never yields?) (killed)"
            )
        if now >= self.cap:
            return None, f"no complete answer within {waited:.1f}s (killed)"
        stats, throttled = schedstat(self._pids()), self._throttled_ns() or 0
        if not stats and (cpu is None or self._seen is not None):  # the wall clock is all
            return None, f"no complete answer within {waited:.1f}s (killed)"  # (one more look)
        # judged over a whole look only: a CPU quota can throttle a busy worker for most of a
        # 100 ms period, and throttled time counts neither as running nor as waiting
        span_ns = (now - self._seen_at) * 1e9
        if self._seen and stats and span_ns >= self.interval * 1e9:
            busiest = max(v - self._seen.get(pid, 0) for pid, v in stats.items())
            if busiest + (throttled - self._throttled_at) < RUNNABLE_SHARE * span_ns:
                return None, (
                    f"no complete answer within {waited:.1f}s, and it was not "
                    "running or waiting to run (asleep or blocked) (killed)"
                )
        if self._seen is None or span_ns >= self.interval * 1e9:
            self._seen, self._seen_at, self._throttled_at = stats, now, throttled
        step = self.interval
        if cpu is not None:
            step = min(step, max(self.limit - cpu, CPU_TOLERANCE_S))
        return min(now + step, self.cap), ""
