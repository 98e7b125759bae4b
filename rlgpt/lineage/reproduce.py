"""Reproduction of a recorded run: its parameters with the replay backend, and the comparison of
the two runs' metrics within a tolerance."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from rlgpt.config import Params, read_run_params
from rlgpt.errors import UserError
from rlgpt.lineage.summary import RunSummary


def replay_params(runs_dir: Path, source: str | None) -> Params:
    """A recorded run's parameters, switched to replay its LLM exchanges."""
    if not source:
        raise UserError("--llm replay needs --from RUN_ID (the run to replay)")
    path = runs_dir / source / "params.yaml"
    if not (runs_dir / source / "manifest.json").is_file():
        raise UserError(f"run '{source}' under {runs_dir}/ did not complete: nothing to replay")
    params = read_run_params(path)
    params.llm.backend, params.llm.replay_from = "replay", source
    params.run.runs_dir = str(runs_dir)
    return params


class Comparison(BaseModel):
    """A reproduction against its original: per-iteration deltas and the verdict."""

    original: str
    reproduction: str
    tolerance: float
    passed: bool
    max_abs_delta: float
    deltas: list[dict[str, float]] = Field(description="Per iteration: metric -> repro - orig.")
    reason: str = ""


def compare(orig: RunSummary, repro: RunSummary, tolerance: float) -> Comparison:
    """Pass when both ran the same iterations and every rate is within `tolerance`."""
    deltas: list[dict[str, float]] = []
    for a, b in zip(orig.iterations, repro.iterations, strict=False):
        deltas.append(
            {
                "iteration": a.iteration,
                "success_rate": b.success_rate - a.success_rate,
                "dead_loop_ratio": b.dead_loop_ratio - a.dead_loop_ratio,
                "samples": float(b.samples - a.samples),
            }
        )
    rates = [abs(d[k]) for d in deltas for k in ("success_rate", "dead_loop_ratio")]
    worst = max(rates, default=0.0)
    same_plan = [(i.coded, i.learned) for i in orig.iterations] == [
        (i.coded, i.learned) for i in repro.iterations
    ]
    reason = "" if same_plan else "the plans differ (coded/learned per iteration)"
    if worst > tolerance:
        reason = f"a rate moved by {worst:.3f} > tolerance {tolerance}"
    return Comparison(
        original=orig.run_id, reproduction=repro.run_id, tolerance=tolerance,
        passed=not reason, max_abs_delta=worst, deltas=deltas, reason=reason,
    )  # fmt: skip
