"""Reference skill library of full Craftax: source templates the offline author fills in (one
file per kind of sub-action; rlgpt/worlds/craftax/author.py says which and with what)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from string import Template

LIBRARY_DIR = Path(__file__).parent


def template(kind: str) -> Template:
    """The template of one skill kind (a file `<kind>.py.txt` here)."""
    return Template((LIBRARY_DIR / f"{kind}.py.txt").read_text())


def library_hash() -> str:
    """sha256 over every template file, recorded where a model name would be."""
    h = hashlib.sha256()
    for path in sorted(LIBRARY_DIR.glob("*.py.txt")):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()
