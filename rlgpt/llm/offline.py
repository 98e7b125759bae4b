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

from rlgpt.evidence import Evidence, choose_mode
from rlgpt.llm.base import LLMReply, LLMRequest
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
    CodedAction,
    Critique,
    Decomposition,
    EvalReport,
    LearnedConfig,
    PlanAndCode,
    PPOConfig,
    RewardTerm,
    RLConfig,
    ShapingTerm,
    TaskSpec,
)
from rlgpt.worlds import DEFAULT_WORLD, get_world

# Feedback that a coded action's calls ran out of steps: the one fault a longer step budget
# answers. Deaths ("ran out of steps 0x, but ... end in death"), a CPU kill or a crash it
# does not: the action is rewritten at the same budget (a longer one only runs it longer).
_OUT_OF_STEPS = re.compile(r"ran out of steps(?! 0x)|search longer")


class OfflineAuthor:
    """Answers slow_decompose, fast_code, fast_repair, fast_rlconfig, fast_learned and critic
    requests."""

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
    def _slow_decompose(self, ctx: DecomposeContext) -> dict[str, Any]:
        """Each sub-action coded unless its evidence (rlgpt/evidence.py) says its code
        fails; a learned one coded again where its learning did not beat its code."""
        task = TaskSpec.model_validate(ctx["task"])
        threshold = float(ctx.get("success_threshold") or 0.8)
        previous = ctx.get("previous")
        modes = {s["name"]: s["mode"] for s in previous["sub_actions"]} if previous else {}
        evidence = ctx.get("evidence") or {}
        notes: dict[str, str] = {}
        for name, record in evidence.items():
            ev = Evidence.model_validate(record)
            mode, why = choose_mode(ev, threshold)
            modes[name] = mode
            if why:
                notes[name] = f"{'learned' if mode == 'rl' else 'coded again'}: {why}"
        return self.author.decompose(task, modes, notes).model_dump()

    def _one_agent(self, ctx: OneAgentContext) -> dict[str, Any]:
        """Plays both roles in one answer: the same plan and code as the two agents give."""
        dec = self._slow_decompose(DecomposeContext(
            task=ctx["task"], recipes=ctx["recipes"], previous=ctx["previous"],
            critique=ctx["critique"],
        ))  # fmt: skip
        feedback = (ctx["critique"] or {}).get("fast_feedback") or {}
        budget = int(ctx["step_budget"])
        code = [
            self._code(s["name"], budget, feedback)
            for s in dec["sub_actions"]
            if s["mode"] == "code"
        ]
        return PlanAndCode(
            decomposition=Decomposition.model_validate(dec),
            actions=[CodedAction.model_validate(c) for c in code],
        ).model_dump()

    # -- fast agent ----------------------------------------------------------------------
    def _fast_code(self, ctx: CodeContext) -> dict[str, Any]:
        return self._code(ctx["sub_action"]["name"], int(ctx["step_budget"]), ctx["feedback"])

    def _code(self, name: str, budget: int, feedback: dict[str, str]) -> dict[str, Any]:
        """The reference action of `name`, revised where the critic said something of it."""
        said = feedback.get(name)
        if said is not None and not name.startswith("make_") and _OUT_OF_STEPS.search(said):
            budget = min(2000, budget * 2)  # its calls ran out of steps: search longer
        return self.author.write_action(name, budget, revised=said is not None).model_dump()

    def _fast_repair(self, ctx: RepairContext) -> dict[str, Any]:
        action = ctx["action"]
        return self.author.write_action(action["name"], int(action["step_budget"])).model_dump()

    def _fast_learned(self, ctx: LearnedContext) -> dict[str, Any]:
        """A learned action's RL problem: its code (where it passed validation) and the
        survival actions in its space beside every primitive, so the policy learns when to
        call the code and when to act itself; the effect paid, dying charged, health (and,
        for a descent, kills: a floor's ladder opens with them) shaped. A config the critic
        found wanting on deaths charges death twice as much."""
        dec = Decomposition.model_validate(ctx["decomposition"])
        name = ctx["sub_action"]["name"]
        coded = ctx["coded"]
        helpers = [
            n for n in [name, *(s.name for s in dec.sub_actions if s.survival)] if n in coded
        ]
        known = ctx["signals"]
        shaping = [ShapingTerm(signal="health", weight=0.5)] if "health" in known else []
        if name.startswith("enter_") and "kills" in known:
            shaping.append(ShapingTerm(signal="kills", weight=1.0))
        previous = ctx.get("previous") or {}
        death = float(previous.get("death_penalty", 5.0))
        if previous and "death" in (ctx.get("feedback") or ""):
            death *= 2
        # room for its own code's longest call, twice over, within the run's cap
        own = int(coded.get(name, 0)) if isinstance(coded, dict) else 0
        step_budget = min(int(ctx["step_budget"]), max(300, 2 * own))
        sample_budget = int(ctx["sample_budget"])
        ppo = PPOConfig.model_validate(ctx["ppo"]).model_copy(update={"gamma": 0.99})
        return LearnedConfig(
            name=name, macro_actions=helpers, primitive_actions=None, effect_bonus=10.0,
            shaping=shaping, death_penalty=death, step_budget=step_budget, ppo=ppo,
            sample_budget=max(sample_budget, 4 * step_budget),
            reasoning="Its code and the survival actions join every primitive: the policy "
            "learns when to call them and when to act (fight, flee, rest) itself; the effect "
            "pays, death costs, health is shaped.",
        ).model_dump()  # fmt: skip

    def _fast_rlconfig(self, ctx: RLConfigContext) -> dict[str, Any]:
        dec = Decomposition.model_validate(ctx["decomposition"])
        terms = [
            RewardTerm(achievement=s.name, weight=1.0, cap=s.count)
            for s in dec.sub_actions
            if not s.survival
        ]
        coded = list(ctx["coded"])
        learned = list(ctx.get("learned") or [])
        every = all(s.name in coded or s.name in learned for s in dec.sub_actions)
        cfg = RLConfig(
            learned_actions=learned,
            macro_actions=coded,
            reward_terms=terms,
            primitive_actions=[] if every else None,
            success_bonus=5.0,
            observation="symbolic",
            ppo=PPOConfig.model_validate(ctx["ppo"]),
            sample_budget=ctx["sample_budget"],
            reasoning="Coded actions join the action space; every sub-goal's achievement is "
            "rewarded up to its count; the task itself gives a bonus."
            + (" Every sub-action is coded: the policy only sequences them." if every else ""),
        )
        return cfg.model_dump()

    # -- critic --------------------------------------------------------------------------
    def _critic(self, ctx: CriticContext) -> dict[str, Any]:
        report = EvalReport.model_validate(ctx["evaluation"])
        dec = Decomposition.model_validate(ctx["decomposition"])
        threshold = float(ctx["success_threshold"])
        if report.success_rate >= threshold:
            why = f"Success rate {report.success_rate:.2f} reaches the threshold."
            return Critique(verdict="success", reasoning=why).model_dump()
        worst, drop, prev = dec.sub_actions[0], -1.0, 1.0
        blocking: dict[str, str] = {}
        fast: dict[str, str] = {}
        learned = ctx.get("learned") or {}
        for sub in [s for s in dec.sub_actions if not s.survival]:  # each blocking sub-goal
            rate = report.subgoal_rates.get(sub.name, 0.0)
            if prev - rate > drop:
                worst, drop = sub, prev - rate
            seen = f"reached in {rate:.0%} of episodes (the one before: {prev:.0%})"
            if rate < threshold and sub.mode == "rl":
                fast[sub.name], blocking[sub.name] = _learned_cause(learned.get(sub.name), seen)
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
        to_code = [n for n, b in blocking.items() if b.endswith(": code it.")]
        for name in to_code:
            fast.pop(name, None)
        return Critique(
            verdict="revise_plan" if to_code else "revise_code",
            failing_sub_action=worst.name,
            bottlenecks=blocking,
            fast_feedback={n: f for n, f in fast.items() if f},
            slow_feedback=f"Code the learned sub-actions that did not learn: {', '.join(to_code)}."
            if to_code
            else "",
            reasoning=why,
        ).model_dump()


def _learned_cause(record: dict[str, Any] | None, seen: str) -> tuple[str, str]:
    """(feedback for the fast agent, the bottleneck) of a learned sub-action rarely reached:
    one whose training raised its reach from its start states trains further; one with no
    learned action, or whose learning did not beat its code alone, is coded."""
    if not record:
        return "", f"learned, no learned action for it, and {seen}: code it."
    after, before = record.get("reach_after"), record.get("reach_before")
    skill = record.get("skill_reach")
    if not record.get("ok") and record.get("reason", "").startswith(("config", "diverged")):
        why = record.get("reason", "")
        return f"its RL config failed: {why}; give it a new reward", f"learned and {seen}; {why}"
    if after is not None and (skill is None or after >= skill) and after > (before or 0.0):
        said = f"its reach from held-out start states rose from {before:.0%} to {after:.0%}" + (
            f" (its code alone: {skill:.0%})" if skill is not None else ""
        )
        return f"learned: {said}: train further", f"learned and {seen}; {said}: train further."
    said = f"its learning did not beat {'its code alone' if skill is not None else 'chance'}"
    return "", f"learned and {seen}; {said}: code it."


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
