"""Prompt templates: files under prompts/, rendered strictly, hashed."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Any

import jinja2

PROMPTS_DIR = Path(__file__).resolve().parents[2] / "prompts"


@functools.cache
def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(PROMPTS_DIR),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
    )


def template_hash(name: str) -> str:
    """sha256 of a template file's bytes."""
    return hashlib.sha256((PROMPTS_DIR / f"{name}.md").read_bytes()).hexdigest()


def render(name: str, **values: Any) -> str:
    """Render prompts/<name>.md; a missing variable is an error (StrictUndefined)."""
    return _env().get_template(f"{name}.md").render(**values)


def all_template_hashes() -> dict[str, str]:
    return {p.stem: template_hash(p.stem) for p in sorted(PROMPTS_DIR.glob("*.md"))}
