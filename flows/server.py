"""The Prefect API server a run talks to.

With PREFECT_API_URL set (a shared server, or the one `rlgpt serve` uses), that one. Otherwise a
private server for this run on a free loopback port, started the way Prefect starts its
temporary one but: in its own session, so a terminal's Ctrl-C reaches only the run; with
PR_SET_PDEATHSIG, so it dies with the run even when the run is SIGKILLed (never orphaned);
waiting up to `startup_s` for it (a busy machine needs more than Prefect's default); stopped
last at exit, after Prefect has flushed its events, so no shutdown noise reaches the terminal.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import IO

from flows import pdeathsig
from rlgpt.errors import RLGPTError

STARTUP_S = 180.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=2) as resp:
            return bool(resp.status == 200)
    except OSError:
        return False


class RunServer:
    """Start (or reuse) the server; `url` is the API to use. `stop()` is idempotent. With
    `wait=False` the server starts and the caller goes on (importing the flow, say) while it
    comes up; `wait()` then returns once it answers."""

    def __init__(self, log_path: Path, startup_s: float = STARTUP_S, wait: bool = True) -> None:
        self.proc: subprocess.Popen[bytes] | None = None
        self._gate: IO[str] | None = None
        self._log_path, self._startup_s, self._attempt = log_path, startup_s, 0
        atexit.register(self.stop)  # before prefect registers its own: runs after them at exit
        external = os.environ.get("PREFECT_API_URL")
        if external:
            self.url = external
            return
        home = Path(os.environ.get("PREFECT_HOME", Path.home() / ".prefect"))
        home.mkdir(parents=True, exist_ok=True)
        # Servers sharing a Prefect home migrate one database: one starts at a time (the lock
        # is held until this one answers).
        self._gate = (home / "rlgpt-server-start.lock").open("a")
        fcntl.flock(self._gate.fileno(), fcntl.LOCK_EX)
        self._launch()
        if wait:
            self.wait()

    def _launch(self) -> None:
        spec = importlib.util.find_spec("prefect")  # located, not imported: Prefect reads
        assert spec is not None and spec.origin is not None  # PREFECT_API_URL on import
        port = _free_port()
        self.url = f"http://127.0.0.1:{port}/api"
        env = {**os.environ, "PREFECT_UI_ENABLED": "0", "PREFECT__SERVER_EPHEMERAL": "1",
               "PREFECT__SERVER_FINAL": "1"}  # fmt: skip
        self._log_path.parent.mkdir(parents=True, exist_ok=True)
        with self._log_path.open("ab") as log:
            self.proc = subprocess.Popen(  # no preexec_fn: no Python between fork and exec
                pdeathsig.command(
                    [sys.executable, "-m", "uvicorn", "--app-dir",
                     str(Path(spec.origin).parent.parent),
                     "--factory", "prefect.server.api.server:create_app", "--host", "127.0.0.1",
                     "--port", str(port), "--log-level", "error", "--lifespan", "on"]
                ),
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env, start_new_session=True,
            )  # fmt: skip
        self._attempt += 1
        self._deadline = time.monotonic() + self._startup_s
        os.environ["PREFECT_API_URL"] = self.url  # before anything imports prefect
        if "prefect.context" in sys.modules:  # a second port, after the flow's imports
            sys.modules["prefect.context"].refresh_global_settings_context()

    def wait(self) -> None:
        """Return once the server answers (a port taken in the meantime: once more on another);
        a server that does not start in time is an error with its log's path."""
        if self._gate is None:  # an external server, or already waited for
            return
        try:
            while self.proc is not None and not _healthy(self.url):
                if self.proc.poll() is not None and self._attempt == 1:
                    self.proc = None
                    self._launch()
                    continue
                if self.proc.poll() is not None or time.monotonic() > self._deadline:
                    self.stop()
                    raise RLGPTError(
                        f"the Prefect server did not start within {self._startup_s:.0f} s "
                        f"(log: {self._log_path})"
                    )
                time.sleep(0.2)
        finally:
            self._gate.close()  # lets the next server on this Prefect home start
            self._gate = None

    def stop(self) -> None:
        if self.proc is None:
            return
        proc, self.proc = self.proc, None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
