"""The paper benchmark's reading of its records, and the critic switch it ablates."""

from __future__ import annotations

import argparse
import sys
from types import SimpleNamespace

import pytest

from rlgpt.agents.roles import withheld_critique
from rlgpt.config import Params
from rlgpt.lineage.context import RunContext
from rlgpt.messages import EvalReport
from rlgpt.worlds.crafter.tasks import get_task
from tasks.caching import _key
from tests.conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))
from paper_report import _reading, claims, iterations_claim, summarize, write_results  # noqa: E402

CFG = SimpleNamespace(
    budgets={"place_table": 1000, "make_wood_pickaxe": 2000},
    methods=("pure_rl", "rlgpt", "no_critic", "reward_only", "one_agent"),
)


def _rec(task: str, method: str, seed: int, success: float, **kw: object) -> dict:
    return {"task": task, "method": method, "seed": seed, "success": success, "samples": 1000,
            "first_success": None, "dead_loop": 0.0, "wall_s": 1.0, **kw}  # fmt: skip


def test_claims_read_the_direction_and_the_seed_spread():
    recs = []
    for task in CFG.budgets:
        for seed, (rl, full, crit) in enumerate([(0.0, 0.9, 0.9), (0.1, 0.95, 0.9)]):
            recs += [
                _rec(task, "pure_rl", seed, rl),
                _rec(task, "rlgpt", seed, full),
                _rec(task, "no_critic", seed, crit),
                _rec(task, "reward_only", seed, 0.99),
            ]
    found = claims(summarize(recs, CFG), {"one_agent": "skipped: needs a real model"})
    assert found["pure_rl"]["reproduced"] is True and found["pure_rl"]["beyond_spread"] is True
    assert found["pure_rl"]["rlgpt"] == 0.925 and found["pure_rl"]["pure_rl"] == 0.05
    assert found["critic"]["reproduced"] is True and found["critic"]["beyond_spread"] is False
    assert found["reward"]["reproduced"] is False  # the reward variant did better here
    assert "NOT reproduced" in _reading(found["reward"])
    assert found["agents"]["reproduced"] is None and "real model" in _reading(found["agents"])


def test_failed_jobs_are_counted_apart_never_as_zero_success():
    recs = [
        _rec("place_table", "rlgpt", 0, 1.0),
        {"task": "place_table", "method": "rlgpt", "seed": 1, "error": "rlgpt run failed: x"},
    ]
    s = summarize(recs, CFG)["place_table"]["rlgpt"]
    assert s["success"] == [1.0] and s["errors"] == ["rlgpt run failed: x"]


def test_one_seed_has_no_spread_to_judge_by():
    recs = [_rec("place_table", "pure_rl", 0, 0.0), _rec("place_table", "rlgpt", 0, 1.0)]
    found = claims(summarize(recs, CFG), {})
    assert found["pure_rl"]["beyond_spread"] is None
    assert "one seed" in _reading(found["pure_rl"])


def _report(rate: float) -> EvalReport:
    return EvalReport(
        success_rate=rate, episodes=10, samples=100, mean_episode_steps=10.0,
        dead_loop_ratio=0.0, subgoal_rates={"place_table": rate}, macro_usage={},
    )  # fmt: skip


@pytest.mark.parametrize(("rate", "verdict"), [(0.9, "success"), (0.3, "revise_code")])
def test_a_withheld_critique_carries_the_verdict_and_nothing_else(rate, verdict):
    c = withheld_critique(_report(rate), 0.8)
    assert c.verdict == verdict and c.reasoning.startswith("critic withheld")
    assert not (c.fast_feedback or c.bottlenecks or c.slow_feedback or c.failing_sub_action)


def test_the_critic_switch_keys_stages_only_when_off():
    """Runs recorded before run.critic existed resume with the same stage keys."""

    def key(critic: bool | None) -> str:
        params = Params() if critic is None else Params.model_validate({"run": {"critic": critic}})
        ctx = RunContext(run_id="r", params=params, task=get_task("place_table"))
        return _key("train", ctx, {"k": 1})

    assert key(True) == key(None)
    assert key(False) != key(True)


