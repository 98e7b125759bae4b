"""Stage caching for resume: Prefect persisted results under runs/<id>/.prefect-results, keyed on
(run id, iteration, stage, input hashes); a cached result is used only if the files its stage
wrote are still there and unchanged (otherwise the stage runs again)."""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from prefect import get_run_logger, task
from prefect.exceptions import MissingContextError

from rlgpt.config import LearnParams
from rlgpt.errors import RLGPTError
from rlgpt.lineage.context import RunContext
from rlgpt.lineage.stages import log_start, record_stage, stage_key, verified
from rlgpt.trial import Trial

RESULTS_DIR = ".prefect-results"
# The stage body running in this context, its key and whether it has called `finish` (set by
# `stage`, read by `finish`).
_CURRENT: ContextVar[tuple[str, str, list[bool]] | None] = ContextVar(
    "rlgpt_stage", default=None
)  # PREFECT_LOCAL_STORAGE_PATH is runs/<id>/.prefect-results


# Inputs added to a stage after runs were recorded: left out of its key while unset, so that
# resuming such a run still finds its results.
_LATER_INPUTS = frozenset({"previous", "reverted", "learned", "evidence"})
# Params added after runs were recorded: left out of every key while at their default.
_LATER_PARAMS: dict[tuple[str, str], Any] = {
    ("run", "critic"): True,
    ("run", "world"): "crafter",
    ("run", "agents"): "two",
    ("run", "learn_first"): [],
    ("train", "action_masking"): "off",
    ("scale", "candidates"): 1,
    ("eval", "selection_episodes"): 20,
    ("sandbox", "step_cpu_ms"): 25.0,
    ("sandbox", "run_memory_mib"): 2048,
    # learned actions came later: the whole section, at its defaults (where they train aside)
    **{("learn", k): f.default for k, f in LearnParams.model_fields.items() if k != "parallel"},
}
# Where a stage runs is not one of its inputs either (a sweep on Dask finds a sequential run's
# results); only the number of candidates changes what a stage computes.
_WHERE = {"runner", "workers", "threads_per_worker", "address", "retries", "training_slots"}


def _key(stage: str, ctx: RunContext, inputs: dict[str, Any]) -> str:
    """Where runs live and where they are tracked are not inputs of a stage: a resume with
    `--runs-dir` spelled another way (or another tracking store) finds the same results."""
    inputs = {n: v for n, v in inputs.items() if not (n in _LATER_INPUTS and v is None)}
    p = ctx.params
    params = p.model_dump(
        mode="json",
        exclude={
            "run": {"runs_dir"},
            "tracking": True,
            "library": {"path"},
            "scale": _WHERE,
            "learn": {"parallel"},
        },
    )
    for (section, name), default in _LATER_PARAMS.items():
        if params[section].get(name) == default:
            del params[section][name]
            if not params[section]:  # a section added later, all at its defaults
                del params[section]
    return stage_key(stage, ctx.run_id, iteration(inputs), {**inputs, "params": params})


def iteration(inputs: dict[str, Any]) -> int:
    """The iteration a stage runs in: its trial's, or its `k` before the trial is made."""
    trial = inputs.get("trial")
    return trial.k if isinstance(trial, Trial) else int(inputs["k"])


def _cache_key_fn(stage: str) -> Any:
    def cache_key(context: Any, parameters: dict[str, Any]) -> str:
        ctx: RunContext = parameters["ctx"]
        key = _key(stage, ctx, {n: v for n, v in parameters.items() if n != "ctx"})
        if not verified(ctx.layout.root, key):  # files missing or changed: never trust it
            (ctx.layout.root / RESULTS_DIR / key).unlink(missing_ok=True)
        return key

    return cache_key


def _retry_transient(task: Any, task_run: Any, state: Any) -> bool:
    """Prefect retries a stage only for errors that may pass; LLM transients are already retried
    with backoff inside the backend, and bad input, budget or format errors never pass."""
    try:
        state.result()
    except RLGPTError:
        return False
    except Exception:  # noqa: BLE001 - anything else may be transient (a crashed worker)
        return True
    return False


def _run_logger() -> Any:
    """Prefect's run logger (its lines reach the UI), or this module's outside a run."""
    try:
        return get_run_logger()
    except MissingContextError:
        return logging.getLogger(__name__)


def stage(name: str, retries: int) -> Callable[[Callable[..., Any]], Any]:
    """The Prefect task decorator of one cached, retried pipeline stage. The key is derived once,
    from the body's real arguments (all but ctx): Prefect's cache key and the record of the
    stage's files use the same function of the same values, so an argument added to a stage
    is in its key without anyone listing it. The body logs its start (a fault-injection point)
    and ends with `finish(ctx, files)`; a body that returns without it (it had nothing to do)
    is recorded with no files, so a resumed run does not run it again."""

    def decorate(fn: Callable[..., Any]) -> Any:
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def body(*args: Any, **kwargs: Any) -> Any:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            ctx: RunContext = bound.arguments["ctx"]
            inputs = {n: v for n, v in bound.arguments.items() if n != "ctx"}
            log_start(ctx.layout.root, name, iteration(inputs))
            _run_logger().info("%s, iteration %d of run %s", name, iteration(inputs), ctx.run_id)
            key, finished = _key(name, ctx, inputs), [False]
            token = _CURRENT.set((name, key, finished))
            try:
                out = fn(*args, **kwargs)
            finally:
                _CURRENT.reset(token)
            if not finished[0]:  # it had nothing to write: done all the same, a resume skips it
                record_stage(ctx.layout.root, key, name, [])
            return out

        return task(
            name=name,
            retries=retries,
            retry_delay_seconds=1,
            retry_condition_fn=_retry_transient,
            persist_result=True,
            cache_key_fn=_cache_key_fn(name),
        )(body)

    return decorate


def finish(ctx: RunContext, files: list[Path]) -> None:
    """At the end of a stage body: record the files it wrote, with their hashes, under the key
    the `stage` decorator derived from the body's arguments."""
    current = _CURRENT.get()
    if current is None:
        raise RuntimeError("finish() outside a @stage body")
    name, key, finished = current
    record_stage(ctx.layout.root, key, name, files)
    finished[0] = True
