"""The RL-GPT flow: an outer loop (slow agent re-decomposes) around an inner loop (fast agent
revises code and RL config), each stage a Prefect task. Control flow only."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

from prefect import flow, get_run_logger
from prefect.artifacts import create_table_artifact

from rlgpt.evidence import Evidence, LearnedRecord, LibraryRecord, RunRecord, gather
from rlgpt.lineage.context import RunContext
from rlgpt.lineage.summary import IterationSummary, RunSummary, table_header, table_row
from rlgpt.llm.base import BudgetExceeded
from rlgpt.messages import (
    CodedAction,
    Critique,
    Decomposition,
    EvalReport,
    ValidationReport,
)
from rlgpt.rl.learned import LearnedResult
from rlgpt.rl.selection import best_iteration, regressions, revised
from rlgpt.rl.train import TrainResult
from rlgpt.trial import Trial, trial_code
from tasks import candidates, learning, stages, tracking


def _summary(ctx: RunContext, its: list[IterationSummary], status: str, t0: float) -> RunSummary:
    """The run's summary; its final policy is the best iteration's on the selection episodes."""
    best = best_iteration(its) if its else None
    return RunSummary(
        run_id=ctx.run_id,
        task=ctx.task.name,
        world=ctx.task.world,
        llm=f"{ctx.params.llm.backend}:{ctx.params.llm.model}",
        final_success_rate=best.success_rate if best else 0.0,
        selected_iteration=best.iteration if best else None,
        last_success_rate=its[-1].success_rate if its else None,
        final_policy=f"iter_{best.iteration}/train/policy.zip" if best else None,
        iterations=its,
        status=status,
        wall_s=round(time.perf_counter() - t0, 1),
        tokens=sum(i.tokens for i in its),
        cost_usd=round(sum(i.cost_usd for i in its), 6),
    )


def _best_of(
    ctx: RunContext, k: int, dec: Decomposition, feedback: dict[str, str],
    before: list[CodedAction], coded: list[CodedAction],
) -> tuple[list[CodedAction], ValidationReport]:  # fmt: skip
    """scale.candidates: sample more code per sub-action, validate every candidate at once
    (submitted to the run's task runner), keep the best of each."""
    pool = candidates.write_candidates(ctx, k, dec, feedback, before, coded)
    futures = {
        name: [candidates.validate_candidate.submit(ctx, k, i, c) for i, c in enumerate(cands, 1)]
        for name, cands in pool.items()
    }
    results = {name: [f.result() for f in fs] for name, fs in futures.items()}
    return candidates.choose(ctx, k, pool, results)


def _keep_what_won(
    ctx: RunContext, trial: Trial, before: list[CodedAction], *, trained: TrainResult,
    selections: list[EvalReport],
) -> tuple[EvalReport | None, dict[str, str], list[CodedAction]]:  # fmt: skip
    """The policy on the selection episodes, the revised actions that lowered their reach
    rate there (reverted: their earlier code is what goes on), and the code that goes on."""
    coded = list(trial.coded)
    if not ctx.params.eval.selection_episodes:
        return None, {}, coded
    selection = stages.select(ctx, trial, trained)
    old = revised(before, coded)
    reverted = regressions(list(old), selections[-1], selection) if selections else {}
    selections.append(selection)
    return selection, reverted, [old[c.name] if c.name in reverted else c for c in coded]


@dataclass
class RunState:
    """What the loops accumulate over a run: the iterations' summaries, trainings (the next
    may continue a policy), selection reports, the record each iteration leaves as evidence
    for the slow agent, the latest training of each learned action, and the latest code of
    each sub-action that passed validation."""

    its: list[IterationSummary] = field(default_factory=list)
    trained: list[TrainResult] = field(default_factory=list)
    selections: list[EvalReport] = field(default_factory=list)
    records: list[RunRecord] = field(default_factory=list)
    learned: dict[str, LearnedResult] = field(default_factory=dict)
    code: dict[str, CodedAction] = field(default_factory=dict)  # latest validated, by name

    def evidence(
        self, dec: Decomposition | None, library: dict[str, LibraryRecord]
    ) -> dict[str, Evidence] | None:
        """Each sub-action's evidence: of the last plan's, or, before any plan, of those the
        skill library has a history for (None when nothing is known yet)."""
        if dec is None and not library:
            return None
        names = [s.name for s in dec.sub_actions] if dec is not None else sorted(library)
        return gather(self.records, names, library)


def _record(
    state: RunState, dec: Decomposition, report: ValidationReport, evaluation: EvalReport,
    verdict: Critique, learned: list[LearnedResult],
) -> None:  # fmt: skip
    """Keep what iteration k tells of its sub-actions (the slow agent's evidence) and each
    learned action's latest training that passed (the next one continues it)."""
    trained = {r.name: LearnedRecord(ok=r.ok, reason=r.reason, reach_before=r.reach_before,
                                     reach_after=r.reach_after, skill_reach=r.skill_reach)
               for r in learned}  # fmt: skip
    state.records.append(RunRecord(decomposition=dec, validation=report, evaluation=evaluation,
                                   critique=verdict, learned=trained))  # fmt: skip
    for r in learned:
        if r.ok or r.name not in state.learned:
            state.learned[r.name] = r


def _write_code(
    ctx: RunContext, k: int, dec: Decomposition, feedback: dict[str, str],
    before: list[CodedAction], given: list[CodedAction] | None,
) -> tuple[list[CodedAction], ValidationReport]:  # fmt: skip
    """Iteration k's code and its validation: the code that came with the plan (one agent),
    or the fast agent's (the best of several candidates with scale.candidates), repaired
    from validation's feedback up to llm.max_repairs times."""
    p = ctx.params
    coded = given if given is not None else stages.generate_code(ctx, k, dec, feedback, before)
    if p.scale.candidates > 1 and given is None:
        coded, report = _best_of(ctx, k, dec, feedback, before, coded)
    else:
        report = stages.validate(ctx, k, coded)
    for attempt in range(1, p.llm.max_repairs + 1):
        if report.ok:
            break
        coded = stages.repair(ctx, k, dec, coded, report, attempt)
        report = stages.validate(ctx, k, coded)
    return coded, report


def _trial(
    ctx: RunContext, k: int, dec: Decomposition, coded: list[CodedAction],
    report: ValidationReport, *, state: RunState, feedback: dict[str, str],
) -> tuple[Trial, list[LearnedResult]]:  # fmt: skip
    """Iteration k's trial, once its code is validated: its learned actions trained (those
    that passed their judgement join the space), its RL config written over what is usable.
    Nothing that failed validation reaches training; the code of a sub-action now learned
    (validated when it was coded) joins the learned action's space, and where its learned
    action stays out, the code covers it; where it joins, the code stays in the trial for
    the learned action's own calls, never inserted (`trial_code`)."""
    usable = report.passed(coded)
    have = {c.name for c in usable}
    spare = [
        c for n, c in state.code.items() if n not in have and n in learning.to_learn(dec, report)
    ]
    learned = learning.learn(ctx, k, dec, coded, report, list(state.learned.values()) or None,
                             feedback=feedback or None, spare=spare or None)  # fmt: skip
    actions = [r.action() for r in learned if r.ok]
    names = [a.name for a in actions]
    usable, inner = trial_code(usable, spare, actions)
    state.code |= {c.name: c for c in report.passed(coded)}
    cfg = stages.configure_rl(ctx, k, dec, [c.name for c in usable], names or None)
    trial = Trial(
        task=ctx.task, k=k, dec=dec, cfg=cfg, coded=tuple(usable + inner), learned=tuple(actions)
    )
    return trial, learned


def _inner_loop(
    ctx: RunContext, k: int, outer: int, dec: Decomposition, coded: list[CodedAction],
    critique: Critique | None, *, state: RunState, emit: bool, t0: float,
    given: list[CodedAction] | None = None,
) -> tuple[int, list[CodedAction], Critique]:  # fmt: skip
    """Fast-agent rounds on one decomposition; returns the last iteration's critique. Each
    training goes into `state` (the next one may continue its policy), with each selection
    report and the iteration's record. `given`: the code that came with the plan (one
    agent): one round, then the plan is asked again."""
    p = ctx.params
    # code feedback left over when the last inner loop ran out of rounds still applies
    feedback = dict(critique.fast_feedback) if critique else {}
    for inner in range(1, (1 if given is not None else p.run.max_inner) + 1):
        k += 1
        before = coded
        coded, report = _write_code(ctx, k, dec, feedback, before, given)
        trial, learned = _trial(ctx, k, dec, coded, report, state=state, feedback=feedback)
        previous = state.trained[-1] if state.trained and p.train.warm_start else None
        trained = stages.train(ctx, trial, previous)
        state.trained.append(trained)
        evaluation = stages.evaluate(ctx, trial, trained)
        selection, reverted, kept = _keep_what_won(
            ctx, trial, before, trained=trained, selections=state.selections
        )
        verdict = stages.critique(
            ctx, trial, report, evaluation, reverted or None, learned=learned or None
        )
        stages.record_skills(ctx, trial, validation=report, evaluation=evaluation)
        _record(state, dec, report, evaluation, verdict, learned)
        coded = [next((c for c in kept if c.name == old.name), old) for old in coded]
        it = stages.summarize_iteration(
            ctx, trial, report, at=(outer, inner), evaluation=evaluation, verdict=verdict,
            trained=trained, selection=selection, learned=learned or None,
        )  # fmt: skip
        state.its.append(it)
        if emit:
            print(table_row(it), flush=True)
        get_run_logger().info("iteration %d: %s", k, table_row(it).strip())
        tracking.log_iteration(ctx, it, evaluation, str(ctx.layout.iter_dir(k)))
        tracking.log_learned(ctx, k, learned)
        stages.write_summary(ctx, _summary(ctx, state.its, "running", t0), False)
        if verdict.verdict != "revise_code" or k >= p.run.iterations:
            return k, coded, verdict
        feedback = verdict.fast_feedback
    return k, coded, verdict


def _publish(ctx: RunContext, its: list[IterationSummary]) -> None:
    """The iteration table as a Prefect table artifact of this flow run (the UI shows it)."""
    key = "iterations-" + re.sub(r"[^a-z0-9-]+", "-", ctx.run_id.lower()).strip("-")
    rows = [i.model_dump(include=_ARTIFACT_COLUMNS) for i in its]
    for row in rows:
        row["coded"], row["learned"] = ",".join(row["coded"]), ",".join(row["learned"])
    create_table_artifact(rows, key=key[:100], description=f"rlgpt run {ctx.run_id}: iterations")


_ARTIFACT_COLUMNS = {"iteration", "outer", "inner", "coded", "learned", "validation", "samples",
                     "success_rate", "dead_loop_ratio", "verdict"}  # fmt: skip


@flow(name="rlgpt-run", flow_run_name="{ctx.run_id}", log_prints=False, validate_parameters=False)
def rlgpt_run(ctx: RunContext, emit: bool = True) -> RunSummary:
    """Run RL-GPT on one task until success or the iteration budget; write summary.json."""
    t0 = time.perf_counter()
    ctx = ctx.model_copy(update={"mlflow_run_id": tracking.start_parent(ctx, ctx.params.llm.model)})
    state = RunState()
    its = state.its
    dec: Decomposition | None = None
    critique: Critique | None = None
    coded: list[CodedAction] = []
    k, outer, status = 0, 0, "FAILED"
    if emit:
        print(table_header(), flush=True)
    p = ctx.params
    get_run_logger().info(
        "rlgpt run %s: task %s, llm %s:%s, %d iteration(s) of %d samples",
        ctx.run_id, ctx.task.name, p.llm.backend, p.llm.model, p.run.iterations,
        p.train.sample_budget,
    )  # fmt: skip
    try:
        while k < ctx.params.run.iterations:
            outer += 1
            given = None
            if ctx.params.run.agents == "one":  # one prompt plans and codes (the ablation)
                dec, given = stages.plan_and_code(ctx, k + 1, dec, coded, critique)
            else:
                evidence = state.evidence(dec, learning.library_records(ctx))
                dec = stages.decompose(ctx, k + 1, dec, critique, evidence)
            k, coded, critique = _inner_loop(
                ctx, k, outer, dec, coded, critique, state=state, emit=emit, t0=t0, given=given
            )
            if critique.verdict == "success":
                break
        status = "FINISHED"
    except BudgetExceeded:
        status = "BUDGET"
        raise
    except KeyboardInterrupt:
        status = "KILLED"
        raise
    finally:
        words = {"FINISHED": "complete", "BUDGET": "budget_exhausted"}
        summary = _summary(ctx, its, words.get(status, status.lower()), t0)
        mlflow_status = "FAILED" if status == "BUDGET" else status
        try:
            path = stages.write_summary(ctx, summary, status == "FINISHED")
        except BaseException:  # e.g. a full disk: MLflow still learns how the run ended
            tracking.end_parent(ctx, "FAILED", summary.final_success_rate, "", len(its))
            raise
        tracking.end_parent(ctx, mlflow_status, summary.final_success_rate, path, len(its))
        if its:
            _publish(ctx, its)
        get_run_logger().info(
            "run %s %s: final success rate %.2f after %d iteration(s)",
            ctx.run_id,
            summary.status,
            summary.final_success_rate,
            len(its),
        )
    return summary
