"""What the report shows, read from a run directory (never from the tracking store)."""

from __future__ import annotations

import base64
import difflib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rlgpt.errors import UserError
from rlgpt.lineage.audit import iteration_chain
from rlgpt.lineage.summary import IterationSummary, RunSummary
from rlgpt.report.figures import CurvePoint, learning_curves, per_iteration


@dataclass
class ActionView:
    name: str
    source: str
    status: str  # new, changed, unchanged
    diff: list[tuple[str, str]]  # (css class, line) of a unified diff against the last version
    validation: str


@dataclass
class IterationView:
    summary: IterationSummary
    plan: list[dict[str, Any]]
    actions: list[ActionView]
    critique: dict[str, Any]
    rl_config: dict[str, Any]
    ends: dict[str, float]
    chain: dict[str, Any]


@dataclass
class Report:
    run: RunSummary
    iterations: list[IterationView]
    figures: dict[str, str]  # name -> base64 PNG
    links: list[tuple[str, str]] = field(default_factory=list)


def _json(path: Path) -> Any:
    return json.loads(path.read_text()) if path.is_file() else None


def _diff(old: str | None, new: str) -> tuple[str, list[tuple[str, str]]]:
    if old is None:
        return "new", []
    if old == new:
        return "unchanged", []
    lines = difflib.unified_diff(
        old.splitlines(), new.splitlines(), "previous", "this", lineterm=""
    )
    cls = {"+": "add", "-": "del", "@": "hunk"}
    return "changed", [(cls.get(line[:1], ""), line) for line in lines]


def training_curve(run: Path, its: list[IterationSummary]) -> tuple[list[CurvePoint], list[int]]:
    """Every iteration's training episodes on one sample axis (iterations one after another;
    within one, its learned actions' samples come before the task's training)."""
    points: list[CurvePoint] = []
    offset, starts = 0, []
    for it in its:
        starts.append(offset)
        path = run / f"iter_{it.iteration}" / "train" / "curve.csv"
        if path.is_file():
            for row in path.read_text().splitlines()[1:]:
                samples, ret, _, won = row.split(",")
                points.append((offset + it.learned_samples + int(samples), float(ret), int(won)))
        offset += it.samples
    return points, starts


def collect(run: Path, links: list[tuple[str, str]] | None = None) -> Report:
    """The report's content for the run directory `run`."""
    summary_path = run / "summary.json"
    if not summary_path.is_file():
        raise UserError(
            f"{run} has no summary.json: not a finished rlgpt run (a stopped run is finished "
            "with `rlgpt resume`)"
        )
    summary = RunSummary.model_validate_json(summary_path.read_text())
    views: list[IterationView] = []
    last_source: dict[str, str] = {}
    for it in summary.iterations:
        d = run / f"iter_{it.iteration}"
        checked = (_json(d / "validation.json") or {"actions": []})["actions"]
        validation = {a["name"]: a.get("error_kind") or "ok" for a in checked}
        actions = []
        for py in sorted((d / "actions").glob("*.py")):
            source = py.read_text(errors="replace")
            status, diff = _diff(last_source.get(py.stem), source)
            last_source[py.stem] = source
            actions.append(ActionView(py.stem, source, status, diff, validation.get(py.stem, "-")))
        evaluation = _json(d / "eval.json") or {}
        views.append(
            IterationView(
                summary=it,
                plan=(_json(d / "decomposition.json") or {}).get("sub_actions", []),
                actions=actions,
                critique=_json(d / "critique.json") or {},
                rl_config=_json(d / "rl_config.json") or {},
                ends=evaluation.get("ends", {}),
                chain=iteration_chain(run, it.iteration),
            )
        )
    points, starts = training_curve(run, summary.iterations)
    figures = {
        "per_iteration": per_iteration(summary.iterations),
        "learning_curves": learning_curves(points, starts),
    }
    encoded = {k: base64.b64encode(v).decode() for k, v in figures.items()}
    return Report(summary, views, encoded, links or [])
