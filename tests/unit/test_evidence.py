"""The evidence the slow agent decides code or rl from (rlgpt/evidence.py), and the skill
library's part of it: the history of coded skills, and learned skills kept beside them."""

from __future__ import annotations

import math
from pathlib import Path

from rlgpt.evidence import Evidence, LearnedRecord, LibraryRecord, RunRecord, choose_mode, gather
from rlgpt.library.reuse import history
from rlgpt.library.show import list_skills
from rlgpt.library.store import Origin, SkillLibrary, UsageStat
from rlgpt.messages import (
    ActionValidation,
    Critique,
    Decomposition,
    EvalReport,
    SubAction,
    ValidationReport,
)  # fmt: skip
from rlgpt.worlds.crafter.author import write_action


def plan(**modes: str) -> Decomposition:
    subs = [SubAction(name=n, description=n, mode=m, precondition="-", expected_effect="-")  # type: ignore[arg-type]
            for n, m in modes.items()]  # fmt: skip
    return Decomposition(task="t", sub_actions=subs, reasoning="r")


def record(dec: Decomposition, blocking: list[str], deaths: dict[str, float],
           excluded: dict[str, str] | None = None) -> RunRecord:  # fmt: skip
    rates = {s.name: 0.5 for s in dec.sub_actions}
    ev = EvalReport(success_rate=0.1, episodes=10, samples=1, mean_episode_steps=1,
                    dead_loop_ratio=0, subgoal_rates=rates, macro_usage={},
                    deaths_at=deaths)  # fmt: skip
    val = ValidationReport(actions=[ActionValidation(name=n, ok=False, error_kind="gave_up",
                                                     message=m)
                                    for n, m in (excluded or {}).items()])  # fmt: skip
    crit = Critique(verdict="revise_code", bottlenecks={n: "x" for n in blocking}, reasoning="r")
    return RunRecord(decomposition=dec, validation=val, evaluation=ev, critique=crit)


def test_gather_counts_what_each_iteration_said_of_each_sub_action():
    coded = plan(a="code", b="code")
    learned = plan(a="code", b="rl")
    records = [
        record(coded, ["b"], {"b": 0.3}),
        record(coded, ["a", "b"], {"b": 0.2}, excluded={"a": "gave up"}),
        record(learned, ["b"], {"b": 0.1}).model_copy(
            update={"learned": {"b": LearnedRecord(ok=True, reach_before=0.1, reach_after=0.4)}}
        ),
    ]  # fmt: skip
    ev = gather(records, ["a", "b", "c"], {"c": LibraryRecord(iterations=3, mean_reach=0.2,
                                                              mean_deaths=0.4)})  # fmt: skip
    assert ev["a"].blocked_coded == 1 and ev["a"].excluded == ""  # the last word is iteration 3
    assert (ev["b"].blocked_coded, ev["b"].blocked_learned, ev["b"].mode) == (2, 1, "rl")
    assert ev["b"].deaths == 0.1 and ev["b"].learned is not None
    assert ev["b"].learned.trainings == 1
    assert ev["c"].mode is None and ev["c"].library is not None


def test_choose_mode_reads_every_kind_of_evidence():
    def mode(**kw: object) -> str:
        return choose_mode(Evidence.model_validate({"name": "x"} | kw), 0.8)[0]

    assert mode() == "code"  # nothing known: the code
    assert mode(mode="code", blocked_coded=2, deaths=0.15) == "rl"
    assert mode(mode="code", blocked_coded=2, deaths=0.1) == "code"  # no deaths: revise code
    assert mode(mode="code", excluded="gave_up: ...") == "rl"
    history_ = {"iterations": 2, "mean_reach": 0.3, "mean_deaths": 0.2}
    assert mode(library=history_) == "rl"  # the first plan reads the library's history
    assert mode(library=history_ | {"mean_reach": 0.9}) == "code"
    assert mode(mode="rl", blocked_learned=1) == "code"  # nothing learned covers it
    failing = {"ok": True, "reach_after": 0.2, "skill_reach": 0.5}
    assert mode(mode="rl", blocked_learned=2, learned=failing) == "code"
    assert mode(mode="rl", blocked_learned=1, learned=failing) == "rl"  # one more try
    assert mode(mode="rl", blocked_learned=1, learned={"ok": False, "reason": "x"}) == "code"


def test_the_library_keeps_learned_skills_beside_coded_ones(tmp_path: Path):
    lib = SkillLibrary(tmp_path / "lib")
    wood = write_action("collect_wood", 80)
    sub = SubAction(name="collect_wood", description="d", mode="code", precondition="p",
                    expected_effect="e")  # fmt: skip
    origin = Origin(run_id="r", iteration=1, task="t")
    for k, (reach, deaths) in enumerate(((0.3, 0.4), (0.5, 0.2)), 1):
        stat = UsageStat(run_id="r", iteration=k, task="t", reach_rate=reach, usage=0.1,
                         deaths=deaths)  # fmt: skip
        lib.record(wood, sub, ActionValidation(name="collect_wood", ok=True), origin, stat)
    got = history(lib.root, "crafter")["collect_wood"]
    assert got.iterations == 2 and math.isclose(got.mean_reach, 0.4)
    assert math.isclose(got.mean_deaths, 0.3)
    assert history(lib.root, "craftax") == {}  # keyed by world

    policy = tmp_path / "policy.zip"
    policy.write_bytes(b"weights v1")
    lib.record_learned("collect_wood", "crafter", policy, {"name": "collect_wood"}, "space-a",
                       (0.1, 0.6, 0.5), samples=1000, origin=origin)  # fmt: skip
    again = lib.record_learned("collect_wood", "crafter", policy, {}, "space-a",
                               (0.1, 0.6, 0.5), samples=1000, origin=origin)  # fmt: skip
    assert again.version == 1  # the same weights are kept once
    best = lib.best_learned("collect_wood", "crafter", "space-a")
    assert best is not None and (lib.root / best.file).read_bytes() == b"weights v1"
    assert lib.best_learned("collect_wood", "crafter", "space-b") is None  # other weights' meaning
    (lib.root / best.file).write_bytes(b"tampered")
    assert lib.best_learned("collect_wood", "crafter", "space-a") is None  # hash checked
    listing = list_skills(lib)
    assert "collect_wood (learned)" in listing and "collect_wood " in listing
