"""Processes under a pid, and whether one is still alive (orphan checks of the CLI tests)."""

from __future__ import annotations

import os
from pathlib import Path


def descendants(pid: int) -> dict[int, str]:
    """Every live process below `pid`: its pid and command line."""
    out: dict[int, str] = {}
    todo = [pid]
    while todo:
        cur = todo.pop()
        for task in Path(f"/proc/{cur}/task").glob("*"):
            try:
                kids = [int(k) for k in (task / "children").read_text().split()]
            except OSError:
                continue
            for kid in kids:
                try:
                    out[kid] = (
                        Path(f"/proc/{kid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
                    )
                except OSError:
                    continue
                todo.append(kid)
    return out


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
