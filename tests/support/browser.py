"""Headless Chromium over the DevTools protocol: load a page, evaluate JavaScript in it, take a
screenshot. Debian's `chromium` (installed by .ci/run); tests skip with the reason without it."""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from websockets.sync.client import connect

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
WHY_SKIPPED = (
    "chromium is not installed (`apt-get install chromium`; .ci/run installs it): the report's "
    "rendering in a browser is not checked"
)


class Browser:
    """One headless Chromium with one page, closed on exit."""

    def __init__(self, width: int = 1280, height: int = 1600) -> None:
        assert CHROMIUM, WHY_SKIPPED
        self.profile = tempfile.mkdtemp(prefix="rlgpt-chromium-")
        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--remote-debugging-port=0", f"--user-data-dir={self.profile}",
             f"--window-size={width},{height}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        port_file = Path(self.profile) / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not port_file.is_file() or not port_file.read_text().strip():
            if time.monotonic() > deadline or self.proc.poll() is not None:
                self.close()
                raise RuntimeError("chromium did not start its DevTools endpoint")
            time.sleep(0.1)
        port = int(port_file.read_text().split()[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
            page = next(t for t in json.load(r) if t["type"] == "page")
        self.ws = connect(page["webSocketDebuggerUrl"], max_size=None)
        self.ids = itertools.count(1)

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        n = next(self.ids)
        self.ws.send(json.dumps({"id": n, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv(timeout=60))
            if msg.get("id") == n:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return dict(msg.get("result", {}))

    def load(self, url: str) -> None:
        self.call("Page.enable")
        self.call("Page.navigate", url=url)
        deadline = time.monotonic() + 60
        while self.eval("document.readyState") != "complete":
            assert time.monotonic() < deadline, f"{url} did not finish loading"
            time.sleep(0.1)

    def eval(self, expression: str) -> Any:
        res = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return res["result"].get("value")

    def screenshot(self, path: Path) -> Path:
        shot = self.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
        path.write_bytes(base64.b64decode(shot["data"]))
        return path

    def close(self) -> None:
        try:
            if hasattr(self, "ws"):
                self.ws.close()
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)  # the browser and its helpers
            self.proc.wait(timeout=30)
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
