"""rlgpt.llm.offline.OfflineAuthor playing the three roles of rlgpt.agents.roles."""

from __future__ import annotations

import json

import pytest

from rlgpt.agents.roles import CriticAgent, FastAgent, SlowAgent
from rlgpt.evidence import Evidence, LearnedRecord, RunRecord, gather
from rlgpt.llm.offline import OfflineAuthor
from rlgpt.messages import (
    ActionValidation,
    Critique,
    Decomposition,
    EvalReport,
    PPOConfig,
    ValidationReport,
)  # fmt: skip
from rlgpt.rl.learned import LearnedResult
from rlgpt.sandbox.gate import gate
from rlgpt.worlds.crafter.author import write_action
from rlgpt.worlds.crafter.recipes import actions
from rlgpt.worlds.crafter.tasks import get_task
from tests.support.world import CRAFTER_SKILLS

TASK = get_task("make_wood_pickaxe")


@pytest.fixture
def llm():
    return OfflineAuthor()


@pytest.fixture
def first(llm, tmp_path):
    return SlowAgent(llm, tmp_path / "slow").decompose(TASK, None, None)


def evaluation(rates: dict[str, float], success: float = 0.0, loops=None) -> EvalReport:
    return EvalReport(
        success_rate=success, episodes=10, samples=1000, mean_episode_steps=100.0,
        dead_loop_ratio=0.0, subgoal_rates=rates, macro_usage={"primitive": 1.0},
        macro_dead_loops=loops or {},
    )  # fmt: skip


VALID = ValidationReport(actions=[ActionValidation(name="place_table", ok=True)])


def test_first_decomposition_codes_every_step_without_evidence(first):
    assert first.task == "make_wood_pickaxe"
    assert [(s.name, s.count) for s in first.sub_actions] == [
        ("collect_wood", 3), ("place_table", 1), ("make_wood_pickaxe", 1),
    ]  # fmt: skip
    assert first.coded() == ["collect_wood", "place_table", "make_wood_pickaxe"]
    assert first.learned() == []  # no fixed list: nothing says any code fails yet
    assert all(s.precondition and s.expected_effect for s in first.sub_actions)


def with_modes(plan: Decomposition, **modes: str) -> Decomposition:
    subs = [s.model_copy(update={"mode": modes.get(s.name, s.mode)}) for s in plan.sub_actions]
    return plan.model_copy(update={"sub_actions": subs})


def test_a_coded_sub_action_that_keeps_dying_is_learned(llm, tmp_path, first):
    """The reverse of the only move there was (rl -> code): coded, it blocked two iterations
    with a fifth of the episodes dying while it was next; one that blocked without deaths, or
    died once, stays coded."""
    evidence = {
        "collect_wood": Evidence(name="collect_wood", mode="code", blocked_coded=2, deaths=0.2),
        "place_table": Evidence(name="place_table", mode="code", blocked_coded=2, deaths=0.0),
        "make_wood_pickaxe": Evidence(name="make_wood_pickaxe", mode="code", blocked_coded=1,
                                      deaths=0.5),
    }  # fmt: skip
    second = SlowAgent(llm, tmp_path / "slow").decompose(TASK, first, None, evidence, 0.8)
    assert second.learned() == ["collect_wood"]
    assert "collect_wood: learned" in second.reasoning and "20%" in second.reasoning


def test_code_validation_kept_out_is_learned(llm, tmp_path, first):
    evidence = {"place_table": Evidence(name="place_table", mode="code",
                                        excluded="gave_up: it gave up")}  # fmt: skip
    second = SlowAgent(llm, tmp_path / "slow").decompose(TASK, first, None, evidence, 0.8)
    assert second.learned() == ["place_table"]


def test_a_learned_action_that_failed_goes_back_to_code(llm, tmp_path, first):
    plan = with_modes(first, collect_wood="rl", place_table="rl")
    evidence = {
        "collect_wood": Evidence(name="collect_wood", mode="rl", blocked_learned=1,
                                 learned=LearnedRecord(ok=False, reason="reaches 0%")),
        "place_table": Evidence(name="place_table", mode="rl", blocked_learned=1,
                                learned=LearnedRecord(ok=True, reach_before=0.1,
                                                      reach_after=0.6)),
    }  # fmt: skip
    second = SlowAgent(llm, tmp_path / "slow").decompose(TASK, plan, None, evidence, 0.8)
    assert second.learned() == ["place_table"]  # still learning: it trains further
    assert "collect_wood: coded again" in second.reasoning


