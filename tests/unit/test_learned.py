"""Learned actions: start states, their episodes and reward, their training, their judgement,
and their runtime as options of a task's action space (rlgpt/rl/learn*.py, options.py)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from rlgpt.config import LearnParams, SandboxParams, TrainParams
from rlgpt.messages import (
    LearnedConfig,
    PPOConfig,
    RewardTerm,
    RLConfig,
    ShapingTerm,
)  # fmt: skip
from rlgpt.rl.envs import make_env
from rlgpt.rl.learn import LearnRequest, groups, train_in_order, train_learned
from rlgpt.rl.learned import LearnedResult, check_config, learned_env, reach, skill_act
from rlgpt.rl.shaping import LearnedEpisode, Signals, StartStates, signals
from rlgpt.rl.starts import SnapshotLog, from_episodes, staged
from rlgpt.trial import LearnedAction, trial_code
from rlgpt.worlds import get_world

CRAFTER = get_world("crafter")
SMALL = PPOConfig(n_steps=32, batch_size=32, n_epochs=1, net_arch=[32, 32])
TRAIN = TrainParams(n_envs=1, ppo=SMALL, checkpoint_every=0)
SANDBOX = SandboxParams()


def config(**kw: object) -> LearnedConfig:
    base: dict[str, object] = {"name": "collect_wood", "step_budget": 60, "sample_budget": 600,
                               "ppo": SMALL}  # fmt: skip
    return LearnedConfig.model_validate(base | kw)


@pytest.fixture(scope="module")
def wood_starts() -> list[bytes]:
    return [s.blob for s in staged(CRAFTER, "collect_wood", n=6, seed_base=77, radius=4)]


def test_staged_starts_are_states_where_the_precondition_holds_and_restore_exactly():
    starts = staged(CRAFTER, "make_wood_pickaxe", n=4, seed_base=5, radius=4)
    assert len(starts) == 4 and all(s.source.startswith("staged ") for s in starts)
    env = CRAFTER.validation_env("make_wood_pickaxe", 4)
    for s in starts:
        info = env.restore(s.blob)  # type: ignore[attr-defined]
        assert info["inventory"]["wood"] >= 1  # the recipe's wood is held
        first = [env.step(i % 17)[4]["player_pos"] for i in range(30)]
        env.restore(s.blob)  # type: ignore[attr-defined]
        assert [env.step(i % 17)[4]["player_pos"] for i in range(30)] == first


def test_start_states_from_the_tasks_own_episodes_are_where_the_step_is_next():
    """The skills in plan order: a snapshot each time the sub-action is the plan's next step;
    where it has no code, the episode stops there."""
    task = CRAFTER.task("make_wood_pickaxe")
    author = CRAFTER.author()
    dec = author.decompose(task, {"make_wood_pickaxe": "rl"}, {})
    coded = [author.write_action(s.name, 80) for s in dec.sub_actions if s.mode == "code"]
    starts, played = from_episodes(
        CRAFTER, task, dec, "make_wood_pickaxe", coded, [], episodes=2, per_episode=3,
        seed_base=900, train=TRAIN, sandbox=SANDBOX,
    )  # fmt: skip
    assert 1 <= len(starts) <= 2 and played > 0  # one per episode: it has no code to go on
    env = CRAFTER.validation_env("make_wood_pickaxe", 4)
    for s in starts:
        info = env.restore(s.blob)  # type: ignore[attr-defined]
        assert info["achievements"]["place_table"] >= 1  # the steps before it are done
        assert info["achievements"]["make_wood_pickaxe"] == 0


def test_a_learned_episode_says_which_group_its_start_came_from(wood_starts):
    """The early stop judges each group of start states (Learnt): every step's info names the
    group its episode's start state was drawn from."""
    env = CRAFTER.validation_env("collect_wood", 4)
    starts = StartStates([wood_starts[:3], wood_starts[3:]], 5)
    ep = LearnedEpisode(env, config(), starts, CRAFTER.vitals)  # type: ignore[arg-type]
    seen = set()
    for _ in range(12):
        ep.reset()
        group = starts.last
        *_, info = ep.step(CRAFTER.primitives().index("noop"))
        assert info["start_group"] == group
        seen.add(group)
    assert seen == {0, 1}


