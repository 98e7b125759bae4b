"""The six RL-GPT stages (plus the fast agent's repair and RL design) as Prefect tasks.

Each reads the RunContext, calls the library, writes its result under runs/<id>/iter_<k>/ and
returns a pydantic model. LLM stages retry only transient errors; others retry once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prefect import task

from rlgpt.agents.roles import CriticAgent, FastAgent, OneAgent, SlowAgent, withheld_critique
from rlgpt.evidence import Evidence
from rlgpt.faults import maybe_crash
from rlgpt.library.reuse import LIBRARY_USED, record_iteration, recorded, retrieve
from rlgpt.lineage.context import RunContext
from rlgpt.lineage.layout import write_json, write_model
from rlgpt.lineage.summary import IterationSummary, RunSummary
from rlgpt.llm.base import LLM
from rlgpt.llm.factory import make_llm
from rlgpt.llm.ledger import usage_of
from rlgpt.messages import (
    CodedAction,
    Critique,
    Decomposition,
    EvalReport,
    RLConfig,
    ValidationReport,
)
from rlgpt.rl.evaluate import EVAL_SEED_BASE, SELECTION_SEED_BASE, EvalSettings
from rlgpt.rl.evaluate import evaluate as run_evaluation
from rlgpt.rl.learned import LearnedResult
from rlgpt.rl.train import TrainResult, TrainSettings
from rlgpt.rl.train import train as run_training
from rlgpt.trial import LearnedAction, Trial
from rlgpt.validation.validate import validate_all
from tasks.caching import finish, stage


def agent_args(ctx: RunContext, k: int) -> tuple[LLM, Path]:
    llm = make_llm(ctx.params.llm, ctx.params.run.runs_dir, ctx.task.world)
    return llm, ctx.layout.llm_dir(k)


def agent_kwargs(ctx: RunContext) -> dict[str, Any]:
    p = ctx.params.llm
    return {"format_retries": p.format_retries, "run_root": ctx.layout.root, "llm_params": p}


@stage("decompose", retries=2)
def decompose(
    ctx: RunContext,
    k: int,
    previous: Decomposition | None,
    critique: Critique | None,
    evidence: dict[str, Evidence] | None = None,
) -> Decomposition:
    """Slow agent: the plan, each sub-action coded or learned from `evidence` (what the run
    and the skill library know of each one's code and learning; none before any)."""
    slow = SlowAgent(*agent_args(ctx, k), **agent_kwargs(ctx))
    dec = slow.decompose(ctx.task, previous, critique, evidence, ctx.params.run.success_threshold)
    first = ctx.params.run.learn_first
    if previous is None and first:  # the user's choice for the first plan, not the agent's
        subs = [
            s.model_copy(update={"mode": "rl"}) if s.name in first else s for s in dec.sub_actions
        ]
        dec = dec.model_copy(update={"sub_actions": subs})
    finish(ctx, [write_model(ctx.layout.file(k, "decomposition.json"), dec)])
    return dec


@stage("plan_and_code", retries=2)
def plan_and_code(
    ctx: RunContext,
    k: int,
    previous: Decomposition | None,
    coded: list[CodedAction],
    critique: Critique | None,
) -> tuple[Decomposition, list[CodedAction]]:
    """One agent (run.agents: one): the plan and its code from one prompt."""
    one = OneAgent(*agent_args(ctx, k), **agent_kwargs(ctx))
    budget = ctx.params.train.macro_step_budget
    dec, actions = one.plan_and_code(ctx.task, previous, coded, critique, budget)
    files = [write_model(ctx.layout.file(k, "decomposition.json"), dec)]
    finish(ctx, [*files, *save_actions(ctx, k, actions)])
    return dec, actions


def save_actions(ctx: RunContext, k: int, coded: list[CodedAction]) -> list[Path]:
    out = ctx.layout.actions_dir(k)
    out.mkdir(parents=True, exist_ok=True)
    files = []
    for c in coded:
        (out / f"{c.name}.py").write_text(c.source)
        files += [out / f"{c.name}.py", write_model(out / f"{c.name}.json", c)]
    return files


@stage("generate_code", retries=2)
def generate_code(
    ctx: RunContext,
    k: int,
    dec: Decomposition,
    feedback: dict[str, str],
    previous: list[CodedAction],
) -> list[CodedAction]:
    """Fast agent: code each 'code' sub-action (reusing earlier code the critic did not fault)."""
    fast = FastAgent(*agent_args(ctx, k), **agent_kwargs(ctx))
    old = {c.name: c for c in previous}
    lib = ctx.params.library
    skip = set(old) | set(feedback)
    p = ctx.params.llm
    if p.backend == "replay" and p.replay_from:  # what the recorded run reused, as it was
        found = recorded(Path(ctx.params.run.runs_dir) / p.replay_from / f"iter_{k}", skip)
    else:
        found = retrieve(Path(lib.path), dec, skip, ctx.task.world) if lib.use else {}
    coded = []
    for sub in dec.sub_actions:
        if sub.mode != "code":
            continue
        if sub.name in old and sub.name not in feedback:
            coded.append(old[sub.name])
        elif sub.name in found:  # a library skill: validation re-checks it like new code
            coded.append(found[sub.name][1])
        else:
            default = ctx.params.train.macro_step_budget
            budget = old[sub.name].step_budget if sub.name in old else default
            coded.append(fast.write_action(ctx.task, sub, budget, feedback))
    used = {n: e.model_dump(mode="json", exclude={"stats"}) for n, (e, _) in found.items()}
    files = [*save_actions(ctx, k, coded), write_json(ctx.layout.file(k, LIBRARY_USED), used)]
    finish(ctx, files)
    return coded


@stage("validate", retries=1)
def validate(ctx: RunContext, k: int, coded: list[CodedAction]) -> ValidationReport:
    report = validate_all(
        coded,
        sandbox=ctx.params.sandbox,
        view_radius=ctx.params.train.view_radius,
        world=ctx.task.world,
    )
    finish(ctx, [write_model(ctx.layout.file(k, "validation.json"), report)])
    return report


@stage("repair", retries=2)
def repair(
    ctx: RunContext, k: int, dec: Decomposition, coded: list[CodedAction],
    report: ValidationReport, attempt: int,
) -> list[CodedAction]:  # fmt: skip
    """Fast agent: rewrite each action that failed validation from its class, message, trace."""
    fast = FastAgent(*agent_args(ctx, k), **agent_kwargs(ctx))
    failed = {v.name: v for v in report.failed()}
    subs = {s.name: s for s in dec.sub_actions}
    fixed = [
        fast.repair(ctx.task, subs[c.name], c, failed[c.name], attempt, ctx.params.llm.max_repairs)
        if c.name in failed
        else c
        for c in coded
    ]
    finish(ctx, save_actions(ctx, k, fixed))
    return fixed


@stage("configure_rl", retries=2)
def configure_rl(
    ctx: RunContext, k: int, dec: Decomposition, valid: list[str], learned: list[str] | None = None
) -> RLConfig:
    """Fast agent: the task's RL config over the coded actions that passed validation and the
    learned actions that passed their judgement."""
    fast = FastAgent(*agent_args(ctx, k), **agent_kwargs(ctx))
    tp = ctx.params.train
    cfg = fast.rl_config(ctx.task, dec, valid, tp.ppo, tp.sample_budget, learned)
    finish(ctx, [write_model(ctx.layout.file(k, "rl_config.json"), cfg)])
    return cfg


def in_run(ctx: RunContext, path: str) -> Path:
    """A file this run wrote (iter_<k>/...), under the run directory where it is now: a stage
    result recorded before the run was moved or pulled elsewhere still finds its files."""
    parts = Path(path).parts
    for i in range(len(parts) - 1, -1, -1):
        if parts[i].startswith("iter_"):
            return ctx.layout.root.joinpath(*parts[i:])
    return Path(path)


def in_run_learned(ctx: RunContext, learned: list[LearnedAction] | None) -> list[LearnedAction]:
    """Learned actions with their policy files where the run directory is now."""
    return [a.model_copy(update={"policy": str(in_run(ctx, a.policy))}) for a in learned or []]


def in_run_trial(ctx: RunContext, trial: Trial) -> Trial:
    """The trial with its learned actions' policy files where the run directory is now."""
    return trial.model_copy(update={"learned": tuple(in_run_learned(ctx, list(trial.learned)))})


@stage("train", retries=1)
def train(ctx: RunContext, trial: Trial, previous: TrainResult | None = None) -> TrainResult:
    """PPO on the trial's enlarged action space (coded, then learned actions); with
    `previous` (train.warm_start), it continues the last iteration's policy when the action
    space is the same. The states where it called each learned action are kept (starts/)."""
    p, out = ctx.params, ctx.layout.train_dir(trial.k)
    if previous is not None:
        previous = previous.model_copy(update={"checkpoint": str(in_run(ctx, previous.checkpoint))})
    settings = TrainSettings(
        params=p.train, seed=p.run.seed + trial.k, show_progress=ctx.show_progress,
        sandbox=p.sandbox, slots=p.scale.training_slots, snapshots=p.learn.snapshots,
    )  # fmt: skip
    result = run_training(in_run_trial(ctx, trial), out, settings=settings, previous=previous)
    files = [Path(result.checkpoint), write_model(out / "train.json", result)]
    files += sorted((out / "starts").glob("*.starts.pkl"))
    finish(ctx, files)
    return result


def eval_settings(ctx: RunContext, trained: TrainResult, *, selection: bool) -> EvalSettings:
    """How the trial's policy is judged: on the evaluation's episodes, or the selection's."""
    p = ctx.params
    params = p.eval
    if selection:
        params = params.model_copy(update={"episodes": p.eval.selection_episodes})
    return EvalSettings(
        params=params, train=p.train, seed=p.run.seed, samples=trained.samples,
        show_progress=ctx.show_progress, sandbox=p.sandbox,
        seed_base=SELECTION_SEED_BASE if selection else EVAL_SEED_BASE,
    )  # fmt: skip


@stage("evaluate", retries=1)
def evaluate(ctx: RunContext, trial: Trial, trained: TrainResult) -> EvalReport:
    report, table = run_evaluation(
        in_run_trial(ctx, trial),
        in_run(ctx, trained.checkpoint),
        settings=eval_settings(ctx, trained, selection=False),
    )
    report = with_training_faults(report, trained)
    episodes = ctx.layout.file(trial.k, "episodes.parquet")
    table.to_parquet(episodes, index=False)
    finish(ctx, [episodes, write_model(ctx.layout.file(trial.k, "eval.json"), report)])
    return report


@stage("select", retries=1)
def select(ctx: RunContext, trial: Trial, trained: TrainResult) -> EvalReport:
    """The policy on the selection episodes (eval.selection_episodes, seeds apart from the
    evaluation's): what chooses the final policy and keeps out a harmful revision."""
    report, _ = run_evaluation(
        in_run_trial(ctx, trial),
        in_run(ctx, trained.checkpoint),
        settings=eval_settings(ctx, trained, selection=True),
    )
    finish(ctx, [write_model(ctx.layout.file(trial.k, "selection.json"), report)])
    return report


def with_training_faults(report: EvalReport, trained: TrainResult) -> EvalReport:
    """The evaluation's coded-action faults and, after them, those of training (an action
    disabled there, e.g. for its CPU, may be rarely chosen after), so the critic sees both."""
    if not trained.macro_faults:
        return report
    faults = dict(report.macro_faults)
    for name, why in trained.macro_faults.items():
        faults[name] = (
            f"{faults[name]}; in training: {why}" if name in faults else (f"in training: {why}")
        )
    return report.model_copy(update={"macro_faults": faults})


@stage("critique", retries=2)
def critique(
    ctx: RunContext, trial: Trial, validation: ValidationReport, evaluation: EvalReport,
    reverted: dict[str, str] | None = None, *, learned: list[LearnedResult] | None = None,
) -> Critique:  # fmt: skip
    """The critic's verdict; `reverted` (rlgpt's, from the selection episodes) is recorded in
    it, and a reverted action gets no fast-agent feedback this round: its earlier code stays.
    `learned`: this iteration's learned actions, with their reach before and after training
    (and why any was kept out)."""
    threshold = ctx.params.run.success_threshold
    if ctx.params.run.critic:
        critic = CriticAgent(*agent_args(ctx, trial.k), **agent_kwargs(ctx))
        verdict = critic.critique(ctx.task, trial.dec, validation, evaluation, threshold, learned)
    else:
        verdict = withheld_critique(evaluation, threshold)
    if reverted:
        keep = {n: f for n, f in verdict.fast_feedback.items() if n not in reverted}
        verdict = verdict.model_copy(update={"reverted": reverted, "fast_feedback": keep})
    finish(ctx, [write_model(ctx.layout.file(trial.k, "critique.json"), verdict)])
    return verdict


@task(name="record_skills", retries=1)
def record_skills(
    ctx: RunContext, trial: Trial, *, validation: ValidationReport, evaluation: EvalReport
) -> int:
    """Add the trial's actions that passed this iteration's validation, with their training
    statistics, to the library."""
    if not ctx.params.library.add or ctx.params.llm.backend == "replay":
        return 0  # a replay or a reproduction re-runs recorded work: nothing new to add
    entries = record_iteration(
        Path(ctx.params.library.path),
        ctx.layout.root,
        trial,
        validation=validation,
        evaluation=evaluation,
    )
    return len(entries)


@task(name="summarize_iteration")
def summarize_iteration(
    ctx: RunContext, trial: Trial, validation: ValidationReport, *, at: tuple[int, int],
    evaluation: EvalReport, verdict: Critique, trained: TrainResult,
    selection: EvalReport | None = None, learned: list[LearnedResult] | None = None,
) -> IterationSummary:  # fmt: skip
    """The iteration's row (`at`: its outer and inner round); its samples are every primitive
    step it took: the task's training and each learned action's (its training and the
    episodes played for its start states)."""
    k, dec, (outer, inner) = trial.k, trial.dec, at
    usage = usage_of(sorted(ctx.layout.llm_dir(k).glob("*.json")), ctx.params.llm)
    valid = {a.name for a in validation.actions if a.ok}
    coded = [s.name for s in dec.sub_actions if s.mode == "code" and s.name in valid]
    uncoded = [s.name for s in dec.sub_actions if s.name not in coded]
    excluded = {a.name: str(a.error_kind) for a in validation.failed()}
    learned_samples = sum(r.samples for r in learned or [])
    learned_actions = {
        r.name: (
            f"reach {r.reach_before:.2f} -> {r.reach_after:.2f}"
            + (f" (its code alone {r.skill_reach:.2f})" if r.skill_reach is not None else "")
            + (f"; {r.train_samples:,} samples: learnt early" if r.stopped else "")
            + ("; training lost ground: the policy it started from kept" if r.kept_start else "")
        )
        if r.ok and r.reach_before is not None and r.reach_after is not None
        else f"excluded: {r.reason}"[:200]
        for r in learned or []
    }
    return IterationSummary(
        iteration=k, outer=outer, inner=inner, learned_samples=learned_samples,
        learned_actions=learned_actions,
        success_rate=evaluation.success_rate, samples=trained.samples + learned_samples,
        dead_loop_ratio=evaluation.dead_loop_ratio, coded=coded, learned=uncoded,
        validation="ok" if not excluded else f"{len(excluded)} excl", excluded=excluded,
        verdict=verdict.verdict,
        failing_sub_action=verdict.failing_sub_action,
        bottlenecks=list(verdict.bottlenecks),
        tokens=usage.tokens,
        tokens_by_role=usage.by_role,
        cost_usd=round(usage.cost_usd, 6),
        llm_calls=usage.calls,
        train_samples_per_s=round(trained.samples_per_s, 1),
        selection_rate=selection.success_rate if selection is not None else None,
        reverted=dict(verdict.reverted),
    )  # fmt: skip


@task(name="write_summary")
def write_summary(ctx: RunContext, summary: RunSummary, complete: bool) -> str:
    """summary.json always; the manifest (hashes of every file) only once the run is complete."""
    maybe_crash("write_summary")
    write_model(ctx.layout.summary, summary)
    if complete:
        ctx.layout.write_manifest()
    return str(ctx.layout.summary)
