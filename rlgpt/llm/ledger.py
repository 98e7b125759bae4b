"""Token and dollar accounting of a run, read from its recorded exchanges; the budget check."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from pydantic import BaseModel, Field

from rlgpt.config import LLMParams
from rlgpt.llm.base import BudgetExceeded
from rlgpt.llm.exchanges import read_exchange


class Usage(BaseModel):
    """Tokens and cost, in all and by role."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    by_role: dict[str, int] = Field(default_factory=dict)
    calls: int = 0
    cached: int = 0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def usage_of(paths: list[Path], params: LLMParams) -> Usage:
    """Usage of the given exchange files (cache hits cost nothing)."""
    u = Usage()
    roles: dict[str, int] = defaultdict(int)
    for path in paths:
        ex = read_exchange(path)
        if ex.cached:
            u.cached += 1
            continue
        pt, ct = ex.reply.prompt_tokens, ex.reply.completion_tokens
        u.prompt_tokens += pt
        u.completion_tokens += ct
        u.calls += 1
        roles[ex.request.agent] += pt + ct
        price = params.prices.get(ex.model)
        if price is not None:
            u.cost_usd += pt / 1000 * price.prompt_per_1k + ct / 1000 * price.completion_per_1k
    u.by_role = dict(roles)
    return u


def run_usage(run_root: Path, params: LLMParams) -> Usage:
    return usage_of(sorted(run_root.glob("iter_*/llm/*.json")), params)


def check_budget(run_root: Path, params: LLMParams) -> None:
    """Raise BudgetExceeded once the run has spent its token or dollar budget."""
    if params.budget_tokens is None and params.budget_usd is None:
        return
    u = run_usage(run_root, params)
    if params.budget_tokens is not None and u.tokens >= params.budget_tokens:
        raise BudgetExceeded(
            f"token budget spent: {u.tokens} of {params.budget_tokens} tokens; "
            "everything so far is saved in the run directory"
        )
    if params.budget_usd is not None and u.cost_usd >= params.budget_usd:
        raise BudgetExceeded(
            f"dollar budget spent: ${u.cost_usd:.4f} of ${params.budget_usd:.4f}; "
            "everything so far is saved in the run directory"
        )
