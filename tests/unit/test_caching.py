"""The stage decorator derives a stage's key once, from the body's real arguments."""

from __future__ import annotations

from pathlib import Path

import pytest

from rlgpt.config import Params
from rlgpt.lineage.context import RunContext
from rlgpt.worlds.crafter.tasks import get_task
from tasks.caching import _cache_key_fn, finish, stage


@stage("probe", retries=0)
def probe(ctx: RunContext, k: int, extra: str, previous: str | None = None) -> str:
    path = ctx.layout.file(k, "probe.txt")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(extra)
    finish(ctx, [path])
    return extra


@stage("idle", retries=0)
def idle(ctx: RunContext, k: int, work: list[str]) -> list[str]:
    if not work:  # nothing to do: returns before any finish()
        return []
    path = ctx.layout.file(k, "idle.txt")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(",".join(work))
    finish(ctx, [path])
    return work


def _ctx(tmp_path: Path) -> RunContext:
    params = Params()
    params.run.runs_dir = str(tmp_path / "runs")
    return RunContext(run_id="r", params=params, task=get_task("place_table"))


def test_every_argument_is_in_the_key_and_prefect_uses_the_same_key(tmp_path):
    ctx = _ctx(tmp_path)
    probe.fn(ctx, 1, "a")
    probe.fn(ctx, 1, "b")  # an argument no one listed anywhere changes the key
    records = sorted(p.stem for p in (ctx.layout.root / "stages").glob("*.json"))
    assert len(records) == 2
    for extra in ("a", "b"):
        key = _cache_key_fn("probe")(None, {"ctx": ctx, "k": 1, "extra": extra,
                                            "previous": None})  # fmt: skip
        assert key in records  # Prefect's cache key is the recorded one
    log = (ctx.layout.root / "stage_log.jsonl").read_text().splitlines()
    assert len(log) == 2 and '"stage": "probe"' in log[0]


def test_finish_outside_a_stage_is_an_error(tmp_path):
    with pytest.raises(RuntimeError, match="outside a @stage"):
        finish(_ctx(tmp_path), [])


def test_a_recorded_path_is_found_where_the_run_is_now(tmp_path):
    from tasks.stages import in_run

    ctx = _ctx(tmp_path)
    moved = ctx.layout.root / "iter_2" / "train" / "policy.zip"
    assert in_run(ctx, "/old/home/runs/r/iter_2/train/policy.zip") == moved
    assert in_run(ctx, "runs/r/iter_2/train/policy.zip") == moved
    assert in_run(ctx, "/elsewhere/model.zip") == Path("/elsewhere/model.zip")


def test_a_stage_with_nothing_to_do_is_recorded_done_so_a_resume_skips_it(tmp_path):
    """A body that returns before `finish` (learn with nothing to learn) is still a finished
    stage: a resumed run finds its record verified and does not run it again."""
    from rlgpt.lineage.stages import verified

    ctx = _ctx(tmp_path)
    idle.fn(ctx, 2, [])
    key = _cache_key_fn("idle")(None, {"ctx": ctx, "k": 2, "work": []})
    assert verified(ctx.layout.root, key)
    idle.fn(ctx, 3, ["a"])
    key = _cache_key_fn("idle")(None, {"ctx": ctx, "k": 3, "work": ["a"]})
    assert verified(ctx.layout.root, key)
    ctx.layout.file(3, "idle.txt").write_text("changed")
    assert not verified(ctx.layout.root, key), "a changed file is never trusted"
