"""The three roles, each a thin class over Agent.ask with one message model per answer."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from rlgpt.agents.base import Agent
from rlgpt.config import LearnParams
from rlgpt.evidence import Evidence
from rlgpt.llm.contexts import (
    CodeContext,
    CriticContext,
    DecomposeContext,
    LearnedContext,
    OneAgentContext,
    RepairContext,
    RLConfigContext,
)
from rlgpt.messages import (
    ActionValidation,
    CodedAction,
    Critique,
    Decomposition,
    EvalReport,
    LearnedConfig,
    PlanAndCode,
    PPOConfig,
    RLConfig,
    SubAction,
    TaskSpec,
    ValidationReport,
)
from rlgpt.worlds import get_world
from rlgpt.worlds.base import PromptValues


def game(task: TaskSpec) -> PromptValues:
    """What the prompts say about the task's world: its facts (`recipes`), `primitives` and
    `skill_api` reference (World.prompt_values)."""
    return get_world(task.world).prompt_values()


_CODE = re.compile(r"```(?:python|py)?[ \t]*\n(.*?)```", re.S)


def code_fallback(name: str, step_budget: int) -> Callable[[str], CodedAction | None]:
    """Accept a reply that is plain code (fenced or not) defining `def <name>(view):`."""

    def rescue(text: str) -> CodedAction | None:
        m = _CODE.search(text)
        code = m.group(1) if m else text
        start = code.find(f"def {name}(")
        if start < 0:
            return None
        return CodedAction(
            name=name, docstring="", source=code[start:].strip() + "\n", step_budget=step_budget
        )

    return rescue


class SlowAgent(Agent):
    role = "slow"

    def decompose(
        self, task: TaskSpec, previous: Decomposition | None, critique: Critique | None,
        evidence: dict[str, Evidence] | None = None, success_threshold: float = 0.8,
    ) -> Decomposition:  # fmt: skip
        """The plan; `evidence`: each sub-action's record of code and learning so far (shown
        only when there is some, so the prompts of runs without any stay the same)."""
        context = DecomposeContext(
            task=task.model_dump(),
            recipes=game(task)["recipes"],
            previous=previous.model_dump() if previous else None,
            critique=critique.model_dump() if critique else None,
        )
        if evidence:
            context["evidence"] = {n: e.model_dump() for n, e in evidence.items()}
            context["success_threshold"] = success_threshold
        dec = self.ask("slow_decompose", Decomposition, **context)
        if dec.task != task.name:
            dec = dec.model_copy(update={"task": task.name})
        return dec


class OneAgent(Agent):
    """One prompt plays planner and coder (run.agents: one; the agents ablation)."""

    role = "one"

    def plan_and_code(
        self, task: TaskSpec, previous: Decomposition | None, code: list[CodedAction],
        critique: Critique | None, step_budget: int,
    ) -> tuple[Decomposition, list[CodedAction]]:  # fmt: skip
        """The plan and its code from one reply. A sub-action marked 'code' that came without
        code is learned instead (mode 'rl'), and code for no coded sub-action is dropped:
        nothing reaches training that the plan does not name."""
        values = game(task)
        context = OneAgentContext(
            task=task.model_dump(),
            recipes=values["recipes"],
            primitives=values["primitives"],
            skill_api=values["skill_api"],
            step_budget=step_budget,
            previous=previous.model_dump() if previous else None,
            code={c.name: c.source for c in code},
            critique=critique.model_dump() if critique else None,
        )
        reply = self.ask("one_agent", PlanAndCode, **context)
        written = {a.name: a for a in reply.actions}
        subs = [
            s.model_copy(update={"mode": "rl"}) if s.mode == "code" and s.name not in written else s
            for s in reply.decomposition.sub_actions
        ]
        dec = reply.decomposition.model_copy(update={"task": task.name, "sub_actions": subs})
        coded = [written[s.name] for s in subs if s.mode == "code"]
        return dec, coded


class FastAgent(Agent):
    role = "fast"

    def write_action(
        self, task: TaskSpec, sub: SubAction, step_budget: int, feedback: dict[str, str],
        candidate: int = 0,
    ) -> CodedAction:  # fmt: skip
        """Code one sub-action; `candidate` i > 0 asks for another sample (scale.candidates)."""
        values = game(task)
        context = CodeContext(
            task=task.model_dump(), sub_action=sub.model_dump(), recipes=values["recipes"],
            primitives=values["primitives"], skill_api=values["skill_api"],
            step_budget=step_budget, feedback={k: v for k, v in feedback.items() if k == sub.name},
        )  # fmt: skip
        action = self.ask("fast_code", CodedAction, fallback=code_fallback(sub.name, step_budget),
                          candidate=candidate, **context)  # fmt: skip
        return action.model_copy(update={"name": sub.name})

    def repair(
        self, task: TaskSpec, sub: SubAction, action: CodedAction, validation: ActionValidation,
        attempt: int = 1, attempts: int = 1,
    ) -> CodedAction:  # fmt: skip
        """Rewrite `action` from its validation failure (class, message, trace)."""
        values = game(task)
        context = RepairContext(
            task=task.model_dump(), sub_action=sub.model_dump(), action=action.model_dump(),
            validation=validation.model_dump(exclude={"scenarios"}),
            primitives=values["primitives"], skill_api=values["skill_api"], attempt=attempt,
            attempts=attempts,
        )  # fmt: skip
        rescue = code_fallback(action.name, action.step_budget)
        fixed = self.ask("fast_repair", CodedAction, fallback=rescue, **context)
        return fixed.model_copy(update={"name": action.name})

    def rl_config(
        self, task: TaskSpec, dec: Decomposition, coded: list[str], ppo: PPOConfig,
        sample_budget: int, learned: list[str] | None = None,
    ) -> RLConfig:  # fmt: skip
        """The task's RL config; `learned`: the learned actions trained this iteration that
        may join its space (the request names them only when there are some, so the
        exchanges of runs without learned actions stay the same)."""
        context = RLConfigContext(
            task=task.model_dump(), decomposition=dec.model_dump(), coded=coded,
            primitives=game(task)["primitives"], ppo=ppo.model_dump(), sample_budget=sample_budget,
        )  # fmt: skip
        if learned:
            context["learned"] = learned
        cfg = self.ask("fast_rlconfig", RLConfig, **context)
        unknown = [m for m in cfg.macro_actions if m not in coded]
        if unknown:  # never insert an action that did not pass validation
            cfg = cfg.model_copy(
                update={"macro_actions": [m for m in cfg.macro_actions if m in coded]}
            )
        known = [n for n in cfg.learned_actions if n in (learned or [])]
        if known != cfg.learned_actions:  # only trained learned actions that passed
            cfg = cfg.model_copy(update={"learned_actions": known})
        # the budget is the user's (train.sample_budget): a model cannot spend more, or less
        kept = kept_primitives(cfg, dec, game(task)["primitives"])
        return cfg.model_copy(update={"primitive_actions": kept, "sample_budget": sample_budget})

    def learned_config(
        self, task: TaskSpec, sub: SubAction, dec: Decomposition, coded: dict[str, int], *,
        signals: dict[str, str], learn: LearnParams, ppo: PPOConfig,
        check: Callable[[LearnedConfig], str | None], previous: LearnedConfig | None = None,
        evidence: dict[str, Any] | None = None, feedback: str = "",
    ) -> LearnedConfig:  # fmt: skip
        """The RL config of the learned action for `sub`: its reward (effect bonus, terms,
        dense signals, death penalty), its own action space (`coded`: the coded actions that
        may join it, with each one's step budget), its budgets. A config `check`
        rejects (unknown term, signal or action, a budget beyond the run's) goes back to the
        model with the reason."""
        context = LearnedContext(
            task=task.model_dump(), sub_action=sub.model_dump(), decomposition=dec.model_dump(),
            coded=coded, primitives=game(task)["primitives"], signals=signals,
            sample_budget=learn.sample_budget, step_budget=learn.step_budget,
            ppo=ppo.model_dump(), previous=previous.model_dump() if previous else None,
            evidence=evidence or {}, feedback=feedback,
        )  # fmt: skip
        cfg = self.ask("fast_learned", LearnedConfig, check=check, **context)
        return cfg.model_copy(update={"name": sub.name})


def kept_primitives(cfg: RLConfig, dec: Decomposition, primitives: list[str]) -> list[str] | None:
    """The primitives the action space keeps: the model's choice, without names the game does
    not have (`primitives`), and all of them (None) while a sub-action is not inserted (RL
    must reach it) or when nothing would be left to choose."""
    if cfg.primitive_actions is None:
        return None
    known = [p for p in cfg.primitive_actions if p in primitives]
    inserted = set(cfg.macro_actions) | set(cfg.learned_actions)
    uncovered = [s.name for s in dec.sub_actions if s.name not in inserted]
    if uncovered or not (known or cfg.macro_actions):
        return None
    return known


class CriticAgent(Agent):
    role = "critic"

    def critique(
        self, task: TaskSpec, dec: Decomposition, validation: ValidationReport,
        evaluation: EvalReport, success_threshold: float, learned: list[Any] | None = None,
    ) -> Critique:  # fmt: skip
        """The model's critique, plus what rlgpt knows for certain: which coded actions were kept
        out of training by validation, and which failed when played (they also get fast-agent
        feedback, so the next round rewrites them). `learned`: the iteration's learned actions
        (rlgpt/rl/learned.py, LearnedResult), shown with their reach before and after."""
        context = CriticContext(
            task=task.model_dump(),
            decomposition=dec.model_dump(),
            validation=validation.model_dump(
                include={"actions": {"__all__": {"name", "ok", "error_kind", "message"}}}
            ),
            evaluation=evaluation.model_dump(),
            success_threshold=success_threshold,
        )
        if learned:
            keep = {"ok", "reason", "reach_before", "reach_after", "skill_reach", "deaths_after",
                    "out_of_steps_after", "samples", "kept_start"}  # fmt: skip
            context["learned"] = {r.name: r.model_dump(include=keep) for r in learned}
        verdict = self.ask("critic", Critique, **context)
        excluded = validation.excluded()
        faults = evaluation.macro_faults
        if not excluded and not faults and not verdict.excluded:
            return verdict
        feedback = dict(verdict.fast_feedback)
        for name, why in excluded.items():
            feedback.setdefault(name, f"excluded from training, it failed validation: {why}")
        for name, why in faults.items():  # it passed validation, then failed when played
            feedback.setdefault(name, f"failed during evaluation: {why}")
        return verdict.model_copy(update={"excluded": excluded, "fast_feedback": feedback})


def withheld_critique(evaluation: EvalReport, success_threshold: float) -> Critique:
    """What the loop gets when the critic is switched off (`run.critic: false`, the critic
    ablation): whether the iteration reached the threshold, and no feedback, no bottleneck, no
    excluded action; the agents' next round sees none of the evaluation."""
    reached = evaluation.success_rate >= success_threshold
    return Critique(
        verdict="success" if reached else "revise_code",
        reasoning="critic withheld (run.critic: false): success rate "
        f"{evaluation.success_rate:.2f} vs threshold {success_threshold:.2f}",
    )
