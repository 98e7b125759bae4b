"""Training slots: at most N trainings learn at once; the others wait and say so once; a slot
frees when its holder ends, also when its process dies."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

import pytest

from rlgpt.rl.slots import slots_for, training_slot


@pytest.fixture(autouse=True)
def _own_tempdir(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


def test_a_third_training_waits_for_one_of_two_slots_and_says_so_once():
    said: list[str] = []
    got: list[int | None] = []
    with training_slot(2, said.append) as a, training_slot(2, said.append) as b:
        assert {a, b} == {0, 1}

        def third() -> None:
            with training_slot(2, said.append, poll_s=0.05) as c:
                got.append(c)

        t = threading.Thread(target=third)
        t.start()
        time.sleep(0.5)
        assert got == [] and len(said) == 1 and "2 training slots" in said[0]
    t.join(timeout=5)
    assert got and got[0] in (0, 1) and len(said) == 1


def test_no_limit_and_one_per_core():
    with training_slot(0, print) as slot:
        assert slot is None
    assert slots_for(None) >= 1 and slots_for(3) == 3


def test_a_killed_holder_frees_its_slot(tmp_path):
    code = (
        f"import tempfile, time; tempfile.tempdir = {str(tmp_path)!r}\n"
        "from rlgpt.rl.slots import training_slot\n"
        "with training_slot(1, print):\n    print('held', flush=True); time.sleep(60)\n"
    )  # fmt: skip
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    said: list[str] = []
    done = threading.Event()

    def waiter() -> None:
        with training_slot(1, said.append, poll_s=0.05):
            done.set()

    t = threading.Thread(target=waiter)
    t.start()
    time.sleep(0.3)
    assert not done.is_set() and said
    holder.kill()
    holder.wait()
    assert done.wait(5), "the dead holder's slot was taken"
    t.join()


PARENT = """import concurrent.futures as cf, multiprocessing, os, sys, time
from rlgpt.rl.learn import die_with
pool = cf.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                              initializer=die_with, initargs=(os.getpid(),))
pool.submit(time.sleep, 120)
time.sleep(0.5)
print(*pool._processes, flush=True)
time.sleep(120)
"""


def test_a_learned_training_dies_with_the_run_that_started_it_even_by_sigkill():
    """A killed run leaves no learned training behind holding a core and a training slot."""
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    try:
        worker = int(parent.stdout.readline())  # type: ignore[union-attr]
        os.kill(worker, 0)  # alive while its parent is
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and _alive(worker):
            time.sleep(0.1)
        assert not _alive(worker)
    finally:
        parent.kill()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"  # a zombie is dead, unreaped
    except FileNotFoundError:
        return False
