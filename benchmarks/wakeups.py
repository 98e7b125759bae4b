"""What one host-worker round trip costs the machine itself: two processes answering one byte
over a pair of pipes, as the host and a sandboxed worker do (rlgpt/sandbox/client.py), with no
Python work around it.

Four ways, each measured in this run: both sleep in read() until the other writes (what rlgpt
does) on two cores, and pinned to one core; one side polling instead of sleeping; both
polling. On a virtual machine whose idle vCPU halts at once (no guest halt polling,
/sys/module/haltpoll/parameters/guest_halt_poll_ns = 0), every wake-up of a sleeping process
on the other core is an interrupt to a halted vCPU, which is what a round trip spends; on one
core it is a context switch. Ends with one line of JSON (microseconds per round trip, wall and
the host's CPU).

    python benchmarks/wakeups.py
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

HALT_POLL = Path("/sys/module/haltpoll/parameters/guest_halt_poll_ns")


def _read(fd: int, spin: bool) -> bytes:
    while True:
        try:
            return os.read(fd, 64)
        except BlockingIOError:
            if not spin:
                raise


def _round_trips(n: int, host_spins: bool, worker_spins: bool, cpu: int | None) -> dict[str, float]:
    req_r, req_w = os.pipe()
    rep_r, rep_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the worker: answer every byte until told to stop
        if cpu is not None:
            os.sched_setaffinity(0, {cpu})
        os.set_blocking(req_r, not worker_spins)
        while _read(req_r, worker_spins) != b"q":
            os.write(rep_w, b"r")
        os._exit(0)
    allowed = os.sched_getaffinity(0)
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})
    os.set_blocking(rep_r, not host_spins)
    try:
        for _ in range(n // 10):  # warm up
            os.write(req_w, b"x")
            _read(rep_r, host_spins)
        t0, c0 = time.perf_counter(), time.thread_time()
        for _ in range(n):
            os.write(req_w, b"x")
            _read(rep_r, host_spins)
        wall, cpu_s = time.perf_counter() - t0, time.thread_time() - c0
    finally:
        os.write(req_w, b"q")
        os.waitpid(pid, 0)
        os.sched_setaffinity(0, allowed)  # the next way runs on every core again
        for fd in (req_r, req_w, rep_r, rep_w):
            os.close(fd)
    return {"wall_us": round(wall / n * 1e6, 1), "host_cpu_us": round(cpu_s / n * 1e6, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=20_000, help="round trips per way")
    args = ap.parse_args()
    here = min(os.sched_getaffinity(0))
    ways = {
        "both_sleep": (False, False, None),
        "both_sleep_one_core": (False, False, here),
        "worker_polls": (False, True, None),
        "host_polls": (True, False, None),
        "both_poll": (True, True, None),
    }
    if len(os.sched_getaffinity(0)) < 2:
        ways = {k: v for k, v in ways.items() if k in ("both_sleep", "both_sleep_one_core")}
    figures: dict[str, object] = {}
    for name, (host, worker, cpu) in ways.items():
        figures[name] = r = _round_trips(args.n, host, worker, cpu)
        print(
            f"{name:>20}: {r['wall_us']:7.1f} us per round trip, host CPU {r['host_cpu_us']:.1f} us"
        )
    poll = HALT_POLL.read_text().strip() if HALT_POLL.is_file() else None
    figures["guest_halt_poll_ns"] = int(poll) if poll and poll.isdigit() else None
    print(f"guest halt polling: {poll if poll is not None else 'not a KVM guest with haltpoll'} ns")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