def test_start_groups_weigh_the_tasks_own_states_as_much_as_staged_ones():
    draws = StartStates([[b"a"] * 1, [b"b"] * 9], seed=0)
    picked = [draws.draw() for _ in range(2000)]
    assert 0.4 < picked.count(b"a") / len(picked) < 0.6
    assert StartStates([[], [b"x"]], seed=0).draw() == b"x"
    with pytest.raises(ValueError):
        StartStates([[], []], seed=0)


def test_signals_follow_the_info_contract():
    info = {"inventory": {"health": 9, "food": 5}, "achievements": {"defeat_zombie": 0},
            "player_pos": (3, 3)}  # fmt: skip
    sig = Signals(frozenset({"health", "food"}), info)
    hurt = {"inventory": {"health": 7, "food": 5}, "achievements": {"defeat_zombie": 1},
            "player_pos": (3, 4)}  # fmt: skip
    step = sig.step(hurt)
    assert step["health"] == -2 and step["kills"] == 1 and step["explore"] == 1
    assert sig.step(hurt)["explore"] == 0  # the same cell again
    assert {"health", "kills", "explore", "descend"} <= set(signals(CRAFTER.vitals))


def test_a_learned_episode_pays_the_effect_and_ends_there(wood_starts):
    """Its episodes start where it starts, end at the effect (once), a death or the budget;
    `success` is the effect since the start, not the achievement's count."""
    env = CRAFTER.validation_env("collect_wood", 4)
    cfg = config(effect_bonus=7.0, reward_terms=[RewardTerm(achievement="collect_sapling",
                                                            weight=1.0)])  # fmt: skip
    ep = LearnedEpisode(env, cfg, StartStates([wood_starts], 0), CRAFTER.vitals)  # type: ignore[arg-type]
    act = skill_free_walk(CRAFTER, ep)
    total, steps, info = 0.0, 0, {}
    _, info = ep.reset()
    assert info["success"] is False
    done = False
    while not done:
        _, r, term, trunc, info = ep.step(act())
        total, steps, done = total + r, steps + 1, term or trunc
    assert steps <= cfg.step_budget
    if info["success"]:
        assert total >= 7.0 and term
    else:
        assert trunc or info["died"]


def skill_free_walk(world, ep):  # a fixed walk that faces and hits what is in front
    prims = world.primitives()
    seq = [prims.index(a) for a in ("do", "do", "do", "move_left", "do", "do", "move_up")]
    i = iter(range(10**6))
    return lambda: seq[next(i) % len(seq)]


@pytest.mark.parametrize(
    ("change", "wrong"),
    [
        ({"name": "find_gold"}, "no achievement"),
        ({"reward_terms": [RewardTerm(achievement="collect_gold", weight=1)]}, "collect_gold"),
        ({"shaping": [ShapingTerm(signal="happiness", weight=1)]}, "happiness"),
        ({"macro_actions": ["place_table", "fly"]}, "fly"),
        ({"primitive_actions": ["move_lefft"]}, "move_lefft"),
        ({"primitive_actions": [], "macro_actions": []}, "empty"),
        ({"sample_budget": 10**8}, "learn.sample_budget"),
        ({"step_budget": 599, "sample_budget": 1000}, "fewer than 4 episodes"),
    ],
)
def test_a_config_that_cannot_train_says_what_to_fix(change, wrong):
    problems = check_config(config(**change), CRAFTER, ["place_table"], LearnParams())
    assert any(wrong in p for p in problems), problems


