"""The OS boundary of the sandboxed worker: bubblewrap over a minimal read-only root.

The root holds only the Python interpreter and its standard library (site-packages hidden), the
shared libraries the interpreter links (from ldd, under /lib), the worker's own code (the
rlgpt/sandbox package and the world's skill package with its parents' `__init__` files, under
/sandbox), and a /dev of five harmless devices
(null, zero, full, random, urandom: no ptmx or pts, so no pty from the host-wide pool). No
other host path: no /etc, /home, /run, /var or project files, so no host socket can be
reached; every namespace is unshared, so there is no network either. There is no /proc (its
cmdline, mountinfo and mounts would name host paths, and /proc/sys and sysrq-trigger would be
there to write) and nothing writable: the whole root, /tmp included, is read-only, so nothing
written inside can be executed (memfds cannot either: execveat is denied, and without /proc
there is no path to them).

Run as root, bubblewrap starts without a user namespace (in one, uid 65534 would map back to
uid 0 outside); the worker keeps only CAP_SETUID and CAP_SETGID and drops to uid and gid 65534
as its first act (rlgpt/sandbox/worker.py), so the host sees uid 65534 too. Run as another user,
a user namespace maps the worker to that unprivileged user. A seccomp filter
(rlgpt/sandbox/seccomp.py) and cgroup limits (rlgpt/sandbox/limits.py) complete it.
"""

from __future__ import annotations

import functools
import logging
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from rlgpt.errors import UserError

log = logging.getLogger(__name__)
SANDBOX_UID = 65534
CODE_ROOT = "/sandbox"
PY_ROOT = "/python"
DEVICES = ("null", "zero", "full", "random", "urandom")
CLEAN_ENV = {"PATH": "/python/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0"}
VERSION = f"python{sys.version_info.major}.{sys.version_info.minor}"
BOOT = (
    f"import sys; sys.path.insert(0, {CODE_ROOT!r}); from rlgpt.sandbox.worker import main; main()"
)


@functools.cache
def _interpreter() -> tuple[Path, Path]:
    """(the real interpreter binary, its base prefix): never the venv's symlink."""
    return Path(os.path.realpath(sys.executable)), Path(sys.base_prefix).resolve()


@functools.cache
def _shared_libraries(binary: Path) -> tuple[tuple[str, str], ...]:
    """(host path, sandbox path) of every shared library the interpreter links: the ELF
    interpreter at its own path, the others flat under /lib (a default search path)."""
    out = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, check=True).stdout
    libs: list[tuple[str, str]] = []
    for line in out.splitlines():
        if "=>" in line:
            m = re.search(r"=>\s*(/\S+)", line)
            if m:
                path = os.path.realpath(m.group(1))
                libs.append((path, f"/lib/{line.split()[0]}"))
        elif (m := re.match(r"\s*(/\S+)", line)) is not None:
            libs.append((os.path.realpath(m.group(1)), m.group(1)))
    return tuple(libs)


def code_paths(package: str) -> list[str]:
    """The code the worker runs, relative to the directory that holds `rlgpt`: rlgpt's
    `__init__.py`, the sandbox package, and the skill package `package` with the `__init__.py`
    of each package above it (which must import only the standard library)."""
    parts = package.split(".")
    if parts[0] != "rlgpt" or not all(p.isidentifier() for p in parts):
        raise ValueError(f"a skill package must live under rlgpt: {package!r}")
    inits = ["/".join(parts[:i]) + "/__init__.py" for i in range(1, len(parts))]
    return sorted({"rlgpt/__init__.py", "rlgpt/sandbox", *inits, "/".join(parts)})


def visible_paths(package: str) -> list[str]:
    """What the worker sees of the host, as sandbox paths (for reports and tests)."""
    binary, _ = _interpreter()
    paths = [f"{PY_ROOT}/bin/{VERSION}", f"{PY_ROOT}/lib/{VERSION}"]
    paths += [dest for _, dest in _shared_libraries(binary)]
    paths += [f"{CODE_ROOT}/{p}" for p in code_paths(package)]
    return [*paths, *(f"/dev/{d}" for d in DEVICES), "/tmp"]


