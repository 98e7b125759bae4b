"""The adversarial corpus: each hostile program gets its expected verdict, and the host is
untouched (decoy process alive, checkpoint unchanged, no marker file, no connection, no
secret seen, no host path seen, no process of the sandbox left behind), no program hangs the
host (its verdict comes within its wall limit), and every verdict is a record that writes and
reads back whatever text it holds. Every program runs through the real sandbox (bubblewrap),
with the gate and without it (the OS layer alone); a program's first line says the verdict
with the gate (`# expect: K1|K2`), an optional second line the one without (`# gate-off:`)."""

from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import threading
import time
import typing
from pathlib import Path

import pytest

from rlgpt.config import SandboxParams
from rlgpt.lineage.layout import read_model, write_model
from rlgpt.messages import ActionValidation, CodedAction, ErrorKind, ValidationReport
from rlgpt.sandbox import limits
from rlgpt.validation.validate import validate_action
from tests.conftest import REPO, rlgpt_exe

CORPUS = Path(__file__).parent / "corpus"
FILES = sorted(CORPUS.glob("*.py"))
HOST = Path("/tmp/rlgpt_corpus")  # the paths the hostile programs aim at
SECRET = "sk-corpus-SECRET-31337"
SANDBOX = SandboxParams(scenarios=1, scenario_steps=60, timeout_s=3.0)


WALL_LIMIT_S = SANDBOX.timeout_s + 15  # its wall limit, a worker's start and a busy machine


def expected(path: Path, gate: bool = True) -> set[str] | None:
    """The verdicts the program may get with the gate (or without: None when not said)."""
    lines = path.read_text().splitlines()
    assert lines[0].startswith("# expect: "), path
    line = lines[0] if gate else lines[1]
    prefix = "# expect: " if gate else "# gate-off: "
    return set(line.removeprefix(prefix).split("|")) if line.startswith(prefix) else None


def sandbox_leftovers() -> list[str]:
    """Workers' cgroups (and their processes) of this process that outlived validation."""
    if limits.mode() == "rlimit":
        return []
    groups = limits._run_groups().values()
    return [str(p) for g in groups for p in g.glob("w*")] + [
        pid for g in groups for pid in (g / "cgroup.procs").read_text().split()
    ]  # fmt: skip


def check_records(verdict: ActionValidation, tmp: Path) -> None:
    """No host-record crash: the verdict writes, reads back, and names no host path."""
    dump = verdict.model_dump_json()
    assert SECRET not in dump, "no secret comes back"
    assert str(REPO) not in dump, "no host path of the project comes back"
    path = write_model(tmp / "validation.json", ValidationReport(actions=[verdict]))
    assert read_model(path, ValidationReport).actions[0].message == verdict.message


class Host:
    """Things a contained program must not be able to touch."""

    def __init__(self) -> None:
        HOST.mkdir(exist_ok=True)
        self.marker = HOST / "marker"
        self.marker.unlink(missing_ok=True)
        self.checkpoint = HOST / "policy.zip"
        self.checkpoint.write_bytes(os.urandom(4096))
        self.digest = hashlib.sha256(self.checkpoint.read_bytes()).hexdigest()
        (HOST / "secrets.txt").write_text(SECRET)
        self.decoy = subprocess.Popen(["sleep", "600"])
        (HOST / "decoy.pid").write_text(str(self.decoy.pid))
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(8)
        self.listener.settimeout(0.2)
        (HOST / "port").write_text(str(self.listener.getsockname()[1]))
        self.unix = []  # a unix socket on a host path, and one in the abstract namespace
        for address in (str(HOST / "sock"), "\0rlgpt-corpus"):
            if not address.startswith("\0"):
                Path(address).unlink(missing_ok=True)
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.bind(address)
            sock.listen(8)
            sock.settimeout(0.2)
            self.unix.append(sock)
        self.accepted = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            for sock in (self.listener, *self.unix):
                try:
                    conn, _ = sock.accept()
                    self.accepted += 1
                    conn.close()
                except OSError:
                    continue

    def assert_untouched(self, where: str) -> None:
        assert self.decoy.poll() is None, f"{where}: decoy process was killed"
        digest = hashlib.sha256(self.checkpoint.read_bytes()).hexdigest()
        assert digest == self.digest, f"{where}: checkpoint changed"
        assert not self.marker.exists(), f"{where}: marker file written"
        assert self.accepted == 0, f"{where}: a connection reached the host"

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.listener.close()
        for sock in self.unix:
            sock.close()
        self.decoy.kill()
        self.decoy.wait()