def test_previous_modes_are_kept_without_evidence(llm, tmp_path, first):
    again = SlowAgent(llm, tmp_path).decompose(TASK, with_modes(first, place_table="rl"), None)
    assert {s.name: s.mode for s in again.sub_actions}["place_table"] == "rl"


def test_critic_picks_the_largest_drop(llm, tmp_path, first):
    critic = CriticAgent(llm, tmp_path / "critic")
    # wood 0.9 (drop .1), table 0.8 (drop .1), pickaxe 0.1 (drop .7): the coded pickaxe fails
    rates = {"collect_wood": 0.9, "place_table": 0.8, "make_wood_pickaxe": 0.1}
    report = evaluation(rates, loops={"make_wood_pickaxe": 4})
    c = critic.critique(TASK, first, VALID, report, 0.9)
    assert c.verdict == "revise_code"
    assert c.failing_sub_action == "make_wood_pickaxe"
    # every coded sub-action that loses episodes is named, the worst one too
    assert {"place_table", "make_wood_pickaxe"} <= set(c.fast_feedback)
    assert "4x" in c.fast_feedback["make_wood_pickaxe"]
    assert "80%" in c.bottlenecks["place_table"] and "90%" in c.bottlenecks["place_table"]
    # wood 0.2 (drop .8): the learned collect_wood, with no learned action, fails first
    rates = {"collect_wood": 0.2, "place_table": 0.1, "make_wood_pickaxe": 0.0}
    plan = with_modes(first, collect_wood="rl")
    c = critic.critique(TASK, plan, VALID, evaluation(rates), 0.9)
    assert (c.verdict, c.failing_sub_action) == ("revise_plan", "collect_wood")
    assert "collect_wood" in c.slow_feedback


def test_a_learned_action_still_learning_trains_further(llm, tmp_path, first):
    """The inner loop's moves for a learned bottleneck: train further while its reach from
    held-out start states rises; a new reward when its config failed; code it when its
    learning did not beat its code alone."""
    plan = with_modes(first, collect_wood="rl")
    rates = {"collect_wood": 0.3, "place_table": 0.2, "make_wood_pickaxe": 0.1}
    critic = CriticAgent(llm, tmp_path / "critic")

    def said(**record: object) -> Critique:
        learned = [LearnedResult(name="collect_wood", **record)]  # type: ignore[arg-type]
        return critic.critique(TASK, plan, VALID, evaluation(rates), 0.9, learned)

    rising = said(ok=True, reach_before=0.1, reach_after=0.5, skill_reach=0.4)
    assert rising.verdict == "revise_code"
    assert "train further" in rising.fast_feedback["collect_wood"]
    assert "10% to 50%" in rising.bottlenecks["collect_wood"]
    broken = said(ok=False, reason="diverged: its weights are no longer finite")
    assert "new reward" in broken.fast_feedback["collect_wood"]
    worse = said(ok=True, reach_before=0.1, reach_after=0.3, skill_reach=0.6)
    assert worse.verdict == "revise_plan" and "collect_wood" not in worse.fast_feedback
    assert "code it" in worse.bottlenecks["collect_wood"]


def test_every_learned_bottleneck_is_coded_in_one_outer_round(llm, tmp_path):
    deep = get_task("make_stone_pickaxe")
    plan = SlowAgent(llm, tmp_path / "slow").decompose(deep, None, None)
    plan = with_modes(plan, collect_wood="rl", collect_stone="rl")
    rates = {"collect_wood": 0.5, "place_table": 0.5, "make_wood_pickaxe": 0.5}
    report = evaluation(rates | {"collect_stone": 0.1, "make_stone_pickaxe": 0.0})
    report = report.model_copy(update={"ends": {"death": 0.4, "time_limit": 0.6}})
    c = CriticAgent(llm, tmp_path / "critic").critique(deep, plan, VALID, report, 0.8)
    assert c.verdict == "revise_plan"
    assert {"collect_wood", "collect_stone"} <= set(c.bottlenecks)
    assert "40% of episodes end in death" in c.reasoning
    record = RunRecord(decomposition=plan, validation=VALID, evaluation=report, critique=c)
    evidence = gather([record], [s.name for s in plan.sub_actions], {})
    second = SlowAgent(llm, tmp_path / "slow").decompose(deep, plan, c, evidence, 0.8)
    assert second.learned() == []  # both learned bottlenecks coded at once, not one per round
    assert "collect_wood" in second.reasoning and "collect_stone" in second.reasoning


def test_critic_declares_success_at_the_threshold(llm, tmp_path, first):
    rates = {"collect_wood": 1.0, "place_table": 1.0, "make_wood_pickaxe": 0.9}
    c = CriticAgent(llm, tmp_path).critique(TASK, first, VALID, evaluation(rates, 0.9), 0.9)
    assert c.verdict == "success"
    assert c.failing_sub_action is None


