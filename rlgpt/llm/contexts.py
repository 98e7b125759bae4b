"""The request contexts: what each prompt is rendered from, one record per prompt kind.

An agent's role (rlgpt/agents/roles.py) builds one of these, the prompt template
(prompts/<kind>.md) renders it, the exchange records it (LLMRequest.context, as JSON), and the
offline author (rlgpt/llm/offline.py) answers from it. The messages inside are JSON dumps of the
contracts (rlgpt/messages.py: a TaskSpec, a SubAction, ...), since that is what a recorded
exchange holds. A key that is NotRequired is left out when empty, so that the exchanges of
runs without it stay as they were.
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

Dump = dict[str, Any]  # a contract's model_dump()


class DecomposeContext(TypedDict):
    """slow_decompose: the plan of a task, again after a critique."""

    task: Dump
    recipes: str
    previous: Dump | None
    critique: Dump | None
    evidence: NotRequired[dict[str, Dump]]  # each sub-action's record (rlgpt/evidence.py)
    success_threshold: NotRequired[float]


class OneAgentContext(TypedDict):
    """one_agent: the plan and its code from one prompt."""

    task: Dump
    recipes: str
    primitives: list[str]
    skill_api: str
    step_budget: int
    previous: Dump | None
    code: dict[str, str]  # the last code, by sub-action
    critique: Dump | None


class CodeContext(TypedDict):
    """fast_code: one sub-action's coded action."""

    task: Dump
    sub_action: Dump
    recipes: str
    primitives: list[str]
    skill_api: str
    step_budget: int
    feedback: dict[str, str]  # the critic's word on this sub-action, if any


class RepairContext(TypedDict):
    """fast_repair: a coded action rewritten from its validation failure."""

    task: Dump
    sub_action: Dump
    action: Dump
    validation: Dump
    primitives: list[str]
    skill_api: str
    attempt: int
    attempts: int


class RLConfigContext(TypedDict):
    """fast_rlconfig: the task's RL config over the actions that may join its space."""

    task: Dump
    decomposition: Dump
    coded: list[str]
    primitives: list[str]
    ppo: Dump
    sample_budget: int
    learned: NotRequired[list[str]]


class LearnedContext(TypedDict):
    """fast_learned: the RL problem of one learned action."""

    task: Dump
    sub_action: Dump
    decomposition: Dump
    coded: dict[str, int]  # the coded actions that may join its space, with step budgets
    primitives: list[str]
    signals: dict[str, str]  # the dense signals the world offers, and what each measures
    sample_budget: int
    step_budget: int
    ppo: Dump
    previous: Dump | None
    evidence: Dump
    feedback: str


class CriticContext(TypedDict):
    """critic: the verdict on an iteration."""

    task: Dump
    decomposition: Dump
    validation: Dump
    evaluation: Dump
    success_threshold: float
    learned: NotRequired[dict[str, Dump]]  # each learned action's reach before and after
