"""rlgpt.sandbox.pipes: writes and reads to a worker end by one total deadline, whatever the
other end does (never reads, drains a byte at a time, drips, goes away)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time

import pytest

from rlgpt.sandbox.pipes import PipeClosed, PipeTimeout, nonblocking, read_line, write_all

F_SETPIPE_SZ = 1031


@pytest.fixture
def pipe():
    r, w = os.pipe()
    yield r, nonblocking(w)
    for fd in (r, w):
        with contextlib.suppress(OSError):
            os.close(fd)


def test_a_write_nobody_reads_ends_at_its_deadline(pipe):
    r, w = pipe
    fcntl.fcntl(r, F_SETPIPE_SZ, 4096)  # what a hostile worker would do to its request pipe
    t0 = time.monotonic()
    with pytest.raises(PipeTimeout):
        write_all(w, b"x" * 100_000, time.monotonic() + 0.3)
    assert 0.25 < time.monotonic() - t0 < 2.0


def test_a_reader_that_drains_a_byte_at_a_time_is_cut_off_at_the_total_deadline(pipe):
    r, w = pipe
    fcntl.fcntl(r, F_SETPIPE_SZ, 4096)
    stop = threading.Event()

    def drain() -> None:
        while not stop.is_set():
            try:
                os.read(r, 1)
            except OSError:
                return
            time.sleep(0.001)

    thread = threading.Thread(target=drain, daemon=True)
    thread.start()
    t0 = time.monotonic()
    try:
        with pytest.raises(PipeTimeout):
            write_all(w, b"x" * 100_000, time.monotonic() + 0.5)
    finally:
        stop.set()
    assert time.monotonic() - t0 < 2.0, "one deadline for the whole write, not one per chunk"


def test_a_write_completes_when_read(pipe):
    r, w = pipe
    got = bytearray()
    thread = threading.Thread(target=lambda: got.extend(_read_all(r, 200_000)), daemon=True)
    thread.start()
    write_all(w, b"y" * 200_000, time.monotonic() + 5)
    thread.join(5)
    assert bytes(got) == b"y" * 200_000


def _read_all(fd: int, n: int) -> bytes:
    out = b""
    while len(out) < n:
        out += os.read(fd, 65_536)
    return out


def test_a_closed_reader_is_reported_not_raised_raw(pipe):
    r, w = pipe
    os.close(r)
    with pytest.raises(PipeClosed):
        write_all(w, b"z\n", time.monotonic() + 1)


def test_read_line_keeps_the_rest_and_ends_at_its_total_deadline(pipe):
    r, w = pipe
    nonblocking(r)  # as the host's end of a reply pipe
    os.write(w, b'{"a": 1}\n{"b"')
    buf = bytearray()
    assert read_line(r, buf, time.monotonic() + 1, 1000) == b'{"a": 1}'
    assert bytes(buf) == b'{"b"', "what follows stays for the next line"
    stop = threading.Event()

    def drip() -> None:
        while not stop.is_set():
            os.write(w, b" ")
            time.sleep(0.05)

    threading.Thread(target=drip, daemon=True).start()
    t0 = time.monotonic()
    try:
        with pytest.raises(PipeTimeout):
            read_line(r, buf, time.monotonic() + 0.4, 1000)
    finally:
        stop.set()
    assert time.monotonic() - t0 < 1.5
    with pytest.raises(ValueError):
        os.write(w, b"x" * 2000)
        read_line(r, buf, time.monotonic() + 1, 1000)


def test_a_line_already_there_is_read_without_waiting(pipe, monkeypatch):
    r, w = pipe
    nonblocking(r)
    os.write(w, b'{"action": "do"}\n')

    def no_poll() -> None:
        raise AssertionError("polled although the line was there")

    monkeypatch.setattr("rlgpt.sandbox.pipes.select.poll", no_poll)
    assert read_line(r, bytearray(), time.monotonic() + 1, 1000) == b'{"action": "do"}'
