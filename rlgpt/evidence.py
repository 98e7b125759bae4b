"""What is known of each sub-action's code and learning: the evidence the slow agent decides
from whether to code a sub-action or to learn it (docs/design.md, learned actions).

Gathered by the flow from the run's own record (its critiques, evaluations, validations and
learned actions) and from the skill library's history of the world, and shown to the slow
agent, model or offline author alike. `choose_mode` is the offline author's reading of it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from rlgpt.messages import Critique, Decomposition, EvalReport, ValidationReport

# A sub-action whose episodes die this often while it is the next step dies of its code
DEATHS = 0.15
# Iterations a coded sub-action may block (named a bottleneck) before it is learned
BLOCKED = 2


class LearnedRecord(BaseModel):
    """A learned action's latest training, as the evidence shows it."""

    ok: bool
    reason: str = ""
    reach_before: float | None = None
    reach_after: float | None = None
    skill_reach: float | None = None
    trainings: int = 1


class LibraryRecord(BaseModel):
    """Its best coded version's history in the skill library (other runs of this world)."""

    iterations: int
    mean_reach: float
    mean_deaths: float


class Evidence(BaseModel):
    """One sub-action's record."""

    name: str
    mode: Literal["code", "rl"] | None = Field(default=None, description="In the last plan.")
    reach: float | None = Field(default=None, description="Share of episodes that reached it.")
    deaths: float | None = Field(
        default=None, description="Share of episodes that died while it was the next step."
    )
    blocked_coded: int = Field(default=0, description="Iterations it blocked while coded.")
    blocked_learned: int = Field(default=0, description="Iterations it blocked while learned.")
    excluded: str = Field(default="", description="Why its code was last kept out of training.")
    learned: LearnedRecord | None = None
    library: LibraryRecord | None = None


class RunRecord(BaseModel):
    """What one iteration tells of its sub-actions (the flow keeps one per iteration)."""

    decomposition: Decomposition
    validation: ValidationReport
    evaluation: EvalReport
    critique: Critique
    learned: dict[str, LearnedRecord] = Field(default_factory=dict)


def gather(
    records: list[RunRecord], names: list[str], library: dict[str, LibraryRecord]
) -> dict[str, Evidence]:
    """Each sub-action of `names` with what the iterations so far and the library say."""
    out = {n: Evidence(name=n, library=library.get(n)) for n in names}
    for rec in records:
        modes = {s.name: s.mode for s in rec.decomposition.sub_actions}
        excluded = rec.validation.excluded()
        for name, ev in out.items():
            if name not in modes:
                continue
            ev.mode = modes[name]
            ev.reach = rec.evaluation.subgoal_rates.get(name)
            ev.deaths = rec.evaluation.deaths_at.get(name, 0.0)
            ev.excluded = excluded.get(name, "") if modes[name] == "code" else ""
            if name in rec.critique.bottlenecks:
                if modes[name] == "code":
                    ev.blocked_coded += 1
                else:
                    ev.blocked_learned += 1
            if name in rec.learned:
                before = ev.learned.trainings if ev.learned else 0
                ev.learned = rec.learned[name].model_copy(update={"trainings": before + 1})
    return out


def choose_mode(ev: Evidence, threshold: float) -> tuple[Literal["code", "rl"], str]:
    """The offline author's choice for one sub-action, and why (empty: nothing changed). Code
    is the default: it is written from the reference library. A sub-action is learned where
    the evidence says its code fails: its code was kept out by validation, or it kept
    blocking with deaths while coded (in this run, or in the library's history); a learned
    one goes back to code where its learning did not beat its code alone."""
    if ev.mode == "rl":
        lr = ev.learned
        if lr is None and ev.blocked_learned:
            return "code", "no learned action covers it and it blocked"
        if lr is not None and not lr.ok:
            return "code", f"its learned action was kept out ({lr.reason[:120]})"
        if lr is not None and ev.blocked_learned >= BLOCKED and lr.skill_reach is not None \
                and lr.reach_after is not None and lr.reach_after < lr.skill_reach:  # fmt: skip
            return "code", (
                f"its learned action reached {lr.reach_after:.0%} of its held-out "
                f"start states, its code alone {lr.skill_reach:.0%}"
            )
        return "rl", ""
    if ev.excluded:
        return "rl", f"its code was kept out of training by validation ({ev.excluded[:120]})"
    deaths = ev.deaths or 0.0
    if ev.blocked_coded >= BLOCKED and deaths >= DEATHS:
        return "rl", (
            f"coded, it blocked {ev.blocked_coded} iterations and {deaths:.0%} of "
            "episodes died while it was the next step"
        )
    lib = ev.library
    if (
        ev.mode is None
        and lib is not None
        and lib.iterations >= BLOCKED
        and lib.mean_reach < threshold
        and lib.mean_deaths >= DEATHS
    ):
        return "rl", (
            f"its code reached it in {lib.mean_reach:.0%} of episodes over "
            f"{lib.iterations} earlier iterations, with {lib.mean_deaths:.0%} dying "
            "on the way"
        )
    return "code", ""
