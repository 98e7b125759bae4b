"""`rlgpt report RUN_ID`: one self-contained HTML page per run (plots embedded, no network)."""

from __future__ import annotations

import os
from pathlib import Path

import jinja2

from rlgpt.report.collect import Report, collect

TEMPLATE = Path(__file__).with_name("report.html.j2")


def render(report: Report) -> str:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATE.parent),
        autoescape=True,  # generated code and model replies are shown, never interpreted
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return env.get_template(TEMPLATE.name).render(r=report)


def write_report(run: Path, links: list[tuple[str, str]] | None = None) -> Path:
    """Write `run`/report.html (through a temp file) and return its path."""
    html = render(collect(run, links))
    out = run / "report.html"
    tmp = out.with_suffix(".tmp")
    tmp.write_text(html)
    os.replace(tmp, out)
    return out


__all__ = ["Report", "collect", "render", "write_report"]
