"""The run directory layout (docs/design.md, Resume, reproduction, audit) and content hashes."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from rlgpt.errors import UserError
from rlgpt.textsafe import storable_tree

M = TypeVar("M", bound=BaseModel)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def write_json(path: Path, data: Any) -> Path:
    """Write JSON atomically (temp file, then rename); any text reads back (lone surrogates
    are written as their escapes, rlgpt/textsafe.py)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    text = json.dumps(storable_tree(data), indent=2, sort_keys=True, default=str)
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return path


def write_model(path: Path, model: BaseModel) -> Path:
    return write_json(path, model.model_dump(mode="json"))


def read_model(path: Path, model: type[M]) -> M:
    """A record written by rlgpt; a missing or damaged one is a UserError naming the file. A
    record holding a lone surrogate's escape (which pydantic's JSON parser refuses, Python's
    accepts) reads back with that character escaped (rlgpt/textsafe.py)."""
    try:
        text = path.read_text(encoding="utf-8")
        try:
            return model.model_validate_json(text)
        except ValueError:
            return model.model_validate(storable_tree(json.loads(text)))
    except (OSError, ValueError) as exc:  # pydantic's ValidationError is a ValueError
        why = type(exc).__name__
        raise UserError(
            f"{path} is missing or damaged ({why}); the run directory is damaged"
        ) from None


class RunLayout:
    """runs/<run_id>/iter_<k>/{llm/, actions/, validation.json, train/, episodes.parquet, ...}."""

    def __init__(self, runs_dir: Path | str, run_id: str) -> None:
        self.run_id = run_id
        self.root = Path(runs_dir) / run_id

    def iter_dir(self, k: int) -> Path:
        return self.root / f"iter_{k}"

    def llm_dir(self, k: int) -> Path:
        return self.iter_dir(k) / "llm"

    def actions_dir(self, k: int) -> Path:
        return self.iter_dir(k) / "actions"

    def train_dir(self, k: int) -> Path:
        return self.iter_dir(k) / "train"

    def file(self, k: int, name: str) -> Path:
        return self.iter_dir(k) / name

    @property
    def summary(self) -> Path:
        return self.root / "summary.json"

    @property
    def manifest(self) -> Path:
        return self.root / "manifest.json"

    def write_manifest(self) -> Path:
        """Hashes of every file of the run; written last, so it says what is complete."""
        files = {
            str(p.relative_to(self.root)): sha256_file(p)
            for p in sorted(self.root.rglob("*"))
            if p.is_file() and p.name != "manifest.json" and not p.name.endswith(".tmp")
        }
        return write_json(self.manifest, {"run_id": self.run_id, "files": files})
