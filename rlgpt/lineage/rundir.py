"""Run directories a researcher can trust: safe ids, a marker that says rlgpt made the
directory (the only kind `--force` may delete), and a lock one writer holds while a run,
resume or reproduction works in it."""

from __future__ import annotations

import fcntl
import os
import re
import shutil
from pathlib import Path
from typing import IO

from rlgpt.errors import UserError

RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
MARKER = ".rlgpt-run"  # written at creation; holds the run id
LOCKS = ".locks"  # runs_dir/.locks/<run id>.lock: outside the run directory, so --force keeps it


def check_run_id(run_id: str) -> str:
    """A run id is one path component of safe characters, at most 100 long."""
    if not RUN_ID.fullmatch(run_id or ""):
        raise UserError(
            f"invalid run id {run_id[:40]!r}: use letters, digits, '.', '_' and '-' (starting "
            "with a letter or digit), at most 100 characters, no '/'"
        )
    return run_id


class RunLock:
    """An exclusive OS lock (flock) on one run id, held until `release()` or process exit."""

    def __init__(self, runs_dir: Path, run_id: str) -> None:
        check_run_id(run_id)
        path = runs_dir / LOCKS / f"{run_id}.lock"
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._file: IO[str] | None = path.open("a+")
        try:
            fcntl.flock(self._file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._file.seek(0)
            holder = self._file.read().strip() or "?"
            self._file.close()
            self._file = None
            raise UserError(
                f"run {run_id!r} is in use by another rlgpt process (pid {holder}); wait for "
                "it or stop it first"
            ) from None
        self._file.seek(0)
        self._file.truncate()
        self._file.write(str(os.getpid()))
        self._file.flush()

    def release(self) -> None:
        if self._file is not None:
            self._file.close()  # closing the file releases the lock
            self._file = None


def made_by_rlgpt(root: Path, run_id: str) -> bool:
    """Whether `root` is a run directory rlgpt created for `run_id` (its marker says so)."""
    marker = root / MARKER
    return (
        root.is_dir()
        and not root.is_symlink()
        and marker.is_file()
        and (marker.read_text().strip() == run_id)
    )


def create(runs_dir: Path, run_id: str, force: bool) -> Path:
    """A fresh run directory runs_dir/<run_id> with its marker. With `force`, an existing one
    is replaced only if rlgpt made it for this run id; anything else is a UserError."""
    check_run_id(run_id)
    root = runs_dir / run_id
    if root.is_symlink() or (root.exists() and not root.is_dir()):
        raise UserError(f"{root} exists and is not a run directory; pick another --run-id")
    if root.is_dir() and any(root.iterdir()):
        if not force:
            raise UserError(f"run directory {root} exists; pick another --run-id or pass --force")
        if not made_by_rlgpt(root, run_id):
            raise UserError(
                f"{root} was not created by rlgpt for run {run_id!r} (no {MARKER} marker); "
                "--force only replaces rlgpt's own run directories: move it away yourself"
            )
        shutil.rmtree(root)
    root.mkdir(parents=True, exist_ok=True)
    (root / MARKER).write_text(run_id + "\n")
    return root
