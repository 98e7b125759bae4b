"""Progress of long work: a tqdm bar on a terminal, plain periodic lines in a log."""

from __future__ import annotations

import sys
import time
from typing import Any

from tqdm import tqdm


class Progress:
    """Counts work toward `total`. On a terminal, a tqdm bar; when stderr is not one (a log, a
    pipe, CI), one plain line every `every_s` seconds and at the end (done/total, rate, ETA),
    never a carriage return. Disabled: silent."""

    def __init__(
        self, total: int, desc: str, unit: str, initial: int = 0, enabled: bool = True,
        every_s: float = 30.0, *, stream: Any = None,
    ) -> None:  # fmt: skip
        self.stream = stream or sys.stderr
        self.total, self.desc, self.unit, self.every_s = total, desc, unit, every_s
        self.done = self.start = initial
        self.enabled = enabled
        self.tty = enabled and self.stream.isatty()
        self._bar = (
            tqdm(total=total, initial=initial, unit=unit, desc=desc, leave=False, file=self.stream)
            if self.tty
            else None
        )
        self._t0 = self._last = time.monotonic()

    def update(self, n: int) -> None:
        self.done += n
        if self._bar is not None:
            self._bar.update(n)
        elif self.enabled and time.monotonic() - self._last >= self.every_s:
            self._line()

    def _line(self) -> None:
        self._last = time.monotonic()
        elapsed = self._last - self._t0
        rate = (self.done - self.start) / elapsed if elapsed > 0 else 0.0
        left = max(0, self.total - self.done)
        eta = f"ETA {left / rate:.0f}s" if rate > 0 else "ETA -"
        share = self.done / self.total if self.total else 1.0
        print(f"{self.desc}: {self.done:,}/{self.total:,} {self.unit} ({share:.0%}), "
              f"{rate:,.0f} {self.unit}/s, {eta}", file=self.stream, flush=True)  # fmt: skip

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        elif self.enabled and self.done > self.start:
            self._line()
