"""The offline author: a deterministic stand-in for an LLM. It is NOT a language model.

It plays the three roles from the world's recipe graph and reference skill library (the
world's `author()`: rlgpt/worlds/base.py, WorldAuthor), reading the structured context of each
request, and answers in the same JSON a model would. It lets the whole pipeline run, and improve
across iterations, with no key and no network.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from rlgpt.llm.base import LLMReply, LLMRequest
from rlgpt.messages import (
    CodedAction,
    Critique,
    Decomposition,
    EvalReport,
    PlanAndCode,
    RewardTerm,
    RLConfig,
    TaskSpec,
)  # fmt: skip
from rlgpt.worlds import DEFAULT_WORLD, get_world

# Feedback that a coded action's calls ran out of steps: the one fault a longer step budget
# answers. Deaths ("ran out of steps 0x, but ... end in death"), a CPU kill or a crash it
# does not: the action is rewritten at the same budget (a longer one only runs it longer).
_OUT_OF_STEPS = re.compile(r"ran out of steps(?! 0x)|search longer")


def _to_code(critique: dict[str, Any] | None) -> set[str]:
    """Sub-actions the critic found blocking: every bottleneck, and the worst one."""
    if not critique:
        return set()
    names = set(critique.get("bottlenecks") or {})
    if critique.get("failing_sub_action"):
        names.add(critique["failing_sub_action"])
    return names


class OfflineAuthor:
    """Answers slow_decompose, fast_code, fast_repair, fast_rlconfig and critic requests."""

    backend = "offline"

    def __init__(self, model: str = "offline-author-v1", world: str = DEFAULT_WORLD) -> None:
        self.world = get_world(world)
        self.author = self.world.author()
        self.model = f"{model}+skills:{self.author.library_hash()[:12]}"

    def model_for(self, role: str) -> str:
        return self.model

    def sampling(self) -> dict[str, Any]:
        return {}

    def complete(self, request: LLMRequest) -> LLMReply:
        t0 = time.perf_counter()
        handler = getattr(self, f"_{request.kind}")
        answer = handler(request.context)
        text = json.dumps(answer, indent=1)
        prompt_chars = sum(len(m.content) for m in request.messages)
        return LLMReply(
            text=text,
            backend=self.backend,
            model=self.model,
            prompt_tokens=prompt_chars // 4,
            completion_tokens=len(text) // 4,
            latency_s=time.perf_counter() - t0,
        )

    # -- slow agent ----------------------------------------------------------------------
    def _slow_decompose(self, ctx: dict[str, Any]) -> dict[str, Any]:
        task = TaskSpec.model_validate(ctx["task"])
        previous = ctx.get("previous")
        modes = {s["name"]: s["mode"] for s in previous["sub_actions"]} if previous else {}
        return self.author.decompose(task, modes, _to_code(ctx.get("critique"))).model_dump()

    def _one_agent(self, ctx: dict[str, Any]) -> dict[str, Any]:
        """Plays both roles in one answer: the same plan and code as the two agents give."""
        dec = self._slow_decompose(ctx)
        feedback = (ctx.get("critique") or {}).get("fast_feedback") or {}
        budget = int(ctx["step_budget"])
        code = [
            self._fast_code({"step_budget": budget, "sub_action": s, "feedback": feedback})
            for s in dec["sub_actions"] if s["mode"] == "code"
        ]  # fmt: skip
        return PlanAndCode(decomposition=Decomposition.model_validate(dec), actions=[
            CodedAction.model_validate(c) for c in code
        ]).model_dump()  # fmt: skip

    # -- fast agent ----------------------------------------------------------------------
    def _fast_code(self, ctx: dict[str, Any]) -> dict[str, Any]:
        budget = int(ctx["step_budget"])
        name = ctx["sub_action"]["name"]
        said = (ctx.get("feedback") or {}).get(name)
        if said is not None and not name.startswith("make_") and _OUT_OF_STEPS.search(said):
            budget = min(2000, budget * 2)  # its calls ran out of steps: search longer
        return self.author.write_action(name, budget, revised=said is not None).model_dump()

    def _fast_repair(self, ctx: dict[str, Any]) -> dict[str, Any]:
        action = ctx["action"]
        return self.author.write_action(action["name"], int(action["step_budget"])).model_dump()

    def _fast_rlconfig(self, ctx: dict[str, Any]) -> dict[str, Any]:
        dec = Decomposition.model_validate(ctx["decomposition"])
        terms = [
            RewardTerm(achievement=s.name, weight=1.0, cap=s.count)
            for s in dec.sub_actions
            if not s.survival
        ]
        coded = list(ctx["coded"])
        every = all(s.name in coded for s in dec.sub_actions)
        cfg = RLConfig(
            macro_actions=coded,
            reward_terms=terms,
            primitive_actions=[] if every else None,
            success_bonus=5.0,
            observation="symbolic",
            ppo=ctx["ppo"],
            sample_budget=ctx["sample_budget"],
            reasoning="Coded actions join the action space; every sub-goal's achievement is "
            "rewarded up to its count; the task itself gives a bonus."
            + (" Every sub-action is coded: the policy only sequences them." if every else ""),
        )
        return cfg.model_dump()

    # -- critic --------------------------------------------------------------------------
    def _critic(self, ctx: dict[str, Any]) -> dict[str, Any]:
        report = EvalReport.model_validate(ctx["evaluation"])
        dec = Decomposition.model_validate(ctx["decomposition"])
        threshold = float(ctx["success_threshold"])
        if report.success_rate >= threshold:
            why = f"Success rate {report.success_rate:.2f} reaches the threshold."
            return Critique(verdict="success", reasoning=why).model_dump()
        worst, drop, prev = dec.sub_actions[0], -1.0, 1.0
        blocking: dict[str, str] = {}
        fast: dict[str, str] = {}
        for sub in [s for s in dec.sub_actions if not s.survival]:  # each blocking sub-goal
            rate = report.subgoal_rates.get(sub.name, 0.0)
            if prev - rate > drop:
                worst, drop = sub, prev - rate
            seen = f"reached in {rate:.0%} of episodes (the one before: {prev:.0%})"
            if rate < threshold and sub.mode == "rl":
                blocking[sub.name] = f"learned and {seen}: code it."
            elif rate < threshold and prev > 0 and rate < 0.95 * prev:
                fast[sub.name] = _coded_cause(report, sub.name)
                blocking[sub.name] = f"coded and {seen}; {fast[sub.name]}."
            prev = rate
        if not blocking:  # every sub-goal is reached, the task is not: revise the worst
            blocking[worst.name] = f"most episodes stop here (drop {drop:.0%})."
            fast[worst.name] = "the task is rarely finished after it; search longer"
        deaths = report.ends.get("death", 0.0)
        why = f"Blocking: {', '.join(blocking)}. Most episodes stop at '{worst.name}'."
        if deaths:
            why += f" {deaths:.0%} of episodes end in death."
        learned = [n for n, b in blocking.items() if b.startswith("learned")]
        return Critique(
            verdict="revise_plan" if learned else "revise_code",
            failing_sub_action=worst.name,
            bottlenecks=blocking,
            fast_feedback=fast,
            slow_feedback=f"Code the learned sub-actions rarely reached: {', '.join(learned)}."
            if learned
            else "",
            reasoning=why,
        ).model_dump()


def _coded_cause(report: EvalReport, name: str) -> str:
    """Why a coded sub-action loses episodes, from what the evaluation saw: episodes that ended
    in death while none of its calls ran out of steps need the player kept alive on the way;
    otherwise it searches longer (the one revision the offline author makes: a doubled step
    budget)."""
    loops = report.macro_dead_loops.get(name, 0)
    deaths = report.ends.get("death", 0.0)
    if loops or not deaths:
        return f"ran out of steps {loops}x; search longer"
    return f"ran out of steps 0x, but {deaths:.0%} of episodes end in death: keep the player alive"
