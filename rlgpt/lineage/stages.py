"""Stage bookkeeping for resume: cache keys on (run id, iteration, stage, input hashes), a record
of each completed stage's files with their hashes (re-verified before a cached result is
trusted), a log of stage starts, and a fault-injection hook for crash tests."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from rlgpt.faults import maybe_crash
from rlgpt.lineage.layout import sha256_file, write_json


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def stage_key(stage: str, run_id: str, k: int, inputs: dict[str, Any]) -> str:
    """The identity of one stage execution: run id, iteration, stage and its inputs' hash."""
    blob = json.dumps(_plain(inputs), sort_keys=True, default=str).encode()
    return f"{run_id}-iter{k}-{stage}-{hashlib.sha256(blob).hexdigest()[:24]}"


def _record_path(root: Path, key: str) -> Path:
    return root / "stages" / f"{key}.json"


def record_stage(root: Path, key: str, stage: str, files: list[Path]) -> None:
    """After a stage body finished: the files it produced and their hashes."""
    entries = {str(p.relative_to(root)): sha256_file(p) for p in files if p.is_file()}
    write_json(_record_path(root, key), {"stage": stage, "files": entries})


def verified(root: Path, key: str) -> bool:
    """Whether a completed stage's files are all present and unchanged."""
    path = _record_path(root, key)
    if not path.is_file():
        return False
    files = json.loads(path.read_text())["files"]
    return all(
        (root / rel).is_file() and sha256_file(root / rel) == sha for rel, sha in files.items()
    )


def log_start(root: Path, stage: str, k: int) -> None:
    """Append one line per stage body execution (the audit trail crash tests count)."""
    root.mkdir(parents=True, exist_ok=True)
    with (root / "stage_log.jsonl").open("a") as f:
        f.write(json.dumps({"stage": stage, "iteration": k, "time": time.time()}) + "\n")
    maybe_crash(f"{stage}:{k}")
