"""No `os.fork() was called ... JAX is multithreaded` RuntimeWarning on a normal run: the
commands the CLI starts (its Prefect server, a sweep's runs) are launched without Python run
between fork and exec (flows/pdeathsig.py), so JAX's at-fork handler never fires, and they
still die with the process that started them."""

from __future__ import annotations

import ast
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from flows import pdeathsig

ROOT = Path(__file__).resolve().parents[2]
# the child reports its PR_GET_PDEATHSIG (2) and whether it leads its own session
PROBE = (
    "import ctypes, os\n"
    "sig = ctypes.c_int()\n"
    "ctypes.CDLL(None).prctl(2, ctypes.byref(sig), 0, 0, 0)\n"
    "print(sig.value, os.getsid(0) == os.getpid())\n"
)


def test_a_launch_after_jax_warns_nothing_and_dies_with_its_parent() -> None:
    jnp = pytest.importorskip("jax.numpy")
    jnp.zeros(2).block_until_ready()  # JAX's backend up: its at-fork handler installed
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = subprocess.run(
            pdeathsig.command([sys.executable, "-c", PROBE]), capture_output=True, text=True,
            start_new_session=True, check=True,
        ).stdout  # fmt: skip
        with pytest.warns(RuntimeWarning, match="os.fork"):  # what the check would catch
            subprocess.run(["true"], preexec_fn=lambda: None, check=True)  # noqa: PLW1509
    assert [w for w in caught if "os.fork" in str(w.message)] == []
    assert out.split() == ["9", "True"], out  # SIGKILL with its parent; its own session


def test_a_command_that_cannot_start_is_exit_127() -> None:
    proc = subprocess.run(pdeathsig.command(["/nonexistent/rlgpt-x"]), capture_output=True,
                          text=True, start_new_session=True)  # fmt: skip
    assert proc.returncode == 127 and "cannot start /nonexistent/rlgpt-x" in proc.stderr


def test_no_preexec_fn_or_fork_context_in_the_pipeline() -> None:
    """Python between fork and exec (Popen's preexec_fn) or a forked interpreter (the
    multiprocessing 'fork' context) in the pipeline's processes is what JAX warns about."""
    found = []
    for top in ("rlgpt", "flows", "tasks"):
        for path in sorted((ROOT / top).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.keyword) and node.arg == "preexec_fn":
                    found.append(f"{path.relative_to(ROOT)}:{node.value.lineno} preexec_fn")
                if (isinstance(node, ast.Call) and ast.unparse(node.func).endswith("get_context")
                        and any(isinstance(a, ast.Constant) and a.value == "fork"
                                for a in node.args)):  # fmt: skip
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} fork context")
                if isinstance(node, ast.Attribute) and ast.unparse(node) == "os.fork":
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} os.fork")
    assert not found, found