@pytest.fixture(scope="module")
def host():
    h = Host()
    os.environ["OPENAI_API_KEY"] = SECRET
    try:
        yield h
    finally:
        os.environ.pop("OPENAI_API_KEY", None)
        h.close()


def test_corpus_is_large_enough():
    assert len(FILES) >= 85


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_program_is_contained(path, host, tmp_path):
    action = CodedAction(name="act", docstring="", source=path.read_text())
    t0 = time.monotonic()
    verdict = validate_action(action, sandbox=SANDBOX)
    assert time.monotonic() - t0 < WALL_LIMIT_S, f"{path.stem}: the host was held"
    outcome = "ok" if verdict.ok else verdict.error_kind
    assert outcome in expected(path), f"{path.stem}: {outcome}: {verdict.message}"
    check_records(verdict, tmp_path)
    if outcome == "syntax" and "line" in verdict.message:
        assert verdict.message.startswith("line "), "the model is told where"
    host.assert_untouched(path.stem)
    assert sandbox_leftovers() == [], f"{path.stem}: the sandbox outlived its verdict"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_program_is_contained_with_the_gate_off(path, host, tmp_path):
    """The OS layer alone (no gate, no lint, real builtins in the worker) still contains it."""
    action = CodedAction(name="act", docstring="", source=path.read_text())
    t0 = time.monotonic()
    verdict = validate_action(action, sandbox=SANDBOX, gate_code=False)
    assert time.monotonic() - t0 < WALL_LIMIT_S, f"{path.stem} (gate off): the host was held"
    outcome = "ok" if verdict.ok else verdict.error_kind
    assert verdict.ok or verdict.error_kind in typing.get_args(ErrorKind)
    wanted = expected(path, gate=False)
    assert wanted is None or outcome in wanted, f"{path.stem}: {outcome}: {verdict.message}"
    check_records(verdict, tmp_path)
    host.assert_untouched(f"{path.stem} (gate off)")
    assert sandbox_leftovers() == [], f"{path.stem} (gate off): the sandbox outlived it"


def test_corpus_through_the_cli(host, tmp_path):
    """`rlgpt sandbox check` on every file gives the same verdicts (one process, all files)."""
    proc = subprocess.run(
        [rlgpt_exe(), "sandbox", "check", *map(str, FILES), "--timeout", "3"],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr[-2000:]  # some are rejected, none errored
    report = json.loads(proc.stdout)["actions"]
    assert len(report) == len(FILES)
    for path, verdict in zip(FILES, report, strict=True):
        outcome = "ok" if verdict["ok"] else verdict["error_kind"]
        assert outcome in expected(path), f"{path.stem}: {outcome}"
    lines = proc.stderr.splitlines()
    verdicts = [ln for ln in lines if ln.startswith("rlgpt: ")]
    assert len(verdicts) == len(FILES), "one line per file; none forged"
    assert not any(ch in proc.stderr for ch in "\r\x1b\x07\u2028\u202e"), "escaped"
    host.assert_untouched("cli")


def test_cli_keeps_to_its_timeout_on_programs_that_hang(tmp_path):
    """Every hanging program is cut off: at most its --timeout (plus 5 s) each."""
    names = ("busy_loop", "huge_power", "time_bomb", "finally_sleeper", "ignore_signals_then_loop")
    hangers = [CORPUS / f"{n}.py" for n in names]
    t0 = time.monotonic()
    proc = subprocess.run(
        [rlgpt_exe(), "sandbox", "check", *map(str, hangers), "--timeout", "5"],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
    )  # fmt: skip
    elapsed = time.monotonic() - t0
    report = json.loads(proc.stdout)["actions"]
    assert len(report) == len(hangers), "a verdict for every file"
    assert elapsed < len(hangers) * (5 + 5)
