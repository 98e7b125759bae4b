"""`make setup` on a fresh machine: it waits for apt's lock, and an install that fails (another
apt holds the lock, no root) fails `make` and is never marked done; one that works is."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO

MAKE = shutil.which("make")
pytestmark = pytest.mark.skipif(MAKE is None, reason="needs make")


def _script(path: Path, body: str) -> None:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)


@pytest.fixture
def machine(tmp_path: Path) -> Path:
    """A project copy with its venv already there (pip succeeds), and a PATH holding only a
    fake apt-get, id, ldconfig (no libseccomp yet) and the tools the recipe uses: no bwrap."""
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(REPO / name, tmp_path / name)
    venv = tmp_path / "v" / "bin"
    venv.mkdir(parents=True)
    _script(venv / "python", "exit 0\n")
    _script(venv / "pip", "exit 0\n")
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    for tool in ("grep", "touch"):
        os.symlink(shutil.which(tool), bin_ / tool)  # type: ignore[arg-type]
    _script(bin_ / "ldconfig", f'[ -e "{bin_}/bwrap" ] && echo "libseccomp.so.2 => /lib/x"\n')
    _script(bin_ / "id", "echo 0\n")
    return tmp_path


def _make(root: Path, apt: str) -> subprocess.CompletedProcess[str]:
    _script(root / "bin" / "apt-get", f'echo "$@" >> "{root}/apt.log"\n{apt}')
    return subprocess.run(
        [MAKE, "VENV=v", "v/.installed"], cwd=root, env={"PATH": str(root / "bin")},  # type: ignore[list-item]
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def test_an_install_that_cannot_take_apts_lock_fails_and_is_not_marked_done(machine):
    locked = 'echo "E: Could not get lock /var/lib/dpkg/lock-frontend" >&2\nexit 100\n'
    for _ in range(2):  # and the next `make` tries again
        proc = _make(machine, locked)
        assert proc.returncode != 0
        assert "could not install bubblewrap and libseccomp2" in proc.stderr
        assert not (machine / "v" / ".installed").exists()
    assert "DPkg::Lock::Timeout=" in (machine / "apt.log").read_text(), "it waits for the lock"


def test_an_install_that_works_is_marked_done(machine):
    proc = _make(machine, f'[ "$5" = install ] && touch "{machine}/bin/bwrap"\nexit 0\n')
    assert proc.returncode == 0, proc.stderr
    assert (machine / "v" / ".installed").exists()


def test_without_root_it_says_what_to_install_and_fails(machine):
    _script(machine / "bin" / "id", "echo 1000\n")
    proc = _make(machine, "exit 0\n")
    assert proc.returncode != 0 and "sudo apt-get install bubblewrap libseccomp2" in proc.stderr
    assert not (machine / "v" / ".installed").exists()
