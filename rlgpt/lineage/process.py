"""Which process a record belongs to, and whether that process still lives.

A process is named by host, boot and pid plus its start time (ticks since boot), so neither a
reused pid nor a reboot makes a dead run look alive. Used to close the MLflow parent of a run
that was killed before it could close it itself (tasks/tracking.py).
"""

from __future__ import annotations

import os
import socket
from pathlib import Path


def _boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return "?"


def _start_ticks(pid: int) -> str | None:
    """The start time of `pid` in clock ticks since boot (None: no such process here)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]  # field 22; the name in () may hold spaces


def process_tag(pid: int | None = None) -> str:
    """`host|boot|pid|start` of this process (or of `pid`)."""
    pid = os.getpid() if pid is None else pid
    return f"{socket.gethostname()}|{_boot_id()}|{pid}|{_start_ticks(pid) or '?'}"


def process_gone(tag: str) -> bool:
    """Whether the process `tag` names has certainly ended: it ran on this host, and this boot
    has no process with its pid and start time. A tag of another host is never judged."""
    parts = tag.split("|")
    if len(parts) != 4 or parts[0] != socket.gethostname():
        return False
    _, boot, pid, start = parts
    if boot != _boot_id():
        return True  # the host rebooted since
    return not pid.isdigit() or _start_ticks(int(pid)) != start
