"""The scripted model (benchmarks/scripted_model.py) through the real openai client on 127.0.0.1:
at mistake rate 0 it answers as the offline author in every role; its mistakes are caught by
validation with the class each is meant to draw, and a share of repairs fix them; the same
seed draws the same mistakes whether two agents or one ask."""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.chat_server import ChatServer
from benchmarks.scripted_mistakes import CAUGHT_AS, SPOIL, MistakeRates, knowledge
from benchmarks.scripted_model import ROLES, ScriptedModel
from rlgpt.agents.roles import CriticAgent, FastAgent, OneAgent, SlowAgent
from rlgpt.config import LearnParams, LLMParams, SandboxParams
from rlgpt.evidence import Evidence
from rlgpt.llm.base import LLM
from rlgpt.llm.offline import OfflineAuthor
from rlgpt.llm.openai_backend import OpenAIBackend
from rlgpt.messages import (
    ActionValidation,
    EvalReport,
    LearnedConfig,
    PPOConfig,
    SubAction,
    ValidationReport,
)
from rlgpt.rl.learned import LearnedResult
from rlgpt.rl.shaping import signals
from rlgpt.validation.validate import validate_all
from rlgpt.worlds import get_world
from rlgpt.worlds.crafter.tasks import get_task

TASK = get_task("make_stone_pickaxe")


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-scripted-test")


@contextlib.contextmanager
def served(rates: MistakeRates, seed: int = 0) -> Iterator[tuple[ScriptedModel, LLM, ChatServer]]:
    """A fresh scripted model (one run's counts) and the openai backend that reaches it,
    sampling with `seed`."""
    model = ScriptedModel(rates)
    with ChatServer(model) as srv:
        params = LLMParams(backend="openai", model="scripted", base_url=srv.base_url,
                           backoff_s=0.01, timeout_s=30, seed=seed)  # fmt: skip
        yield model, OpenAIBackend(params), srv


def _every_role(llm: LLM, d: Path) -> list[object]:
    """One answer of every role, first round and revision round, as the loop asks for them."""
    slow, fast = SlowAgent(llm, d), FastAgent(llm, d)
    dec = slow.decompose(TASK, None, None)
    code = [fast.write_action(TASK, s, 80, {}) for s in dec.sub_actions if s.mode == "code"]
    table = next(c for c in code if c.name == "place_table")
    bad = table.model_copy(
        update={"source": table.source.replace('yield "place_table"', 'yield "place_tabel"')}
    )
    failed = ActionValidation(name=bad.name, ok=False, error_kind="invalid_action",
                              message="line 16: yields 'place_tabel', which is not an action",
                              trace='line 16: yield "place_tabel"')  # fmt: skip
    repaired = fast.repair(TASK, dec.sub_actions[1], bad, failed, 1, 2)
    cfg = fast.rl_config(TASK, dec, [c.name for c in code], PPOConfig(), 5000)
    rates = {"collect_wood": 0.6, "place_table": 0.5, "make_wood_pickaxe": 0.4,
             "collect_stone": 0.1, "make_stone_pickaxe": 0.1}  # fmt: skip
    evaluation = EvalReport(success_rate=0.1, episodes=10, samples=5000, mean_episode_steps=300,
                            dead_loop_ratio=0.1, subgoal_rates=rates, macro_usage={})  # fmt: skip
    crit = CriticAgent(llm, d).critique(
        TASK, dec, ValidationReport(actions=[failed]), evaluation, 0.8
    )
    again = slow.decompose(TASK, dec, crit)
    faulted = fast.write_action(TASK, again.sub_actions[2], 80, crit.fast_feedback)
    one = OneAgent(llm, d)
    first = one.plan_and_code(TASK, None, [], None, 80)
    second = one.plan_and_code(TASK, first[0], first[1], crit, 80)
    # learned actions: the evidence that turns a dying coded step into a learned one, its RL
    # problem (a config the check rejects goes back once), the task's config with it, and the
    # critic reading its reach
    dying = {"collect_stone": Evidence(name="collect_stone", mode="code", blocked_coded=2,
                                       deaths=0.4)}  # fmt: skip
    learn_plan = slow.decompose(TASK, dec, crit, dying, 0.8)
    stone = next(s for s in learn_plan.sub_actions if s.name == "collect_stone")
    world = get_world("crafter")
    budgets = {c.name: c.step_budget for c in code}
    seen: list[str] = []

    def check(c: LearnedConfig) -> str | None:  # the first answer is sent back once
        seen.append(c.name)
        return "sample_budget too large (a test's rejection)" if len(seen) == 1 else None

    learned_cfg = fast.learned_config(TASK, stone, learn_plan, budgets, signals=signals(
        world.vitals), learn=LearnParams(), ppo=PPOConfig(), check=check,
        feedback="train further")  # fmt: skip
    with_learned = fast.rl_config(TASK, learn_plan, [c.name for c in code], PPOConfig(), 5000,
                                  ["collect_stone"])  # fmt: skip
    result = LearnedResult(name="collect_stone", ok=True, reach_before=0.1, reach_after=0.4,
                           skill_reach=0.3)  # fmt: skip
    judged = CriticAgent(llm, d).critique(TASK, learn_plan, ValidationReport(actions=[failed]),
                                          evaluation, 0.8, [result])  # fmt: skip
    return [
        dec,
        *code,
        repaired,
        cfg,
        crit,
        again,
        faulted,
        first,
        second,
        learn_plan,
        learned_cfg,
        with_learned,
        judged,
    ]


