"""Prompt templates: files under prompts/, rendered strictly, hashed.

A template names a section of its world's own prompts as `world/<file>` (`{% include
"world/facts.md" %}`): it is read from prompts/worlds/<world>/, so one template serves every
world and each world words its facts itself. A template's hash covers the sections it includes
for that world.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Any

import jinja2
from jinja2 import meta

from rlgpt.textsafe import fence, quote
from rlgpt.worlds import DEFAULT_WORLD

PROMPTS_DIR = Path(__file__).resolve().parents[2] / "prompts"


@functools.cache
def _env(world: str) -> jinja2.Environment:
    sections = jinja2.FileSystemLoader(PROMPTS_DIR / "worlds" / world)
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader(
            [jinja2.FileSystemLoader(PROMPTS_DIR), jinja2.PrefixLoader({"world": sections})]
        ),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
    )
    # untrusted text (generated code, validation messages, traces) goes in through these
    env.filters["fence"] = fence
    env.filters["quote"] = quote
    return env


def _source(world: str, name: str) -> str:
    env = _env(world)
    return env.loader.get_source(env, name)[0]  # type: ignore[union-attr]


def _included(world: str, name: str) -> list[str]:
    """Every template `name` includes, recursively, in a stable order."""
    env = _env(world)
    found: list[str] = []
    refs = meta.find_referenced_templates(env.parse(_source(world, name)))
    for inc in sorted(t for t in refs if t):
        found += [inc, *_included(world, inc)]
    return found


def template_hash(name: str, world: str = DEFAULT_WORLD) -> str:
    """sha256 of a template file's bytes and of every template it includes (for `world`)."""
    h = hashlib.sha256((PROMPTS_DIR / f"{name}.md").read_bytes())
    for inc in _included(world, f"{name}.md"):
        h.update(b"\0" + inc.encode() + b"\0" + _source(world, inc).encode())
    return h.hexdigest()


def render(name: str, world: str = DEFAULT_WORLD, **values: Any) -> str:
    """Render prompts/<name>.md for `world`; a missing variable is an error (StrictUndefined)."""
    return _env(world).get_template(f"{name}.md").render(**values)


def all_template_hashes(world: str = DEFAULT_WORLD) -> dict[str, str]:
    return {p.stem: template_hash(p.stem, world) for p in sorted(PROMPTS_DIR.glob("*.md"))}
