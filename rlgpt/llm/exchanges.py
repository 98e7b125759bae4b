"""The recorded LLM exchanges of a run (runs/<id>/iter_<k>/llm/NNN_role_kind.json): one reader
for everything that reads them, which names a damaged file instead of failing on it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rlgpt.errors import UserError

KEYS = ("key", "request", "reply")


def read_exchange(path: Path) -> dict[str, Any]:
    """One exchange; a truncated or foreign file is a UserError naming it."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise UserError(
            f"exchange file {path} is damaged ({type(exc).__name__}); move it out of the run "
            "directory (the exchange is then asked again)"
        ) from None
    if not isinstance(data, dict) or not all(k in data for k in KEYS):
        raise UserError(f"exchange file {path} is not an rlgpt exchange record; move it away")
    return data


def run_exchanges(run_root: Path) -> list[tuple[Path, dict[str, Any]]]:
    """Every exchange of a run, in order (iteration, then sequence)."""
    paths = sorted(run_root.glob("iter_*/llm/*.json"), key=lambda p: (_iteration(p), p.name))
    return [(p, read_exchange(p)) for p in paths]


def _iteration(path: Path) -> int:
    try:
        return int(path.parent.parent.name.removeprefix("iter_"))
    except ValueError:
        return 0