def test_at_rate_zero_it_answers_every_role_as_the_offline_author(tmp_path):
    with served(MistakeRates(rate=0.0)) as (model, llm, srv):
        scripted = _every_role(llm, tmp_path / "scripted")
        roles = {next(k for head, k in ROLES if r["messages"][1]["content"].startswith(head))
                 for r in srv.requests}  # fmt: skip
    author = _every_role(OfflineAuthor(), tmp_path / "author")
    assert roles == {k for _, k in ROLES}  # it was asked in every role, over HTTP
    assert scripted == author
    first, second = scripted[-6], scripted[-5]
    assert second[1] != first[1]  # the revision rewrote what the critic faulted
    learn_plan, learned_cfg, with_learned, judged = scripted[-4:]
    assert learn_plan.learned() == ["collect_stone"]  # read back from the evidence shown
    assert learned_cfg.name == "collect_stone" and "collect_stone" in learned_cfg.macro_actions
    assert with_learned.learned_actions == ["collect_stone"]
    assert "train further" in judged.fast_feedback["collect_stone"]
    assert {m.made for m in model.mistakes} == {"fixed"}  # no mistake, one repair


def test_its_mistakes_are_caught_by_validation_with_their_class_and_some_are_repaired(tmp_path):
    """Every action written at rate 1 carries a mistake; validation names the class each is
    meant to draw; a repair either fixes it (the action then passes) or makes a mistake of
    another class (validation then says so)."""
    with served(MistakeRates(rate=1.0, fix_rate=0.5, seed=3)) as (model, llm, _):
        dec = SlowAgent(llm, tmp_path).decompose(TASK, None, None)
        fast = FastAgent(llm, tmp_path)
        subs = [s.model_copy(update={"mode": "code"}) for s in dec.sub_actions]
        written = [fast.write_action(TASK, s, 80, {}) for s in subs]
        sandbox = SandboxParams(scenarios=1)
        first = validate_all(written, sandbox=sandbox, view_radius=4)
        repaired = [fast.repair(TASK, s, c, v, 1, 1)
                    for s, c, v in zip(subs, written, first.actions, strict=True)]  # fmt: skip
        second = validate_all(repaired, sandbox=sandbox, view_radius=4)
    made = {m.name: m.made for m in model.mistakes if m.what == "write"}
    assert set(made) == {s.name for s in subs} and len(set(made.values())) >= 3
    for v in first.actions:
        assert not v.ok and v.error_kind == CAUGHT_AS[made[v.name]], (made[v.name], v.message)
    repairs = {m.name: m.made for m in model.mistakes if m.what == "repair"}
    for v, before in zip(second.actions, first.actions, strict=True):
        if repairs[v.name] == "fixed":
            assert v.ok, v.feedback()
        else:
            assert v.error_kind == CAUGHT_AS[repairs[v.name]] != before.error_kind
    assert "fixed" in repairs.values() and set(repairs.values()) != {"fixed"}
    # the plan forgot a count: collect_wood, needed 4 times, is planned once
    (plan,) = [m for m in model.mistakes if m.what == "plan"]
    assert plan.made == "forgot_count"
    assert [(s.name, s.count) for s in dec.sub_actions][0] == ("collect_wood", 1)