def test_revise_code_doubles_the_step_budget(llm, tmp_path, first):
    fast = FastAgent(llm, tmp_path / "fast")
    table = first.sub_actions[1]
    plain = fast.write_action(TASK, table, 80, {})
    other = fast.write_action(TASK, table, 80, {"make_wood_pickaxe": "ran out of steps"})
    revised = fast.write_action(TASK, table, 80, {"place_table": "ran out of steps 3x"})
    assert (plain.step_budget, other.step_budget, revised.step_budget) == (80, 80, 160)
    assert revised.source == plain.source
    capped = fast.write_action(TASK, table, 1500, {"place_table": "search longer"})
    assert capped.step_budget == 2000


def test_a_fault_that_is_not_running_out_of_steps_keeps_the_step_budget(llm, tmp_path, first):
    """Deaths with no call out of steps, or a CPU kill: a longer budget would only run the
    action longer (in validation too, where a long wait in the open can die), so the rewrite
    keeps it."""
    fast = FastAgent(llm, tmp_path / "fast")
    table = first.sub_actions[1]
    for said in (
        "ran out of steps 0x, but 37% of episodes end in death: keep the player alive",
        "failed during evaluation: in training: 1 failed call(s); latest: disabled: cpu",
    ):
        assert fast.write_action(TASK, table, 80, {"place_table": said}).step_budget == 80


def test_written_actions_pass_the_gate(llm, tmp_path, first):
    fast = FastAgent(llm, tmp_path)
    for sub in first.sub_actions:
        action = fast.write_action(TASK, sub, 80, {})
        assert action.name == sub.name
        assert gate(action.name, action.source) is None


def test_repair_keeps_name_and_budget(llm, tmp_path, first):
    fast = FastAgent(llm, tmp_path)
    broken = write_action("place_table", 120).model_copy(update={"source": "def x(:"})
    failed = ActionValidation(name="place_table", ok=False, error_kind="syntax", message="line 1")
    sub = next(s for s in first.sub_actions if s.name == "place_table")
    fixed = fast.repair(TASK, sub, broken, failed)
    assert fixed.name == "place_table" and fixed.step_budget == 120
    assert gate(fixed.name, fixed.source) is None


def test_rl_config_inserts_coded_actions_and_rewards_every_sub_goal(llm, tmp_path, first):
    ppo = PPOConfig(n_steps=32)
    plan = with_modes(first, collect_wood="rl")
    cfg = FastAgent(llm, tmp_path).rl_config(TASK, plan, plan.coded(), ppo, 1234)
    assert cfg.macro_actions == ["place_table", "make_wood_pickaxe"]
    assert [(t.achievement, t.cap) for t in cfg.reward_terms] == [
        ("collect_wood", 3), ("place_table", 1), ("make_wood_pickaxe", 1),
    ]  # fmt: skip
    assert cfg.sample_budget == 1234 and cfg.ppo == ppo
    assert cfg.primitive_actions is None and cfg.learned_actions == []  # RL must reach wood


def test_rl_config_inserts_learned_actions_after_the_coded_ones(llm, tmp_path, first):
    """A learned action covers its sub-action: with every sub-action coded or learned, the
    policy only sequences them; a learned name that did not train is never inserted."""
    plan = with_modes(first, collect_wood="rl")
    fast = FastAgent(llm, tmp_path)
    cfg = fast.rl_config(TASK, plan, plan.coded(), PPOConfig(), 100, ["collect_wood"])
    assert cfg.learned_actions == ["collect_wood"] and cfg.primitive_actions == []
    none = fast.rl_config(TASK, plan, plan.coded(), PPOConfig(), 100, [])
    assert none.learned_actions == [] and none.primitive_actions is None


def test_rl_config_never_inserts_an_action_that_did_not_validate(llm, tmp_path, first):
    class Overreaching(OfflineAuthor):
        def _fast_rlconfig(self, ctx):
            out = super()._fast_rlconfig(ctx)
            out["macro_actions"] = [*out["macro_actions"], "make_wood_pickaxe"]
            return out

    cfg = FastAgent(Overreaching(), tmp_path).rl_config(
        TASK, first, ["place_table"], PPOConfig(), 100
    )
    assert cfg.macro_actions == ["place_table"]


