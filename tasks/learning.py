"""The learn stage: each sub-action left to RL (or whose code validation kept out) is trained as
its own policy, the learned actions of an iteration at once, but for a chain's later steps,
which wait for their predecessors' policies (rlgpt/rl/learn.py, train_in_order)."""

from __future__ import annotations

from pathlib import Path

from rlgpt.agents.base import FormatError
from rlgpt.agents.roles import FastAgent
from rlgpt.evidence import LibraryRecord
from rlgpt.library.reuse import history
from rlgpt.library.store import Origin, SkillLibrary
from rlgpt.lineage.context import RunContext
from rlgpt.lineage.layout import write_model
from rlgpt.messages import CodedAction, Decomposition, LearnedConfig, ValidationReport
from rlgpt.rl.learn import LearnRequest, train_in_order
from rlgpt.rl.learned import LearnedResult, check_config, space_key
from rlgpt.rl.shaping import signals
from rlgpt.worlds import get_world
from tasks.caching import finish, stage
from tasks.stages import agent_args, agent_kwargs, in_run, in_run_learned


def library_records(ctx: RunContext) -> dict[str, LibraryRecord]:
    """The skill library's history of this world (none when the run does not use it)."""
    lib = ctx.params.library
    if not lib.use or ctx.params.llm.backend == "replay" or not Path(lib.path).is_dir():
        return {}
    return history(Path(lib.path), ctx.task.world)


def to_learn(dec: Decomposition, validation: ValidationReport) -> list[str]:
    """The sub-actions a learned action covers: those left to RL, and those whose code never
    passed validation (else nothing would cover them)."""
    kept_out = validation.excluded()
    return [s.name for s in dec.sub_actions if s.mode == "rl" or s.name in kept_out]


@stage("learn", retries=1)
def learn(
    ctx: RunContext, k: int, dec: Decomposition, coded: list[CodedAction],
    validation: ValidationReport, previous: list[LearnedResult] | None = None,
    *, feedback: dict[str, str] | None = None, spare: list[CodedAction] | None = None,
) -> list[LearnedResult]:  # fmt: skip
    """Train the learned actions of iteration k: the fast agent writes each one's RL config
    (a config that cannot train goes back to it with the reason), then all train at once,
    but where one waits for the plan's earlier steps learned here without a policy yet.
    One that trained before continues its policy on the same space (train further).
    `spare`: earlier validated code of sub-actions now learned, which may join their spaces."""
    names = to_learn(dec, validation)
    if not names:
        return []
    world = get_world(ctx.task.world)
    p = ctx.params
    fast = FastAgent(*agent_args(ctx, k), **agent_kwargs(ctx))
    usable = validation.passed(coded) + (spare or [])
    valid = [c.name for c in usable]
    before = {r.name: r for r in previous or []}
    subs = {s.name: s for s in dec.sub_actions}
    out_root = ctx.layout.iter_dir(k) / "learned"
    results: list[LearnedResult] = []
    requests: list[LearnRequest] = []
    for name in names:
        prev = before.get(name)
        prev = prev.model_copy(update={"policy": str(in_run(ctx, prev.policy))}) if prev else None

        def check(cfg: LearnedConfig) -> str | None:
            return "; ".join(check_config(cfg, world, valid, p.learn)) or None

        try:
            budgets = {c.name: c.step_budget for c in usable}
            cfg = fast.learned_config(
                ctx.task, subs[name], dec, budgets, signals=signals(world.vitals), learn=p.learn,
                ppo=p.train.ppo, check=check, previous=prev.config if prev else None,
                feedback=(feedback or {}).get(name, ""),
            )  # fmt: skip
        except FormatError as exc:
            results.append(LearnedResult(name=name, ok=False, reason=f"config: {exc}"))
            continue
        space = space_key(cfg, world, p.train)
        prev_space = space_key(prev.config, world, p.train) if prev and prev.config else ""
        if prev is None:  # a policy of this world from the skill library, same space
            prev, prev_space = from_library(ctx, name, space)
        starts = ctx.layout.train_dir(k - 1) / "starts" / f"{name}.starts.pkl"
        requests.append(LearnRequest(
            task=ctx.task, decomposition=dec, config=cfg, coded=usable,
            learned=in_run_learned(ctx, [r.action() for r in before.values()
                                         if r.ok and r.name != name]),
            learn=p.learn, train=p.train, sandbox=p.sandbox, seed=p.run.seed + k,
            out_dir=str(out_root / name), previous=prev, previous_space=prev_space,
            extra_starts=[str(starts)] if starts.is_file() else [],
            after=[n for n in names[: names.index(name)] if not (n in before and before[n].ok)],
            show_progress=ctx.show_progress, slots=p.scale.training_slots,
        ))  # fmt: skip
    results += train_in_order(requests, p.learn.parallel)
    to_library(ctx, k, results)
    files: list[Path] = []
    for r in results:
        files.append(write_model(out_root / f"{r.name}.json", r))
        if r.policy:
            files.append(Path(r.policy))
    finish(ctx, files)
    return sorted(results, key=lambda r: names.index(r.name))


def _library(ctx: RunContext) -> SkillLibrary | None:
    lib = ctx.params.library
    if ctx.params.llm.backend == "replay":  # a replay re-runs recorded work: as it was
        return None
    return SkillLibrary(Path(lib.path))


def from_library(ctx: RunContext, name: str, space: str) -> tuple[LearnedResult | None, str]:
    """The library's best learned `name` of this world on the same space, as the training
    this run continues (None: there is none, or the run does not use the library)."""
    lib = _library(ctx)
    if lib is None or not ctx.params.library.use:
        return None, ""
    entry = lib.best_learned(name, ctx.task.world, space)
    if entry is None:
        return None, ""
    cfg = LearnedConfig.model_validate(entry.config)
    found = LearnedResult(
        name=name, ok=True, config=cfg, policy=str(lib.root / entry.file),
        policy_sha256=entry.policy_sha256, reach_after=entry.reach_after,
    )  # fmt: skip
    return found, entry.space


def to_library(ctx: RunContext, k: int, results: list[LearnedResult]) -> None:
    """Every learned action that passed its judgement joins the skill library of its world."""
    lib = _library(ctx)
    if lib is None or not ctx.params.library.add:
        return
    origin = Origin(run_id=ctx.run_id, iteration=k, task=ctx.task.name, template="fast_learned")
    for r in results:
        if r.ok and r.config is not None and Path(r.policy).is_file():
            lib.record_learned(
                r.name, ctx.task.world, Path(r.policy), r.config.model_dump(mode="json"),
                space_key(r.config, get_world(ctx.task.world), ctx.params.train),
                (r.reach_before, r.reach_after, r.skill_reach), samples=r.samples, origin=origin,
            )  # fmt: skip