def test_a_good_config_has_no_problem():
    cfg = config(macro_actions=["place_table"], shaping=[ShapingTerm(signal="health", weight=1)])
    assert check_config(cfg, CRAFTER, ["place_table"], LearnParams()) == []


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """One tiny real training of a learned collect_wood (its code in its space)."""
    out = tmp_path_factory.mktemp("learned")
    task = CRAFTER.task("make_wood_pickaxe")
    author = CRAFTER.author()
    dec = author.decompose(task, {"collect_wood": "rl"}, {})
    coded = [author.write_action(s.name, 80) for s in dec.sub_actions]
    cfg = config(macro_actions=["collect_wood"], sample_budget=900, step_budget=60,
                 shaping=[ShapingTerm(signal="health", weight=0.5)])  # fmt: skip
    req = LearnRequest(
        task=task, decomposition=dec, config=cfg, coded=coded,
        learn=LearnParams(starts=6, held_out=4, rollouts=1, n_envs=2, stop_reach=None),
        train=TRAIN,
        sandbox=SANDBOX, seed=0, out_dir=str(out / "collect_wood"), show_progress=False,
    )  # fmt: skip
    return req, train_learned(req)


def test_a_learned_action_trains_and_is_judged_on_held_out_starts(trained):
    req, result = trained
    assert result.train_samples >= 900 and result.samples >= result.train_samples
    assert result.held_out >= 1 and 0 <= result.reach_after <= 1  # type: ignore[operator]
    assert result.skill_reach is not None  # its code alone, from the same held-out starts
    out = Path(req.out_dir)
    assert (out / "policy.zip").is_file() and (out / "curve.csv").is_file()
    assert result.ok == (result.reach_after >= req.learn.min_reach)  # type: ignore[operator]
    rows = (out / "curve.csv").read_text().splitlines()[1:]
    assert rows and all(int(r.split(",")[2]) <= req.config.step_budget + 80 for r in rows)


def test_a_rerun_of_a_finished_training_reads_its_starts_back(trained):
    req, result = trained
    again = train_learned(req.model_copy(update={"show_progress": False}))
    assert again.starts == result.starts and again.reach_before == result.reach_before


def test_a_learned_action_runs_as_an_option_until_its_effect(trained, tmp_path):
    """Inserted into the task's space, calling it runs its policy (and the coded actions it
    picks) until its achievement rises, the episode ends or its budget; the call's steps are
    primitive steps; the states it was called in are offered for its next training."""
    req, result = trained
    action = LearnedAction(name="collect_wood", config=req.config, policy=result.policy,
                           policy_sha256=result.policy_sha256)  # fmt: skip
    coded = [c for c in req.coded if c.name == "collect_wood"]
    cfg = RLConfig(macro_actions=[], learned_actions=["collect_wood"], reward_terms=[],
                   sample_budget=1, primitive_actions=["noop"])  # fmt: skip
    log = SnapshotLog(cap=2, seed=0)
    env = make_env(
        req.task, cfg, coded, 3, 4, 80, sandbox=SANDBOX, masking="off", learned=[action],
        snapshots=log,
    )  # fmt: skip
    try:
        assert env.action_space.n == 2 and env.action_name(1) == ("collect_wood", True)
        _, info = env.reset(seed=3)
        before = info["achievements"]["collect_wood"]
        for _ in range(3):
            _, _, term, trunc, info = env.step(1)
            assert 1 <= info["primitive_steps"] <= req.config.step_budget + 80
            if term or trunc:
                break
        assert info["achievements"]["collect_wood"] >= before
        assert len(log.kept["collect_wood"]) == 2 and log.seen["collect_wood"] >= 2
        files = log.save(tmp_path)
        assert [f.name for f in files] == ["collect_wood.starts.pkl"]
    finally:
        env.close()


def test_a_learned_action_whose_coded_action_this_run_lacks_runs_without_it(trained):
    """A learned action's space names a coded action the iteration has not (excluded, or
    turned into a learned action since): it is masked in the option's space, never asked of
    the pool (which has no worker for it), and the call runs on primitives alone."""
    req, result = trained
    action = LearnedAction(name="collect_wood", config=req.config, policy=result.policy,
                           policy_sha256=result.policy_sha256)  # fmt: skip
    cfg = RLConfig(macro_actions=[], learned_actions=["collect_wood"], reward_terms=[],
                   sample_budget=1, primitive_actions=["noop"])  # fmt: skip
    env = make_env(req.task, cfg, [], 3, 4, 80, sandbox=SANDBOX, masking="off", learned=[action])
    try:
        assert env.action_masks()[1], "the learned action itself stays on"
        option = env.options["collect_wood"]
        assert "collect_wood" in option.coded and env.runner.names == frozenset()
        _, info = env.reset(seed=3)
        assert not option.mask(info, env._code_off, env.world_env.standing())[-1]
        for _ in range(3):
            _, _, term, trunc, info = env.step(1)
            assert info["macro_error"] is None and info["primitive_steps"] >= 1
            if term or trunc:
                break
    finally:
        env.close()