def test_the_same_seed_draws_the_same_mistakes_with_two_agents_and_with_one(tmp_path):
    rates = MistakeRates(rate=0.5, seed=0)  # among its draws: code for a step the plan lacks
    logs, classes = [], set()
    for seed in range(4):  # the request's sampling seed: a benchmark job's own
        with served(rates, seed) as (two, llm, _):
            dec = SlowAgent(llm, tmp_path).decompose(TASK, None, None)
            fast = FastAgent(llm, tmp_path)
            code = {s.name: fast.write_action(TASK, s, 80, {})
                    for s in dec.sub_actions if s.mode == "code"}  # fmt: skip
        with served(rates, seed) as (one, llm, _):
            plan, given = OneAgent(llm, tmp_path).plan_and_code(TASK, None, [], None, 80)
        drawn = [(m.what, m.name, m.made, m.n, m.attempt) for m in two.mistakes]
        assert drawn == [(m.what, m.name, m.made, m.n, m.attempt) for m in one.mistakes]
        assert [(s.name, s.count) for s in plan.sub_actions] == [
            (s.name, s.count) for s in dec.sub_actions
        ]
        by_name = {c.name: c for c in given}
        for name, action in code.items():
            if (m := next((m for m in two.mistakes if m.name == name), None)) and (
                m.made == "other_step"
            ):  # two agents: validation will see no `def name`; one agent: no code, learned
                assert f"def {name}(" not in action.source and name not in by_name
                assert next(s for s in plan.sub_actions if s.name == name).mode == "rl"
            else:
                assert by_name[name].source == action.source
        logs.append(tuple(drawn))
        classes |= {m.made for m in two.mistakes}
    assert "other_step" in classes and len(classes) >= 3
    assert len(set(logs)) > 1  # each sampling seed draws its own


def test_a_repair_is_drawn_for_its_attempt_at_the_version_it_repairs(tmp_path):
    """Two agents repair a version the one agent never had repaired (its code for a step the
    plan lacks is dropped instead): the repairs of the next version still draw alike."""
    sub = SubAction(name="place_table", description="d", mode="code", count=1,
                    precondition="-", expected_effect="-")  # fmt: skip
    failed = ActionValidation(name="place_table", ok=False, error_kind="no_effect", message="m")
    drawn = []
    for repairs_before in (2, 0):
        with served(MistakeRates(rate=1.0, fix_rate=0.5, seed=1)) as (model, llm, _):
            fast = FastAgent(llm, tmp_path / str(repairs_before))
            first = fast.write_action(TASK, sub, 80, {})
            for attempt in range(1, repairs_before + 1):
                fast.repair(TASK, sub, first, failed, attempt, 2)
            second = fast.write_action(TASK, sub, 80, {"place_table": "excluded: no_effect"})
            for attempt in (1, 2):
                fast.repair(TASK, sub, second, failed, attempt, 2)
        drawn.append([(m.what, m.n, m.attempt, m.made) for m in model.mistakes if m.n == 1])
    assert drawn[0] == drawn[1]
    assert [(what, attempt) for what, _, attempt, _ in drawn[0]] == [
        ("write", 0),
        ("repair", 1),
        ("repair", 2),
    ]


@pytest.mark.parametrize(
    ("mistake", "name"),
    [("misnamed_action", "place_table"), ("missing_precondition", "make_wood_pickaxe"),
     ("other_step", "collect_stone"), ("unyielded_skill", "collect_wood"),
     ("item_for_map", "collect_wood")],
)  # fmt: skip
def test_each_mistake_class_is_caught_as_the_class_it_names(mistake, name):
    """What each class does to the author's code, and the validation class it draws."""
    world = get_world("crafter")
    right = world.author().write_action(name, 80)
    wrong = SPOIL[mistake](right, knowledge(world, TASK), random.Random(0))
    assert wrong is not None and wrong.source != right.source
    if mistake == "other_step":  # code for a step the plan lacks, under that step's name
        assert wrong.name not in knowledge(world, TASK).plan
    asked = wrong.model_copy(update={"name": name})  # the loop files it under the step it asked
    (verdict,) = validate_all([asked], sandbox=SandboxParams(scenarios=1), view_radius=4).actions
    assert verdict.error_kind == CAUGHT_AS[mistake], verdict.feedback()
