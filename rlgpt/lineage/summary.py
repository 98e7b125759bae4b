"""summary.json (the contract scripts and CI read) and the iteration table people read."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator

from rlgpt.textsafe import storable_tree


class _Record(BaseModel):
    """Any text is accepted and stored so that it reads back (rlgpt/textsafe.py)."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _storable_text(cls, data: Any) -> Any:
        return storable_tree(data)


class IterationSummary(_Record):
    iteration: int
    outer: int
    inner: int
    success_rate: float
    samples: int
    dead_loop_ratio: float
    coded: list[str]
    learned: list[str]
    validation: str
    excluded: dict[str, str] = {}
    verdict: str
    failing_sub_action: str | None = None
    bottlenecks: list[str] = []
    tokens: int = 0
    tokens_by_role: dict[str, int] = {}
    cost_usd: float = 0.0
    llm_calls: int = 0
    train_samples_per_s: float = 0.0
    selection_rate: float | None = None  # success on the selection episodes (none: not run)
    reverted: dict[str, str] = {}  # coded actions whose revision was kept out, and why
    learned_samples: int = 0  # of `samples`: the learned actions' trainings and start episodes
    learned_actions: dict[str, str] = {}  # learned action -> its reach before -> after, or why out


class RunSummary(_Record):
    run_id: str
    task: str
    world: str = "crafter"  # summaries written before worlds were all Crafter's
    llm: str
    final_success_rate: float  # the final policy's evaluation: the selected iteration's
    selected_iteration: int | None = None  # whose policy is final (best on selection seeds)
    last_success_rate: float | None = None  # the last iteration's evaluation, for comparison
    final_policy: str | None = None  # the selected iteration's checkpoint, in the run dir
    iterations: list[IterationSummary]
    status: str = "complete"
    wall_s: float = 0.0
    tokens: int = 0
    cost_usd: float = 0.0


_HEADER = (
    f"{'iter':>4} {'loop':>5}  {'coded':<38} {'learned':<20} {'valid':<7} "
    f"{'samples':>8} {'success':>7} {'select':>6} {'deadloop':>8}  critique"
)


def table_header() -> str:
    return _HEADER + "\n" + "-" * len(_HEADER)


def table_row(it: IterationSummary) -> str:
    coded = ",".join(it.coded) or "-"
    learned = ",".join(it.learned) or "-"
    named = it.bottlenecks or ([it.failing_sub_action] if it.failing_sub_action else [])
    critique = it.verdict + (f" ({', '.join(named)})" if named else "")
    if it.excluded:  # failed validation: kept out of training, and why
        critique += "; excluded: " + ", ".join(f"{n} ({c})" for n, c in it.excluded.items())
    if it.reverted:  # a revision that lowered its reach rate: the earlier code stays
        critique += "; reverted: " + ", ".join(it.reverted)
    select = "-" if it.selection_rate is None else f"{it.selection_rate:.2f}"
    return (
        f"{it.iteration:>4} {it.outer:>2}.{it.inner:<2}  {coded:<38} {learned:<20} "
        f"{it.validation:<7} {it.samples:>8} {it.success_rate:>7.2f} {select:>6} "
        f"{it.dead_loop_ratio:>8.2f}  {critique}"
    )