def test_a_learned_action_that_joins_keeps_calling_its_own_earlier_code(trained):
    """Its space names its own earlier code (validated when it was coded): the trial keeps
    that code for its calls, never inserted at the top level, and the task's env runs it
    there as it ran when the learned action was trained and judged; where the learned action
    stays out, the code covers its sub-action at the top level instead."""
    req, result = trained
    action = LearnedAction(name="collect_wood", config=req.config, policy=result.policy,
                           policy_sha256=result.policy_sha256)  # fmt: skip
    code = {c.name: c for c in req.coded}
    usable = [code["place_table"], code["make_wood_pickaxe"]]
    top, inner = trial_code(usable, [code["collect_wood"]], [action])
    assert [c.name for c in top] == ["place_table", "make_wood_pickaxe"]
    assert [c.name for c in inner] == ["collect_wood"]
    stayed_out = trial_code(usable, [code["collect_wood"]], [])
    assert [c.name for c in stayed_out[0]] == ["place_table", "make_wood_pickaxe", "collect_wood"]
    assert stayed_out[1] == []
    cfg = RLConfig(macro_actions=[c.name for c in top], learned_actions=["collect_wood"],
                   reward_terms=[], sample_budget=1)  # fmt: skip
    env = make_env(req.task, cfg, top + inner, 3, 4, 80, sandbox=SANDBOX, masking="off",
                   learned=[action])  # fmt: skip
    try:
        space = [env.action_name(i) for i in range(env._n_prim, int(env.action_space.n))]
        assert space == [("place_table", True), ("make_wood_pickaxe", True),
                         ("collect_wood", True)]  # fmt: skip
        assert env.runner.names == frozenset({"place_table", "make_wood_pickaxe", "collect_wood"})
        _, info = env.reset(seed=3)
        option = env.options["collect_wood"]
        assert option.mask(info, env._code_off, env.world_env.standing())[-1]  # its code runs
    finally:
        env.close()


def test_reach_counts_effects_deaths_and_budgets(wood_starts):
    cfg = config(macro_actions=["collect_wood"], step_budget=120)
    author = CRAFTER.author()
    coded = [author.write_action("collect_wood", 80)]
    from rlgpt.rl.starts import Start

    held = [Start(source=f"staged {i}", blob=b) for i, b in enumerate(wood_starts[:3])]
    r = reach(CRAFTER, cfg, coded, held, skill_act("collect_wood"), TRAIN, sandbox=SANDBOX, seed=0)
    assert math.isclose(r.reach + r.deaths + r.out_of_steps, 1.0)
    assert r.reach >= 2 / 3  # the reference code collects wood where a tree is in view
    assert r.steps > 0


def test_groups_split_staged_from_episode_states(wood_starts):
    from rlgpt.rl.starts import Start

    starts = [Start(source="staged met-1 seed 1", blob=b"s"),
              Start(source="episode seed 3 step 9", blob=b"e"),
              Start(source="training call 1", blob=b"t")]  # fmt: skip
    assert groups(starts) == [[b"s"], [b"e", b"t"]]


