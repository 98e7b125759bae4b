"""Talking to a worker over pipes with total deadlines, for writes as for reads.

A blocking write to a pipe waits in the kernel for as long as the reader does not read: a
worker that shrinks its request pipe (F_SETPIPE_SZ), answers ahead with forged replies and
stops reading would hold the host there for good. So the host's end is non-blocking, and a
write, like a read, gets one total deadline (not one per chunk): a reader that drains a byte
at a time is cut off like one that never reads. poll(), not select(): a busy host may hold
file descriptors above select's limit of 1024.
"""

from __future__ import annotations

import os
import select
import time
from collections.abc import Generator
from typing import TypeVar

T = TypeVar("T")
# A call that can wait in turns: it yields the file descriptor it waits on (its worker's reply
# pipe) once its request is written, and returns its result. The caller may do other work
# before it resumes it; `drive` runs one to its end, waiting where it waits.
Waits = Generator[int, None, T]


class PipeTimeout(Exception):
    """The other end did not take or give the bytes before the deadline."""


class PipeClosed(Exception):
    """The other end is gone."""


def nonblocking(fd: int) -> int:
    os.set_blocking(fd, False)
    return fd


def _wait(fd: int, events: int, deadline: float) -> bool:
    """Whether `fd` became ready for `events` (or hung up) before `deadline`. Past it, one
    look that does not wait: a host that was itself kept off the CPU until after the deadline
    still takes an answer that came in time."""
    left = max(deadline - time.monotonic(), 0.0)
    poller = select.poll()
    poller.register(fd, events)
    return bool(poller.poll(left * 1000))


def write_all(fd: int, data: bytes | bytearray, deadline: float) -> None:
    """Write all of `data` to non-blocking `fd` by time.monotonic() `deadline`. A bytearray
    loses what was written, so a write cut off by its deadline can be taken up again."""
    pending = data if isinstance(data, bytearray) else bytearray(data)
    while pending:
        try:
            sent = os.write(fd, pending)
        except BlockingIOError:
            sent = 0
        except (BrokenPipeError, ConnectionResetError):
            raise PipeClosed("the reader closed its end") from None
        del pending[:sent]
        if not pending:
            return
        if not _wait(fd, select.POLLOUT, deadline):
            raise PipeTimeout(f"{len(pending)} bytes not taken in time")


def read_line(fd: int, buf: bytearray, deadline: float, cap: int) -> bytes:
    """One line (without its newline) from non-blocking `fd`, by `deadline`, at most `cap`
    bytes; what follows it stays in `buf` for the next call. It reads before it waits: a
    reply that is already there (the usual case once the envs wait in turns,
    rlgpt/rl/interleave.py) costs one read and no poll."""
    while True:
        end = buf.find(b"\n")
        if end >= 0:
            line = bytes(buf[:end])
            del buf[: end + 1]
            return line
        if len(buf) > cap:
            raise ValueError("line longer than the cap")
        try:
            chunk = os.read(fd, 65_536)
        except BlockingIOError:
            if not _wait(fd, select.POLLIN, deadline):
                raise PipeTimeout("no complete line in time") from None
            continue
        if not chunk:
            raise PipeClosed("the writer closed its end")
        buf += chunk
        if b"\n" not in chunk and time.monotonic() > deadline:  # a drip that is never idle
            raise PipeTimeout("no complete line in time")


def drive(steps: Waits[T]) -> T:
    """Run `steps` to its end without doing anything else while it waits: its own read waits
    (with its deadline) when it is resumed at once."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value


# No reply readable for this long: the oldest waiting step resumes and waits in its own read,
# which holds its deadline (rlgpt/sandbox/patience.py decides about a late or silent worker).
POLL_S = 0.1


def in_turns(steps: list[Waits[T]]) -> list[T]:
    """Run each of `steps` to its end, each resumed when the descriptor it waits on is
    readable (or, when none is for POLL_S, the one that has waited longest); their results, in
    order. If one raises, the others are closed (GeneratorExit where they wait) and it goes up."""
    results: list[T | None] = [None] * len(steps)
    waiting: dict[int, tuple[int, Waits[T]]] = {}  # fd -> (index, its paused steps)

    def resume(i: int, gen: Waits[T]) -> None:
        try:
            fd = next(gen)
        except StopIteration as done:
            results[i] = done.value
        else:
            waiting[fd] = (i, gen)

    try:
        for i, gen in enumerate(steps):
            resume(i, gen)
        while waiting:
            poller = select.poll()
            for fd in waiting:
                poller.register(fd, select.POLLIN)
            ready = [fd for fd, _ in poller.poll(POLL_S * 1000)] or [next(iter(waiting))]
            for fd in ready:
                resume(*waiting.pop(fd))
    except BaseException:
        for _, gen in waiting.values():
            gen.close()
        raise
    return results  # type: ignore[return-value]