def test_the_iterations_claim_compares_the_first_and_last_iteration():
    def rec(task: str, seed: int, ys: list[float]) -> dict:
        points = [{"samples": 10 * (i + 1), "success": y, "dead_loop": 0.0, "deaths": 0.0}
                  for i, y in enumerate(ys)]  # fmt: skip
        return _rec(task, "rlgpt", seed, ys[-1], points=points)

    recs = [rec("place_table", 0, [0.1, 0.9]), rec("make_wood_pickaxe", 0, [0.3, 0.2])]
    found = iterations_claim(recs, CFG)
    assert (found["first"], found["last"], found["reproduced"]) == (0.2, 0.55, True)
    assert iterations_claim([rec("place_table", 0, [0.5])], CFG)["reproduced"] is None


def _args(**kw: object) -> argparse.Namespace:
    base = {"quick": True, "tasks": "place_table", "methods": "rlgpt,one_agent", "seeds": 2,
            "episodes": None, "iterations": None, "budget_scale": 1.0, "llm": "scripted",
            "mistake_rate": 0.3, "fix_rate": None, "mistake_seed": 0, "model": None,
            "base_url": None}  # fmt: skip
    return argparse.Namespace(**(base | kw))


def test_a_scripted_model_runs_the_one_agent_ablation_and_is_named_wherever_it_answered(tmp_path):
    from paper import AGENTS_MODEL, configure, llm_for, skipped

    cfg = configure(_args())
    assert cfg.llm == {"backend": "scripted", "mistake_rate": 0.3, "fix_rate": 0.5, "seed": 0}
    assert skipped(cfg, "one_agent") is None and llm_for(cfg, "one_agent") == cfg.llm
    assert "not needed" in str(skipped(cfg, "two_agents"))  # the loop is played by the model
    # under the offline author, both sides of the agents ablation are played by one model
    offline = configure(_args(llm="offline", mistake_rate=None))
    assert skipped(offline, "one_agent") is None and skipped(offline, "two_agents") is None
    assert llm_for(offline, "one_agent") == llm_for(offline, "two_agents") == AGENTS_MODEL
    assert llm_for(offline, "rlgpt") == offline.llm and AGENTS_MODEL["backend"] == "scripted"
    drawn = {"drawn": {"plan": 2, "write": 4, "repair": 2}, "made": {"write": 2, "repair": 1},
             "fixed": 1, "by_class": {"misnamed_action": 2, "other_step": 1}}  # fmt: skip
    points = [{"samples": 100, "success": 0.5, "dead_loop": 0.0, "deaths": 0.0}]
    recs = [_rec("place_table", m, seed, y, points=points, mistakes=drawn)
            for m, ys in (("rlgpt", (0.9, 0.8)), ("one_agent", (0.4, 0.6)))
            for seed, y in enumerate(ys)]  # fmt: skip
    headline, _ = write_results(tmp_path, cfg, recs, {}, 1.0, "a machine", "p", "sqlite:///m.db")
    md = (tmp_path / "results.md").read_text()
    name = "scripted model (mistake rate 0.3)"
    assert headline["author"] == name and headline["claims"]["agents"] is True
    assert f"- Author: {name}: benchmarks/scripted_model.py on 127.0.0.1" in md
    assert f"| two agents vs one | 0.34 one agent vs 0.52 two | {name}: direction reproduced" in md
    assert "## Two agents vs one" in md and "| place_table | 0.85 ± 0.07 | 0.50 ± 0.14 |" in md
    assert "| one_agent | 2 | 2.0 | 0.0 | 4.0 | 2.0 | 2.0 | 1.0 | misnamed_action 4" in md


@pytest.mark.parametrize(
    ("kw", "error"),
    [({"llm": "offline"}, "--mistake-rate and --fix-rate are for --llm scripted"),
     ({"mistake_rate": 1.5}, "rate must lie in [0, 1], not 1.5"),
     ({"model": "gpt-4o"}, "--model and --base-url are for --llm openai")],
)  # fmt: skip
def test_scripted_flags_are_checked_in_one_line(kw, error):
    from paper import configure

    with pytest.raises(SystemExit) as exc:
        configure(_args(**kw))
    assert str(exc.value) == f"paper: {error}"