def test_learned_env_masks_its_coded_actions_by_the_recipes(wood_starts):
    author = CRAFTER.author()
    coded = [author.write_action("place_table", 80)]
    cfg = config(macro_actions=["place_table"])
    env = learned_env(CRAFTER, cfg, coded, StartStates([wood_starts], 0), TRAIN, SANDBOX)
    try:
        env.reset()
        mask = env.action_masks()
        prims = CRAFTER.primitives()
        assert mask.shape == (18,) and isinstance(mask[17], np.bool_)
        # moving, interacting, waiting and sleeping stay free; a crafting or placing primitive
        # is hidden while nothing it uses is held (the staged wood starts hold nothing)
        held = env.world_env.last_info["inventory"]
        for i, p in enumerate(prims):
            crafts = p.startswith(("make_", "place_"))
            if p == "sleep":  # only when tired
                assert mask[i] == (held["energy"] <= 3)
                continue
            assert mask[i] == (not crafts or p == "place_plant" and held.get("sapling", 0) > 0), p
    finally:
        env.close()


def test_a_killed_training_resumes_from_its_last_checkpoint(trained, tmp_path, monkeypatch):
    """A learned action's training that dies after a checkpoint goes on from it when run
    again (the flow reruns the learn stage on `rlgpt resume`)."""
    req, _ = trained
    req = req.model_copy(update={
        "out_dir": str(tmp_path / "again"), "show_progress": False,
        "train": TRAIN.model_copy(update={"checkpoint_every": 300}),
    })  # fmt: skip
    monkeypatch.setenv("RLGPT_FAULT", "raise:learn_mid")
    with pytest.raises(RuntimeError, match="learn_mid"):
        train_learned(req)
    monkeypatch.delenv("RLGPT_FAULT")
    done = train_learned(req)
    assert done.resumed_from >= 300 and done.train_samples >= req.config.sample_budget


def test_a_training_that_diverges_is_kept_out_with_the_reason(trained, tmp_path):
    req, _ = trained
    # a reward of 1e38 per new cell: returns overflow to inf, the value loss to NaN
    wild = req.config.model_copy(update={"shaping": [ShapingTerm(signal="explore", weight=1e38)]})
    out = train_learned(req.model_copy(update={"config": wild, "out_dir": str(tmp_path / "w")}))
    assert not out.ok and out.reason.startswith("diverged"), out.reason


