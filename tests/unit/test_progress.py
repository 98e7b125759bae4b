"""Long work shows progress: a bar on a terminal, plain lines (no carriage returns) in a log."""

from __future__ import annotations

import io

from rlgpt.rl.progress import Progress


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_log_gets_plain_lines_with_rate_and_eta():
    log = io.StringIO()
    p = Progress(1000, "train", "samples", initial=200, every_s=0.0, stream=log)
    p.update(300)
    p.update(500)
    p.close()
    lines = log.getvalue().splitlines()
    assert "\r" not in log.getvalue() and len(lines) == 3
    assert lines[0].startswith("train: 500/1,000 samples (50%), ") and "samples/s, ETA" in lines[0]
    assert lines[-1].startswith("train: 1,000/1,000 samples (100%)")


def test_a_terminal_gets_a_bar_and_disabled_is_silent():
    tty, quiet = _Tty(), io.StringIO()
    bar = Progress(10, "eval", "episodes", stream=tty)
    bar.update(10)
    bar.close()
    assert "\r" in tty.getvalue() and "eval" in tty.getvalue()
    off = Progress(10, "eval", "episodes", enabled=False, every_s=0.0, stream=quiet)
    off.update(10)
    off.close()
    assert quiet.getvalue() == ""
