"""`rlgpt ui` serves the MLflow UI over the project's store until Ctrl-C, then leaves nothing."""

from __future__ import annotations

import re
import signal
import subprocess
import time
import urllib.request

import pytest

from tests.conftest import rlgpt_exe


@pytest.mark.slow  # 30 s of MLflow start-up; the default suite stays near its budget
def test_ui_serves_mlflow_and_stops_cleanly_on_ctrl_c(tmp_path, tiny_params, cli_env):
    proc = subprocess.Popen([rlgpt_exe(), "ui", "--params", str(tiny_params)], cwd=tmp_path,
                            env=cli_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)  # fmt: skip
    try:
        first = proc.stdout.readline()  # type: ignore[union-attr]
        m = re.match(r"mlflow:  (http://127\.0\.0\.1:\d+)  \(store sqlite:///", first)
        assert m, first + proc.stderr.read()  # type: ignore[union-attr]
        with urllib.request.urlopen(m.group(1) + "/", timeout=10) as page:
            assert page.status == 200 and b"<html" in page.read().lower()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
        time.sleep(1)
        try:
            urllib.request.urlopen(m.group(1) + "/", timeout=2)
            raise AssertionError("the MLflow UI outlived `rlgpt ui`")
        except OSError:
            pass
    finally:
        if proc.poll() is None:
            proc.kill()