def test_a_fresh_learned_action_starts_out_calling_its_own_code(wood_starts):
    """Learning starts from the code: its call is the likeliest action of a fresh policy."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    from rlgpt.rl.learned import start_as_its_code
    from rlgpt.rl.train import new_model

    author = CRAFTER.author()
    coded = [author.write_action("collect_wood", 80)]
    cfg = config(macro_actions=["collect_wood"])
    env = learned_env(CRAFTER, cfg, coded, StartStates([wood_starts], 0), TRAIN, SANDBOX)
    try:
        venv = DummyVecEnv([lambda: env])
        model = new_model(SMALL, False, venv, 0, "cpu", True, fused_adam=False)
        obs, _ = env.reset()
        tensor = model.policy.obs_to_tensor(obs)[0]
        before = model.policy.get_distribution(tensor).distribution.probs[0, 17].item()
        assert start_as_its_code(model, cfg, CRAFTER)
        after = model.policy.get_distribution(tensor).distribution.probs[0, 17].item()
        assert before < 0.1 < 0.4 < after  # about half of its choices, from one in eighteen
        assert not start_as_its_code(model, config(), CRAFTER)  # no code of its own: no prior
    finally:
        env.close()


def test_a_learned_action_below_its_code_alone_stays_out():
    from rlgpt.rl.learn import judgement
    from rlgpt.rl.learned import Reach

    def r(x: float) -> Reach:
        return Reach(reach=x, deaths=0.0, out_of_steps=1 - x, steps=1)

    assert judgement(r(0.5), r(0.5), 0.1) == ""  # as good as its code: it joins
    assert judgement(r(0.6), None, 0.1) == ""  # no code of its own to beat
    assert "the code covers it" in judgement(r(0.4), r(0.5), 0.1)
    assert "below learn.min_reach" in judgement(r(0.05), None, 0.1)


def test_a_learnt_training_stops_on_its_recent_episodes_only():
    """learn.stop_reach: the share of the last stop_window finished episodes that reached the
    effect, judged as episodes end; never before the window is full; null never stops."""
    from rlgpt.rl.learned import Learnt

    rows: list[str] = []
    stop = Learnt(lambda: rows, 0.75, 4)
    for k, won in enumerate([1, 0, 1, 0, 0, 1, 1, 1]):
        rows.append(f"{100 * (k + 1)},1.0,10,{won}")
        assert stop._on_step() == (k < 7), k  # 3 of the last 4 first at the 8th episode
    assert stop.why.startswith("reached its effect in 3 of its last 4 training episodes at 800")
    never = Learnt(lambda: rows, None, 4)
    assert never._on_step() and not never.why
    assert Learnt(lambda: rows[:3], 0.5, 4)._on_step()  # the window is not full yet


def test_a_learnt_training_goes_on_while_the_tasks_own_starts_fail():
    """Easy staged starts (group 0) all reach the effect, the task's own (group 1) half of the
    time: 0.75 of the window in all, but not of each group, so it trains on; once the task's
    own starts reach it as often, it stops."""
    from rlgpt.rl.learned import Learnt

    rows: list[str] = []
    groups: list[int] = []
    stop = Learnt(lambda: rows, 0.75, 8, lambda: groups)
    plain = Learnt(lambda: rows, 0.75, 8)
    for k, (g, won) in enumerate([(0, 1), (1, 0), (0, 1), (1, 1)] * 2):
        rows.append(f"{100 * (k + 1)},1.0,10,{won}")
        groups.append(g)
        assert stop._on_step()  # 6 of 8 in all, 2 of 4 from the task's own starts
    assert not plain._on_step()  # without the groups, it would have stopped here
    for k, (g, won) in enumerate([(1, 1), (0, 1), (1, 1), (0, 1)]):
        rows.append(f"{900 + 100 * k},1.0,10,{won}")
        groups.append(g)
        if not stop._on_step():
            break
    assert k == 1 and "from each group of start states alike" in stop.why, (k, stop.why)


def test_a_learned_action_that_has_learnt_stops_before_its_budget(trained, tmp_path):
    """Its own code in its space reaches the effect from most starts at once: the training
    ends once its recent episodes say so, with fewer samples than its budget, and says why."""
    req, _ = trained
    cfg = req.config.model_copy(update={"sample_budget": 20_000})
    learn = req.learn.model_copy(update={"stop_reach": 0.5, "stop_window": 4})
    early = train_learned(req.model_copy(update={
        "config": cfg, "learn": learn, "out_dir": str(tmp_path / "early")}))  # fmt: skip
    assert early.stopped.startswith("reached its effect in"), early
    assert early.train_samples < cfg.sample_budget and early.reach_after is not None
    rows = (tmp_path / "early" / "curve.csv").read_text().splitlines()[1:]
    assert sum(r.endswith(",1") for r in rows[-4:]) >= 2


def test_a_chains_later_step_waits_for_its_predecessors_policy(trained, monkeypatch):
    """Learned in one iteration, a chain's later step trains once the earlier one has a
    policy, and its rollouts play that policy (with no action for the step before it, the
    task's episodes stop short of it: the test above); independent ones train together, and
    results come back in the order asked."""
    import rlgpt.rl.learn as learn_mod

    req, first = trained  # a real trained collect_wood: the predecessor's result
    waves: list[list[tuple[str, list[str]]]] = []

    def train_all(reqs: list[LearnRequest], parallel: int | None) -> list[LearnedResult]:
        waves.append([(r.config.name, [a.name for a in r.learned]) for r in reqs])

        def one(r: LearnRequest) -> LearnedResult:
            if r.config.name == "collect_wood":
                return first
            return first.model_copy(update={"name": r.config.name, "ok": False})

        return [one(r) for r in reqs]

    monkeypatch.setattr(learn_mod, "train_all", train_all)
    table = req.model_copy(update={"config": config(name="place_table")})
    pick = req.model_copy(update={"config": config(name="make_wood_pickaxe"),
                                  "after": ["collect_wood", "place_table"]})  # fmt: skip
    results = train_in_order([pick, req, table], parallel=2)
    assert [r.name for r in results] == ["make_wood_pickaxe", "collect_wood", "place_table"]
    assert waves == [
        [("collect_wood", []), ("place_table", [])],  # together: neither waits
        [("make_wood_pickaxe", ["collect_wood"])],  # after both; only the one that joined
    ]
    # a step it waits for that is not trained here (its config failed) holds nothing up
    waves.clear()
    alone = pick.model_copy(update={"after": ["collect_sapling"]})
    assert [r.name for r in train_in_order([alone], parallel=2)] == ["make_wood_pickaxe"]
    assert waves == [[("make_wood_pickaxe", [])]]


@pytest.mark.parametrize("before, after", [(0.75, 0.25), (0.25, 0.75)])
def test_a_training_that_loses_held_out_states_keeps_the_policy_it_started_from(
    trained, tmp_path, monkeypatch, before, after
):
    """The policy that joins is the better of the one a training started from and the one it
    ended with, on the same held-out start states (a further training can lose ground: a
    learned make_stone_pickaxe went from 0.83 to 0.67). Only the reach measurements are
    replaced (before, its code alone, after); the training is real."""
    import rlgpt.rl.learn as learn_mod
    from rlgpt.rl.learned import Reach

    reaches = iter([before, 0.0, after])
    monkeypatch.setattr(learn_mod, "reach", lambda *a, **k: Reach(
        reach=next(reaches), deaths=0.0, out_of_steps=0.0, steps=1))  # fmt: skip
    req, _ = trained
    out = tmp_path / "kept"
    res = train_learned(req.model_copy(update={"out_dir": str(out)}))
    start, policy = (out / "start.zip").read_bytes(), (out / "policy.zip").read_bytes()
    assert res.ok and res.reach_before == before and res.reach_after == max(before, after)
    if before > after:
        assert policy == start and "the policy it started from 75%" in res.kept_start
    else:
        assert policy != start and res.kept_start == ""


def test_a_learned_actions_observation_recalls_its_target_out_of_view(wood_starts):
    """A learned collect_wood reads, beside its view, where the nearest tree it has seen lies;
    carried out of sight of every tree, it still knows the way back (World.recalls)."""
    from rlgpt.worlds.crafter.env import RECALL_CELLS

    assert CRAFTER.recalls("collect_wood") == ("tree",)
    assert CRAFTER.recalls("make_wood_pickaxe") == ("table",)
    assert CRAFTER.recalls("defeat_zombie") == ()  # a creature: not a place to remember
    cfg = config(macro_actions=[])
    env = learned_env(CRAFTER, cfg, [], StartStates([wood_starts], 0), TRAIN, SANDBOX)
    try:
        obs, _ = env.reset()
        assert obs.shape == env.observation_space.shape
        plain = env.world_env.observation_space.shape[0]
        assert obs.shape[0] == plain + 4 and obs[plain] == 1.0  # a tree in view at the start
        wenv = env.world_env
        world, tree = wenv.world, wenv.world._mat_ids["tree"]
        # carry the player to grass out of sight of every tree (nothing new is seen)
        trees = np.argwhere(world._mat_map == tree)
        grass = np.argwhere(world._mat_map == world._mat_ids["grass"])
        far = [g for g in grass if np.abs(trees - g).max(axis=1).min() > 5
               and world._obj_map[tuple(g)] == 0]  # fmt: skip
        world.move(wenv.player, tuple(int(v) for v in far[0]))
        seen, dx, dy, dist = wenv.recall(("tree",))
        x, y = (int(v) for v in wenv.player.pos)
        assert seen == 1.0 and abs(dx) <= 1 and abs(dy) <= 1
        known = np.argwhere((world._mat_map == tree) & wenv._seen)
        nearest = np.abs(known - (x, y)).sum(axis=1).min()
        assert dist == pytest.approx(min(1.0, nearest / (2 * RECALL_CELLS)))
        if nearest < RECALL_CELLS:  # the offset itself is exact within RECALL_CELLS
            cell = (x + round(float(dx) * RECALL_CELLS), y + round(float(dy) * RECALL_CELLS))
            assert world._mat_map[cell] == tree and wenv._seen[cell]
        wenv._seen[:] = False  # nothing remembered: nothing recalled
        assert not wenv.recall(("tree", "table")).any()
    finally:
        env.close()
