"""Keeping what a run won: the final policy is the best iteration's, and a code revision that
lowered its sub-action's reach rate is kept out; both judged on selection episodes
(`eval.selection_episodes`, seeds held apart from the evaluation's), so the figure a run
reports is never the figure that chose it (docs/design.md, keeping what a run won)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from rlgpt.lineage.summary import IterationSummary
from rlgpt.messages import CodedAction, EvalReport


def best_iteration(its: Sequence[IterationSummary]) -> IterationSummary:
    """The iteration with the highest selection rate (the latest on a tie: it trained longer);
    without selection episodes, the last one."""
    scored = [i for i in its if i.selection_rate is not None]
    if not scored:
        return its[-1]
    return max(scored, key=lambda i: (i.selection_rate, i.iteration))


def revised(before: Sequence[CodedAction], after: Sequence[CodedAction]) -> dict[str, CodedAction]:
    """The coded actions whose code changed from `before` to `after`, by name: their earlier
    version."""
    old = {c.name: c for c in before}
    return {c.name: old[c.name] for c in after if c.name in old and old[c.name].source != c.source}


def regressions(changed: Sequence[str], before: EvalReport, after: EvalReport) -> dict[str, str]:
    """Revised sub-actions reached less often on the selection episodes after their revision
    than before it, by more than the noise of the two rates (one standard error of their
    difference, and at least one episode): name -> the reason, in words."""
    out = {}
    n = max(1, min(before.episodes, after.episodes))
    for name in changed:
        was, now = before.subgoal_rates.get(name, 0.0), after.subgoal_rates.get(name, 0.0)
        noise = max(1.0 / n, math.sqrt((was * (1 - was) + now * (1 - now)) / n))
        if was - now > noise:
            out[name] = (
                f"its revision lowered its reach rate on the selection episodes from "
                f"{was:.2f} to {now:.2f}: the earlier code is kept"
            )
    return out
