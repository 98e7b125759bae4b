"""Candidates (params.yaml scale.candidates): the fast agent samples N coded actions per
sub-action it writes; the flow validates them all at once, as Prefect tasks on the run's task
runner, and keeps the best by validation evidence; the others stay in the run's lineage
(iter_<k>/candidates/). Reused and library actions are not resampled."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from rlgpt.agents.roles import FastAgent
from rlgpt.library.reuse import LIBRARY_USED
from rlgpt.lineage.context import RunContext
from rlgpt.lineage.layout import write_json, write_model
from rlgpt.messages import ActionValidation, CodedAction, Decomposition, ValidationReport
from rlgpt.validation.validate import validate_action
from tasks.caching import finish, stage
from tasks.stages import agent_args, agent_kwargs, save_actions


def _sha(c: CodedAction) -> str:
    return hashlib.sha256(c.source.encode()).hexdigest()


@stage("write_candidates", retries=2)
def write_candidates(
    ctx: RunContext, k: int, dec: Decomposition, feedback: dict[str, str],
    previous: list[CodedAction], coded: list[CodedAction],
) -> dict[str, list[CodedAction]]:  # fmt: skip
    """Candidates 2..N of each action the fast agent wrote this iteration (candidate 1 is the
    one `generate_code` wrote); a duplicate source is asked once, kept once."""
    fast = FastAgent(*agent_args(ctx, k), **agent_kwargs(ctx))
    used_file = ctx.layout.file(k, LIBRARY_USED)
    from_library = set(json.loads(used_file.read_text())) if used_file.is_file() else set()
    kept = {c.name for c in previous if c.name not in feedback}
    subs = {s.name: s for s in dec.sub_actions}
    pool: dict[str, list[CodedAction]] = {}
    files: list[Path] = []
    for first in coded:
        cands = [first]
        if first.name not in kept and first.name not in from_library:
            for i in range(1, ctx.params.scale.candidates):
                c = fast.write_action(ctx.task, subs[first.name], first.step_budget, feedback, i)
                if _sha(c) not in {_sha(x) for x in cands}:
                    cands.append(c)
        pool[first.name] = cands
        out = ctx.layout.iter_dir(k) / "candidates" / first.name
        out.mkdir(parents=True, exist_ok=True)
        for i, c in enumerate(cands, 1):
            (out / f"{i}.py").write_text(c.source)
            files.append(out / f"{i}.py")
    finish(ctx, files)
    return pool


@stage("validate_candidate", retries=1)
def validate_candidate(
    ctx: RunContext, k: int, index: int, action: CodedAction
) -> ActionValidation:
    """One candidate in its own sandboxed worker (submitted: all candidates run at once)."""
    result = validate_action(
        action,
        sandbox=ctx.params.sandbox,
        view_radius=ctx.params.train.view_radius,
        world=ctx.task.world,
    )
    out = ctx.layout.iter_dir(k) / "candidates" / action.name / f"{index}.validation.json"
    finish(ctx, [write_model(out, result)])
    return result


def evidence(v: ActionValidation) -> tuple[int, int, int, float]:
    """Better first: passed; scenarios where the effect happened; scenarios it ended by itself;
    fewer steps where it worked."""
    worked = [s.steps for s in v.scenarios if s.effect]
    steps = sum(worked) / len(worked) if worked else float("inf")
    return (int(v.ok), len(worked), sum(s.ended for s in v.scenarios), -steps)


@stage("choose_candidates", retries=1)
def choose(
    ctx: RunContext,
    k: int,
    pool: dict[str, list[CodedAction]],
    results: dict[str, list[ActionValidation]],
) -> tuple[list[CodedAction], ValidationReport]:
    """Per sub-action the candidate with the best evidence (the earliest on a tie); writes the
    chosen code as the iteration's actions and validation, and candidates.json for lineage."""
    chosen, validations, lineage = [], [], {}
    for name, cands in pool.items():
        scored = results[name]
        best = max(range(len(cands)), key=lambda i: (evidence(scored[i]), -i))
        chosen.append(cands[best])
        validations.append(scored[best])
        lineage[name] = [
            {"candidate": i + 1, "sha256": _sha(c), "ok": v.ok, "error_kind": v.error_kind,
             "message": v.message[:300], "effect_in": sum(bool(s.effect) for s in v.scenarios),
             "scenarios": len(v.scenarios), "chosen": i == best}
            for i, (c, v) in enumerate(zip(cands, scored, strict=True))
        ]  # fmt: skip
    report = ValidationReport(actions=validations)
    files = [
        *save_actions(ctx, k, chosen),
        write_model(ctx.layout.file(k, "validation.json"), report),
        write_json(ctx.layout.file(k, "candidates.json"), lineage),
    ]
    finish(ctx, files)
    return chosen, report
