"""rlgpt.rl.evaluate: held-out episodes, an EvalReport and a validated episode table."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pandera.errors
import pytest

from rlgpt.config import EvalParams
from rlgpt.rl.evaluate import EVAL_SEED_BASE, EvalSettings, _Progress, evaluate
from rlgpt.rl.schema import EPISODES
from rlgpt.worlds.crafter.recipes import VITALS


@pytest.fixture(scope="module")
def evaluated(tiny_run):
    run = tiny_run
    settings = EvalSettings(params=EvalParams(episodes=2), train=run["params"], seed=0,
                            samples=run["result"].samples, show_progress=False)  # fmt: skip
    report, table = evaluate(run["trial"], Path(run["result"].checkpoint), settings=settings)
    return report, table


def test_table_passes_the_schema(evaluated):
    _, table = evaluated
    EPISODES.validate(table)
    assert list(table["episode"]) == [0, 1]
    assert list(table["seed"]) == [EVAL_SEED_BASE, EVAL_SEED_BASE + 1]


def test_report_agrees_with_the_table(evaluated, tiny_run):
    report, table = evaluated
    assert report.episodes == len(table) == 2
    assert report.samples == tiny_run["result"].samples
    assert report.success_rate == pytest.approx(table["success"].mean())
    assert report.mean_episode_steps == pytest.approx(table["steps"].mean())
    assert report.dead_loop_ratio == pytest.approx(table["dead_loop"].mean())
    assert set(report.subgoal_rates) == {s.name for s in tiny_run["dec"].sub_actions}
    assert all(0.0 <= r <= 1.0 for r in report.subgoal_rates.values())
    # the task's own sub-goal is reached exactly when the episode succeeds
    assert report.subgoal_rates["make_wood_pickaxe"] == pytest.approx(report.success_rate)
    assert sum(report.macro_usage.values()) == pytest.approx(1.0)
    assert set(report.macro_usage) <= {"primitive", *tiny_run["cfg"].macro_actions}
    assert set(report.macro_dead_loops) <= set(tiny_run["cfg"].macro_actions)
    failures = int((~table["success"]).sum())
    assert len(report.failure_traces) == min(3, failures)


def test_rows_are_consistent(evaluated, tiny_run):
    _, table = evaluated
    limit = tiny_run["task"].max_episode_steps
    for row in table.itertuples():
        assert row.success == (row.end == "success")
        assert 0 < row.decisions <= row.steps <= limit
        assert row.macro_calls <= row.decisions
        if row.end == "time_limit":
            assert row.steps == limit
        if row.success:
            assert not row.dead_loop


def info(pos=(0, 0), wood=0, drink=9, ach=0):
    return {
        "inventory": {"health": 9, "food": 9, "drink": drink, "energy": 9, "wood": wood},
        "achievements": {"collect_wood": ach},
        "player_pos": pos,
    }


def test_progress_standing_still_is_stuck_even_as_vitals_drift():
    progress = _Progress(info(), VITALS)
    for step in range(1, 121):
        progress.update(info(drink=9 - step // 20), step)  # drink drops on its own
    assert progress.stuck(120, window=100)


def test_progress_resets_on_items_or_achievements():
    progress = _Progress(info(), VITALS)
    for step in range(1, 121):
        progress.update(info(wood=int(step > 60), ach=int(step > 60)), step)
    assert not progress.stuck(120, window=100)  # wood came at step 61
    assert progress.stuck(161, window=100)


def test_progress_wandering_widely_is_not_stuck():
    progress = _Progress(info(), VITALS)
    for step in range(1, 121):
        progress.update(info(pos=(step, 0)), step)
    assert not progress.stuck(120, window=100)


def test_episode_schema_rejects_unknown_end():
    bad = pd.DataFrame([{"episode": 0, "seed": 1, "success": False, "steps": 3, "decisions": 3,
                         "macro_calls": 0, "dead_loop": False, "end": "won"}])  # fmt: skip
    with pytest.raises(pandera.errors.SchemaError):
        EPISODES.validate(bad)