def _root_args(package: str) -> list[str]:
    binary, prefix = _interpreter()
    code = Path(__file__).resolve().parents[2]  # the directory that holds the rlgpt package
    args: list[str] = []
    made: set[str] = {"/"}

    def mkdirs(dest: str) -> None:
        parts = Path(dest).parts
        for i in range(2, len(parts) + 1):
            d = str(Path(*parts[:i]))
            if d not in made:
                made.add(d)
                args.extend(["--perms", "0755", "--dir", d])

    def bind(src: Path | str, dest: str) -> None:
        mkdirs(str(Path(dest).parent))
        made.add(dest)
        args.extend(["--ro-bind", str(src), dest])

    bind(binary, f"{PY_ROOT}/bin/{VERSION}")
    stdlib = prefix / "lib" / VERSION
    bind(stdlib, f"{PY_ROOT}/lib/{VERSION}")
    if (stdlib / "site-packages").is_dir():
        args.extend(["--tmpfs", f"{PY_ROOT}/lib/{VERSION}/site-packages"])
    for src, dest in _shared_libraries(binary):
        bind(src, dest)
    for rel in code_paths(package):
        bind(code / rel, f"{CODE_ROOT}/{rel}")
    mkdirs("/dev")
    for dev in DEVICES:
        args.extend(["--dev-bind", f"/dev/{dev}", f"/dev/{dev}"])
    args += ["--perms", "0555", "--dir", "/tmp", "--chdir", "/tmp", "--remount-ro", "/"]
    return args


def bwrap_command(seccomp_fd: int, package: str) -> list[str]:
    """bubblewrap's arguments and the worker's command line inside it (RFD WFD follow), for
    coded actions of the skill package `package`."""
    namespaces = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                  "--unshare-cgroup-try"]  # fmt: skip
    if os.geteuid() == 0:  # no user namespace: the worker drops to uid 65534 itself
        ids = ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        namespaces.append("--unshare-user")
        ids = ["--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID), "--cap-drop", "ALL"]
    env = ["--clearenv", *[a for k, v in CLEAN_ENV.items() for a in ("--setenv", k, v)]]
    return [
        "bwrap", "--die-with-parent", "--new-session", *namespaces, "--hostname", "sandbox",
        *_root_args(package), *ids,
        "--seccomp", str(seccomp_fd), *env,
        f"{PY_ROOT}/bin/{VERSION}", "-I", "-S", "-B", "-c", BOOT,
    ]  # fmt: skip


def degraded_command() -> list[str]:
    """The worker's command line without bubblewrap (explicit degraded mode only): this very
    rlgpt's worker code, whichever rlgpt is installed."""
    root = str(Path(__file__).resolve().parents[2])
    boot = (
        f"import sys; sys.path.insert(0, {root!r}); from rlgpt.sandbox.worker import main; main()"
    )
    return [sys.executable, "-I", "-c", boot]


@functools.cache
def bwrap_works() -> bool:
    """Probe once: can the whole boundary (bubblewrap, the root, seccomp) start here?"""
    if shutil.which("bwrap") is None or shutil.which("ldd") is None:
        return False
    try:
        from rlgpt.sandbox.seccomp import filter_fd

        fd = filter_fd()
    except (ImportError, OSError):
        return False
    cmd = bwrap_command(fd, "rlgpt.sandbox")
    cmd[-1] = f"import sys; sys.path.insert(0, {CODE_ROOT!r}); import rlgpt.sandbox.worker"
    try:
        probe = subprocess.run(cmd, env={}, capture_output=True, timeout=30, pass_fds=(fd,))
    except (OSError, subprocess.TimeoutExpired):
        return False
    finally:
        os.close(fd)
    return probe.returncode == 0


class SandboxUnavailable(UserError):
    """No isolation layer works here and degraded mode was not asked for (fail closed)."""


def check_isolation(isolation: str) -> None:
    """Say so where the sandbox is degraded; fail closed where no isolation layer works."""
    if isolation == "degraded":
        log.warning("sandbox in DEGRADED mode: rlimits and a clean environment only, no bwrap")
    elif not bwrap_works():
        raise SandboxUnavailable(
            "no sandbox: bubblewrap or libseccomp is missing, or cannot unshare here; install "
            "them (apt-get install bubblewrap libseccomp2) or set sandbox.isolation: degraded"
        )
