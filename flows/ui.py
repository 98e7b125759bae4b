"""`rlgpt ui`: the MLflow UI over the project's tracking store and, when asked, a Prefect server
with its UI, on localhost, until Ctrl-C; neither outlives the command."""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from rlgpt.config import load_params
from rlgpt.errors import RLGPTError

READY_S = 120.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait(url: str, proc: subprocess.Popen[bytes], what: str) -> None:
    deadline = time.monotonic() + READY_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RLGPTError(f"{what} exited with code {proc.returncode} before it was ready")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.5)
    raise RLGPTError(f"{what} did not answer at {url} within {READY_S:.0f} s")


def _start(cmd: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )


def cmd_ui(args: argparse.Namespace) -> int:
    params = load_params(args.params if Path(args.params).exists() else None)
    uri = params.tracking.mlflow_uri
    env = dict(os.environ)
    procs: list[subprocess.Popen[bytes]] = []
    try:
        port = args.port or _free_port()
        mlflow = _start([sys.executable, "-m", "mlflow", "ui", "--backend-store-uri", uri,
                         "--host", "127.0.0.1", "--port", str(port)], env)  # fmt: skip
        procs.append(mlflow)
        _wait(f"http://127.0.0.1:{port}/", mlflow, "the MLflow UI")
        print(f"mlflow:  http://127.0.0.1:{port}  (store {uri})", flush=True)
        if args.prefect:
            env.setdefault("PREFECT_HOME", str(Path.cwd() / ".prefect"))
            pport = _free_port()
            prefect = _start([sys.executable, "-m", "prefect", "server", "start", "--host",
                              "127.0.0.1", "--port", str(pport)], env)  # fmt: skip
            procs.append(prefect)
            _wait(f"http://127.0.0.1:{pport}/api/health", prefect, "the Prefect server")
            print(
                f"prefect: http://127.0.0.1:{pport}  (runs report to it with "
                f"PREFECT_API_URL=http://127.0.0.1:{pport}/api)",
                flush=True,
            )
        print("Ctrl-C stops them.", flush=True)
        while all(p.poll() is None for p in procs):
            time.sleep(0.5)
        raise RLGPTError("a UI server exited on its own")
    except KeyboardInterrupt:
        print("stopped", flush=True)
        return 0
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