def test_author_is_deterministic_and_every_exchange_is_recorded(tmp_path):
    a = SlowAgent(OfflineAuthor(), tmp_path / "a").decompose(TASK, None, None)
    b = SlowAgent(OfflineAuthor(), tmp_path / "b").decompose(TASK, None, None)
    assert a.content_hash() == b.content_hash()
    (record,) = (tmp_path / "a").glob("*.json")
    blob = json.loads(record.read_text())
    assert blob["ok"] is True
    assert blob["reply"]["backend"] == "offline"
    assert blob["reply"]["model"].startswith("offline-author-v1+skills:")
    assert blob["request"]["agent"] == "slow"


def test_revised_make_action_places_its_missing_table_and_succeeds():
    """After the critic faults make_wood_pickaxe, the fast agent's rewrite places the table
    itself: collect_wood x3 then one make_wood_pickaxe call unlocks the task in real Crafter."""
    from rlgpt.sandbox.client import MacroWorker
    from rlgpt.worlds.crafter.author import write_action
    from rlgpt.worlds.crafter.env import CrafterEnv
    from rlgpt.worlds.crafter.tasks import get_task
    from tests.support.world import wrap

    first = write_action("make_wood_pickaxe", 80)
    revised = write_action("make_wood_pickaxe", 80, revised=True)
    assert "place_" in revised.source and "place_" not in first.source
    coded = [write_action("collect_wood", 80), revised]
    worker = MacroWorker(coded, CRAFTER_SKILLS)
    try:
        env = wrap(CrafterEnv(get_task("make_wood_pickaxe")), ["collect_wood",
                                 "make_wood_pickaxe"], worker, 160)  # fmt: skip
        wins = 0
        for seed in range(3):
            env.reset(seed=seed)
            for a in (17, 17, 17, 18):
                _, _, term, trunc, info = env.step(a)
                if term or trunc:
                    break
            wins += int(info["success"])
        assert wins == 3
    finally:
        worker.close()


def test_a_long_plan_carries_survival_actions_that_earn_nothing_and_block_nothing(llm, tmp_path):
    deep = get_task("collect_diamond")
    plan = SlowAgent(llm, tmp_path / "slow").decompose(deep, None, None)
    survival = [s for s in plan.sub_actions if s.survival]
    assert [s.name for s in survival] == ["collect_drink", "eat_cow", "wake_up"]
    assert all(s.mode == "code" for s in survival)
    short = SlowAgent(llm, tmp_path / "short").decompose(TASK, None, None)
    assert not any(s.survival for s in short.sub_actions)
    cfg = FastAgent(llm, tmp_path / "fast").rl_config(
        deep, plan, [s.name for s in plan.sub_actions if s.mode == "code"], PPOConfig(), 1000
    )
    assert {t.achievement for t in cfg.reward_terms}.isdisjoint({s.name for s in survival})
    rates = {s.name: 1.0 for s in plan.sub_actions if not s.survival}
    rates |= {"collect_diamond": 0.5, "collect_drink": 0.0, "eat_cow": 0.0, "wake_up": 0.0}
    c = CriticAgent(llm, tmp_path / "critic").critique(deep, plan, VALID, evaluation(rates), 0.8)
    assert set(c.bottlenecks) == {"collect_diamond"}


def test_a_long_climb_is_coded_whole_with_swords_first_and_drops_the_primitives(llm, tmp_path):
    deep = get_task("make_iron_pickaxe")
    plan = SlowAgent(llm, tmp_path / "slow").decompose(deep, None, None)
    names = [s.name for s in plan.sub_actions]
    assert plan.learned() == []  # RL would not explore this far: every step is coded
    assert names.index("make_wood_sword") < names.index("make_stone_sword")
    assert names.index("make_stone_sword") < names.index("make_iron_pickaxe")
    fast = FastAgent(llm, tmp_path / "fast")
    cfg = fast.rl_config(deep, plan, names, PPOConfig(), 1000)
    assert cfg.primitive_actions == []  # the policy only sequences coded actions
    # one action short of the plan (it failed validation): all 17 primitives stay
    short = fast.rl_config(deep, plan, names[1:], PPOConfig(), 1000)
    assert short.primitive_actions is None


def test_eat_plant_waits_out_a_night_without_swords(llm, tmp_path):
    """A short plan whose target waits ~300 steps (a sapling ripening): without the swords and
    survival actions of a long one."""
    plant = get_task("eat_plant")
    plan = SlowAgent(llm, tmp_path / "slow").decompose(plant, None, None)
    names = [s.name for s in plan.sub_actions]
    assert plan.learned() == [] and "collect_sapling" in names
    assert not any(s.survival for s in plan.sub_actions)
    assert not any(n.endswith("_sword") for n in names)
    assert "waits out a night" in plan.reasoning
    cfg = FastAgent(llm, tmp_path / "fast").rl_config(plant, plan, names, PPOConfig(), 1000)
    assert cfg.primitive_actions == []
    short = SlowAgent(llm, tmp_path / "short").decompose(get_task("make_stone_pickaxe"), None, None)
    assert "waits out a night" not in short.reasoning


