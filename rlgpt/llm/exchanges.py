"""The recorded LLM exchanges of a run (runs/<id>/iter_<k>/llm/NNN_role_kind.json): one reader
for everything that reads them, which names a damaged file instead of failing on it."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from rlgpt.errors import UserError
from rlgpt.llm.base import Exchange


def read_exchange(path: Path) -> Exchange:
    """One exchange; a truncated or foreign file is a UserError naming it."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise UserError(
            f"exchange file {path} is damaged ({type(exc).__name__}); move it out of the run "
            "directory (the exchange is then asked again)"
        ) from None
    try:
        return Exchange.model_validate(data)
    except ValidationError:
        raise UserError(
            f"exchange file {path} is not an rlgpt exchange record; move it away"
        ) from None


def write_exchange(path: Path, exchange: Exchange) -> Path:
    """Record one exchange, whole or not at all (a crash mid-write leaves no half file)."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(exchange.model_dump(mode="json"), indent=1))
    tmp.replace(path)
    return path


def run_exchanges(run_root: Path) -> list[tuple[Path, Exchange]]:
    """Every exchange of a run, in order (iteration, then sequence)."""
    paths = sorted(run_root.glob("iter_*/llm/*.json"), key=lambda p: (_iteration(p), p.name))
    return [(p, read_exchange(p)) for p in paths]


def _iteration(path: Path) -> int:
    try:
        return int(path.parent.parent.name.removeprefix("iter_"))
    except ValueError:
        return 0
