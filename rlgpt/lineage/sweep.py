"""A sweep: the grid of runs `rlgpt sweep` fans out (tasks x seeds), each run's outcome, and the
summary table written for the whole grid (docs/scaling.md)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from statistics import mean, pstdev

from pydantic import BaseModel, Field

from rlgpt.lineage.layout import read_model, write_model
from rlgpt.lineage.summary import RunSummary


class SweepRun(BaseModel):
    """One unit of work: a whole `rlgpt run` with its own run directory under the sweep."""

    task: str
    seed: int
    run_id: str
    runs_dir: str  # the sweep's directory: every run writes only under runs_dir/run_id/
    params_path: str | None  # the params file the sweep was given (None: the defaults)
    sets: list[str] = Field(default_factory=list)  # --set KEY=VALUE, the same for every run
    iterations: int | None = None
    project: str  # the working directory of every run (relative stores resolve there)

    @property
    def root(self) -> Path:
        return Path(self.runs_dir) / self.run_id


class SweepRow(BaseModel):
    """What one run of the grid ended with."""

    task: str
    seed: int
    run_id: str
    status: str  # complete | budget_exhausted | failed
    final_success_rate: float = 0.0
    iterations: int = 0
    samples: int = 0
    wall_s: float = 0.0
    attempts: int = 1  # 2+: it was retried (a failure, or a worker that died) and resumed
    host: str = ""  # the process that finished it: hostname:pid of the Dask worker
    error: str = ""


class SweepSummary(BaseModel):
    """summary.json of a sweep."""

    sweep_id: str
    tasks: list[str]
    seeds: list[int]
    runner: str  # e.g. "dask (LocalCluster, 2 workers x 1 thread)" or "sequential"
    rows: list[SweepRow]
    wall_s: float
    samples: int
    samples_per_s: float  # all runs' primitive samples over the sweep's wall time


def row_from_run(spec: SweepRun, attempts: int, host: str, wall_s: float) -> SweepRow:
    """The row of a run whose summary.json was written (finished or stopped cleanly)."""
    summary = read_model(spec.root / "summary.json", RunSummary)
    return SweepRow(
        task=spec.task, seed=spec.seed, run_id=spec.run_id, status=summary.status,
        final_success_rate=summary.final_success_rate, iterations=len(summary.iterations),
        samples=sum(i.samples for i in summary.iterations), wall_s=round(wall_s, 1),
        attempts=attempts, host=host,
    )  # fmt: skip


def finished(spec: SweepRun) -> bool:
    """Whether this run ended for good: it completed (its manifest is written last), or it
    stopped at its LLM budget (another attempt would stop there too). A rerun of the sweep
    reads it instead of running it again."""
    if (spec.root / "manifest.json").is_file():
        return True
    path = spec.root / "summary.json"
    return path.is_file() and read_model(path, RunSummary).status == "budget_exhausted"


def progress_line(done: int, total: int, elapsed: float, row: SweepRow) -> str:
    """One live line per finished run, with the sweep's ETA at the pace so far."""
    eta = elapsed / done * (total - done)
    what = f"{row.status}, success {row.final_success_rate:.2f}" if not row.error else row.error
    return (
        f"[{done}/{total}] {row.run_id}: {what} ({row.samples} samples, {row.attempts} "
        f"attempt(s)); {elapsed:.0f} s elapsed, ETA {eta:.0f} s"
    )


def status_line(specs: list[SweepRun], done: set[str], elapsed: float) -> str:
    """A live line while runs are under way: what each started run is doing (its last stage
    start, from its stage log), how many are done and how many wait."""
    doing = []
    for spec in specs:
        log = spec.root / "stage_log.jsonl"
        if spec.run_id in done or not log.is_file():
            continue
        lines = log.read_text().splitlines()
        last = json.loads(lines[-1]) if lines else {}
        doing.append(
            f"{spec.task} s{spec.seed}: {last.get('stage', 'starting')} "
            f"iter {last.get('iteration', '-')}"
        )
    waiting = len(specs) - len(done) - len(doing)
    return f"[{len(done)}/{len(specs)} done, {waiting} waiting, {elapsed:.0f} s] " + "; ".join(
        doing
    )


def table(summary: SweepSummary) -> str:
    """Per run, then per task the mean and spread over seeds."""
    lines = [
        f"{'task':<20} {'seed':>4} {'success':>7} {'iters':>5} {'samples':>9} "
        f"{'wall_s':>7} {'tries':>5}  status"
    ]
    for r in summary.rows:
        lines.append(
            f"{r.task:<20} {r.seed:>4} {r.final_success_rate:>7.2f} {r.iterations:>5} "
            f"{r.samples:>9} {r.wall_s:>7.0f} {r.attempts:>5}  {r.status}"
            + (f" ({r.error})" if r.error else "")
        )
    lines.append("")
    for task in summary.tasks:
        rates = [r.final_success_rate for r in summary.rows if r.task == task]
        done = sum(r.status != "failed" for r in summary.rows if r.task == task)
        if rates:
            lines.append(
                f"{task:<20} mean {mean(rates):.2f} +- {pstdev(rates):.2f} over "
                f"{len(rates)} seed(s), {done} finished"
            )
    lines.append(
        f"\n{len(summary.rows)} run(s), {summary.samples} samples in "
        f"{summary.wall_s:.0f} s: {summary.samples_per_s:.0f} samples/s in all "
        f"({summary.runner})"
    )
    return "\n".join(lines)


def write(root: Path, summary: SweepSummary) -> Path:
    """summary.json, summary.md (the table) and summary.csv under the sweep's directory."""
    path = write_model(root / "summary.json", summary)
    (root / "summary.md").write_text("```\n" + table(summary) + "\n```\n")
    with (root / "summary.csv").open("w", newline="") as f:
        out = csv.DictWriter(f, fieldnames=list(SweepRow.model_fields))
        out.writeheader()
        out.writerows(r.model_dump() for r in summary.rows)
    return path