def test_kept_primitives_drop_misspelled_names_and_never_strand_a_learned_sub_goal(first):
    from rlgpt.agents.roles import kept_primitives
    from rlgpt.messages import RLConfig

    every = [s.name for s in first.sub_actions]
    cfg = RLConfig(macro_actions=every, reward_terms=[], sample_budget=1,
                   primitive_actions=["noop", "move_lefft", "do"])  # fmt: skip
    assert kept_primitives(cfg, first, actions()) == ["noop", "do"]
    learned = cfg.model_copy(update={"macro_actions": every[1:]})  # collect_wood left to RL
    assert kept_primitives(learned, first, actions()) is None
    empty = RLConfig(macro_actions=[], reward_terms=[], sample_budget=1, primitive_actions=[])
    assert kept_primitives(empty, first, actions()) is None  # nothing would be left to choose


def test_rl_config_hash_is_unchanged_for_configs_without_the_primitive_field():
    import hashlib

    from rlgpt.messages import RLConfig

    cfg = RLConfig(macro_actions=["a"], reward_terms=[], sample_budget=5)
    dump = cfg.model_dump(mode="json")
    del dump["primitive_actions"], dump["learned_actions"]  # the fields came later
    old = hashlib.sha256(json.dumps(dump, sort_keys=True).encode()).hexdigest()
    assert cfg.content_hash() == old
    assert cfg.model_copy(update={"primitive_actions": []}).content_hash() != old
    assert cfg.model_copy(update={"learned_actions": ["b"]}).content_hash() != old


def test_a_second_tool_or_a_second_station_close_by_is_refused_and_charged():
    """Repeating make_wood_pickaxe or place_table spends wood that later recipes need: the
    coded actions refuse (the call changes nothing, so the policy pays the no-effect penalty)."""
    from rlgpt.sandbox.client import MacroWorker
    from rlgpt.worlds.crafter.env import CrafterEnv
    from rlgpt.worlds.crafter.tasks import get_task
    from tests.support.world import wrap

    names = ["place_table", "make_wood_pickaxe"]
    worker = MacroWorker([write_action(n, 80) for n in names], CRAFTER_SKILLS)
    try:
        env = wrap(CrafterEnv(get_task("make_stone_pickaxe")), names, worker, 80,
                                 0.3, primitives=["noop"])  # fmt: skip
        env.reset(seed=1)
        env.unwrapped.player.inventory["wood"] = 9
        env.step(0)  # a tick: the wrapper reads the new inventory
        _, _, _, _, first = env.step(env.index_of("place_table"))
        assert first["achievements"]["place_table"] == 1
        _, reward, _, _, again = env.step(env.index_of("place_table"))
        assert again["achievements"]["place_table"] == 1 and again["primitive_steps"] == 1
        assert reward == pytest.approx(-0.3)
        assert again["inventory"]["wood"] == first["inventory"]["wood"]
        _, _, _, _, made = env.step(env.index_of("make_wood_pickaxe"))
        assert made["inventory"]["wood_pickaxe"] == 1
        wood = made["inventory"]["wood"]
        _, reward, _, _, twice = env.step(env.index_of("make_wood_pickaxe"))
        assert twice["inventory"]["wood_pickaxe"] == 1 and twice["inventory"]["wood"] == wood
        assert reward == pytest.approx(-0.3)
    finally:
        worker.close()


def test_critic_names_deaths_not_the_step_budget_when_episodes_die(llm, tmp_path, first):
    rates = {"collect_wood": 1.0, "place_table": 1.0, "make_wood_pickaxe": 0.4}
    critic = CriticAgent(llm, tmp_path / "critic")
    died = evaluation(rates).model_copy(update={"ends": {"death": 0.5, "time_limit": 0.1}})
    c = critic.critique(TASK, first, VALID, died, 0.9)
    said = c.fast_feedback["make_wood_pickaxe"]
    assert "50% of episodes end in death" in said and "alive" in said
    assert "search longer" not in said
    # calls that ran out of steps are still told to search longer, deaths or not
    looped = evaluation(rates, loops={"make_wood_pickaxe": 3})
    looped = looped.model_copy(update={"ends": died.ends})
    c = critic.critique(TASK, first, VALID, looped, 0.9)
    assert "3x" in c.fast_feedback["make_wood_pickaxe"]
    assert "search longer" in c.fast_feedback["make_wood_pickaxe"]
