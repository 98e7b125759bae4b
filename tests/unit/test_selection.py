"""Keeping what a run won (rlgpt/rl/selection.py): the best iteration on the selection
episodes, and a revision that lowered its sub-action's reach rate beyond the noise."""

from __future__ import annotations

from rlgpt.lineage.summary import IterationSummary
from rlgpt.messages import CodedAction, EvalReport
from rlgpt.rl.selection import best_iteration, regressions, revised


def _it(k: int, success: float, selection: float | None) -> IterationSummary:
    return IterationSummary(iteration=k, outer=1, inner=k, success_rate=success, samples=10,
                            dead_loop_ratio=0.0, coded=[], learned=[], validation="ok",
                            verdict="revise_code", selection_rate=selection)  # fmt: skip


def _report(rates: dict[str, float], episodes: int = 20) -> EvalReport:
    return EvalReport(success_rate=0.5, episodes=episodes, samples=0, mean_episode_steps=1.0,
                      dead_loop_ratio=0.0, subgoal_rates=rates, macro_usage={})  # fmt: skip


def test_the_final_policy_is_the_best_on_selection_not_the_last_nor_the_best_evaluated():
    # the collect_diamond run of the issue: 0.47, 0.43, 0.60, 0.47, 0.40 when it ended
    its = [_it(1, 0.47, 0.45), _it(2, 0.43, 0.40), _it(3, 0.60, 0.55), _it(4, 0.47, 0.50),
           _it(5, 0.40, 0.35)]  # fmt: skip
    assert best_iteration(its).iteration == 3
    its[1] = _it(2, 0.90, 0.30)  # a lucky evaluation never chooses: selection does
    assert best_iteration(its).iteration == 3
    assert best_iteration([_it(1, 0.5, 0.6), _it(2, 0.4, 0.6)]).iteration == 2, "later on a tie"
    assert best_iteration([_it(1, 0.9, None), _it(2, 0.1, None)]).iteration == 2, "no selection"


def test_a_revision_is_reverted_only_when_its_reach_fell_beyond_the_noise():
    before = _report({"collect_iron": 0.80, "make_iron_pickaxe": 0.60})
    fell = _report({"collect_iron": 0.45, "make_iron_pickaxe": 0.55})
    out = regressions(["collect_iron", "make_iron_pickaxe"], before, fell)
    assert list(out) == ["collect_iron"] and "0.80 to 0.45" in out["collect_iron"]
    assert regressions(["make_iron_pickaxe"], before, fell) == {}, "0.05 is within the noise"
    assert regressions([], before, fell) == {}, "only revised actions are judged"
    few = regressions(["collect_iron"], _report({"collect_iron": 1.0}, 2),
                      _report({"collect_iron": 0.5}, 2))  # fmt: skip
    assert few == {}, "one episode of two is no evidence"


def test_revised_names_the_actions_whose_code_changed_with_their_earlier_version():
    a1 = CodedAction(name="a", docstring="", source="def a(view):\n    yield 'noop'\n")
    a2 = a1.model_copy(update={"source": "def a(view):\n    yield 'do'\n"})
    b = CodedAction(name="b", docstring="", source="def b(view):\n    yield 'noop'\n")
    c = b.model_copy(update={"name": "c"})
    assert revised([a1, b], [a2, b, c]) == {"a": a1}
