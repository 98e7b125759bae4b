"""Prompt templates: files under prompts/, rendered strictly, hashed."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Any

import jinja2
from jinja2 import meta

from rlgpt.textsafe import fence, quote

PROMPTS_DIR = Path(__file__).resolve().parents[2] / "prompts"


@functools.cache
def _env() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(PROMPTS_DIR),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
    )
    # untrusted text (generated code, validation messages, traces) goes in through these
    env.filters["fence"] = fence
    env.filters["quote"] = quote
    return env


def _included(name: str) -> list[str]:
    """Every template `name` includes, recursively, in a stable order."""
    env = _env()
    source = env.loader.get_source(env, name)[0]  # type: ignore[union-attr]
    found: list[str] = []
    for inc in sorted(t for t in meta.find_referenced_templates(env.parse(source)) if t):
        found += [inc, *_included(inc)]
    return found


def template_hash(name: str) -> str:
    """sha256 of a template file's bytes and of every template it includes."""
    h = hashlib.sha256((PROMPTS_DIR / f"{name}.md").read_bytes())
    for inc in _included(f"{name}.md"):
        h.update(b"\0" + inc.encode() + b"\0" + (PROMPTS_DIR / inc).read_bytes())
    return h.hexdigest()


def render(name: str, **values: Any) -> str:
    """Render prompts/<name>.md; a missing variable is an error (StrictUndefined)."""
    return _env().get_template(f"{name}.md").render(**values)


def all_template_hashes() -> dict[str, str]:
    return {p.stem: template_hash(p.stem) for p in sorted(PROMPTS_DIR.glob("*.md"))}
