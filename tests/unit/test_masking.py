"""rlgpt.worlds.crafter.masking: which coded actions the policy may call, from the recipe graph."""

from __future__ import annotations

import numpy as np
from sb3_contrib import MaskablePPO
from stable_baselines3 import PPO

from rlgpt.messages import RLConfig
from rlgpt.rl.envs import make_env
from rlgpt.rl.policy import load_policy
from rlgpt.worlds.crafter.author import write_action
from rlgpt.worlds.crafter.masking import ActionMask
from rlgpt.worlds.crafter.planner import climb_steps
from rlgpt.worlds.crafter.preconditions import requirement
from rlgpt.worlds.crafter.tasks import get_task

DIAMOND = [a for a, _ in climb_steps("collect_diamond")] + ["collect_drink", "eat_cow", "wake_up"]


def _allowed(rule: ActionMask, names: list[str], inv: dict[str, int], placed: dict[str, int],
             disabled: frozenset[str] = frozenset()) -> list[str]:  # fmt: skip
    mask = rule(inv, placed, lambda n: n in disabled)
    assert mask.dtype == bool and len(mask) == rule.n_prim + len(names)
    return [n for n, ok in zip(names, mask[rule.n_prim :], strict=True) if ok]


def test_the_diamond_chain_opens_one_recipe_at_a_time():
    rule = ActionMask("collect_diamond", DIAMOND, [])
    survival = ["collect_drink", "eat_cow", "wake_up"]
    # nothing held: only wood (and staying alive) can make progress
    low = {"health": 9, "food": 2, "drink": 2, "energy": 2}
    assert _allowed(rule, DIAMOND, low, {}) == ["collect_wood", *survival]
    # a table needs it placed before anything is made at it
    assert "make_wood_pickaxe" not in _allowed(rule, DIAMOND, {"wood": 5}, {})
    after_table = _allowed(rule, DIAMOND, {"wood": 3}, {"place_table": 1})
    assert {"make_wood_sword", "make_wood_pickaxe"} <= set(after_table)
    assert "place_table" not in after_table, "a second table only wastes wood"
    # the pickaxe opens stone and coal; a held tool is never made again
    held = {"wood": 2, "wood_pickaxe": 1, "wood_sword": 1}
    opened = _allowed(rule, DIAMOND, held, {"place_table": 1})
    assert {"collect_stone", "collect_coal"} <= set(opened)
    assert "make_wood_pickaxe" not in opened and "collect_iron" not in opened
    assert "collect_diamond" not in opened, "no iron pickaxe yet"
    # the iron pickaxe needs the furnace placed, then it opens the diamond
    iron = {"wood": 1, "coal": 1, "iron": 1, "stone_pickaxe": 1, "wood_pickaxe": 1}
    assert "make_iron_pickaxe" not in _allowed(rule, DIAMOND, iron, {"place_table": 1})
    assert "make_iron_pickaxe" in _allowed(
        rule, DIAMOND, iron, {"place_table": 1, "place_furnace": 1}
    )
    assert "collect_diamond" in _allowed(rule, DIAMOND, {"iron_pickaxe": 1}, {"place_table": 1})


def test_a_material_is_collected_only_while_the_rest_of_the_plan_needs_it():
    rule = ActionMask("make_wood_pickaxe", ["collect_wood", "place_table", "make_wood_pickaxe"], [])
    need = rule.to_collect({}, {})["wood"]
    assert need >= 2  # the table and the pickaxe
    assert "collect_wood" in _allowed(rule, rule.names, {"wood": need - 1}, {})
    assert "collect_wood" not in _allowed(rule, rule.names, {"wood": need}, {})
    # once the table stands, only the pickaxe's wood is still needed
    left = rule.to_collect({"wood": 0}, {"place_table": 1}).get("wood", 0)
    assert 0 < left < need


def test_a_model_action_that_gathers_for_itself_is_not_locked_out():
    # no coded action or primitive yields wood or places a table: nothing to wait for
    rule = ActionMask("make_wood_pickaxe", ["make_wood_pickaxe", "get_ready"], [])
    assert _allowed(rule, rule.names, {}, {}) == ["make_wood_pickaxe", "get_ready"]
    # with the primitives, the policy can collect and place itself: the precondition holds
    prims = ["noop", "do", "place_table"]
    rule = ActionMask("make_wood_pickaxe", ["make_wood_pickaxe"], prims)
    assert rule({}, {}, lambda n: False).tolist() == [True, True, True, False]


def test_disabled_actions_are_masked_and_the_mask_is_never_empty():
    rule = ActionMask("collect_diamond", DIAMOND, [])
    held = {"wood": 0}
    assert "collect_wood" not in _allowed(rule, DIAMOND, held, {}, frozenset({"collect_wood"}))
    everything = frozenset(DIAMOND)
    assert rule(held, {}, lambda n: n in everything).all(), "nothing allowed: allow all"


def test_the_training_env_exposes_masks_only_when_asked():
    names = ["collect_wood", "place_table", "make_wood_pickaxe"]
    coded = [write_action(a, 80) for a in names]
    cfg = RLConfig(macro_actions=names, reward_terms=[], sample_budget=1, primitive_actions=[])
    task = get_task("make_wood_pickaxe")
    masked = make_env(task, cfg, coded, 0, 4, 80, masking="recipes")
    plain = make_env(task, cfg, coded, 0, 4, 80, masking="off")
    try:
        assert masked.action_masks().tolist() == [True, False, False]
        assert plain.action_masks().tolist() == [True, True, True]
        _, _, _, _, info = masked.step(0)  # collect_wood, run by its sandboxed worker
        assert info["inventory"]["wood"] >= 1
        table_wood = requirement("place_table").items["wood"]  # type: ignore[union-attr]
        assert masked.action_masks()[1] == (info["inventory"]["wood"] >= table_wood)
    finally:
        masked.close()
        plain.close()


def test_a_masked_training_saves_a_maskable_policy(tiny_run, tmp_path):
    from rlgpt.rl.train import TrainSettings, train
    from rlgpt.trial import Trial

    assert isinstance(load_policy(tiny_run["result"].checkpoint), MaskablePPO)
    params = tiny_run["params"].model_copy(update={"action_masking": "off"})
    trial = Trial.of(tiny_run["task"], tiny_run["cfg"], tiny_run["coded"], dec=tiny_run["dec"])
    plain = train(trial, tmp_path, settings=TrainSettings(params=params, seed=0,
                                                          show_progress=False))  # fmt: skip
    model = load_policy(plain.checkpoint)
    assert isinstance(model, PPO) and not isinstance(model, MaskablePPO)
    assert plain.space != tiny_run["result"].space, "no warm start across the switch"
    assert np.isfinite(plain.samples_per_s)


def test_plan_masks_keep_only_the_next_unfinished_chain_step_and_survival():
    rule = ActionMask("collect_diamond", DIAMOND, [], ordered=True)
    survival = ["collect_drink", "eat_cow", "wake_up"]
    assert "collect_drink" not in rule.chain and "collect_diamond" in rule.chain
    wood = rule.to_collect({}, {})["wood"]
    # every piece of wood the plan needs comes first, as the plan orders it
    assert _allowed(rule, DIAMOND, {"wood": wood - 1}, {}) == ["collect_wood", *survival]
    assert _allowed(rule, DIAMOND, {"wood": wood}, {}) == ["place_table", *survival]
    after = _allowed(rule, DIAMOND, {"wood": wood - 1}, {"place_table": 1})
    assert after == ["make_wood_sword", *survival]
    # the recipe mask alone would allow more here
    loose = ActionMask("collect_diamond", DIAMOND, [])
    assert len(_allowed(loose, DIAMOND, {"wood": wood - 1}, {"place_table": 1})) > len(after)


def test_after_the_sapling_is_planted_eat_plant_is_the_only_step():
    """eat_plant's plan carries a pickaxe and a planted sapling: once both are done, the plan
    from here collects nothing more (not a second sapling, not wood for a second pickaxe)."""
    plant = [a for a, _ in climb_steps("eat_plant")]
    assert plant[-3:] == ["collect_sapling", "place_plant", "eat_plant"]
    rule = ActionMask("eat_plant", plant, [], ordered=True)
    done = {"collect_wood": 3, "place_table": 1, "make_wood_pickaxe": 1, "collect_sapling": 1}
    held = {"wood_pickaxe": 1, "sapling": 1}
    assert _allowed(rule, plant, held, done) == ["place_plant"]
    planted = {**done, "place_plant": 1}
    assert rule.to_collect({"wood_pickaxe": 1}, planted) == {}
    assert _allowed(rule, plant, {"wood_pickaxe": 1}, planted) == ["eat_plant"]
    # without a sapling and none planted yet, one is collected first
    assert _allowed(rule, plant, {"wood_pickaxe": 1}, {**done, "collect_sapling": 0}) == [
        "collect_sapling"
    ]


def test_a_station_that_no_longer_stands_is_placed_again_before_the_recipe_that_needs_it():
    """A skeleton's arrow turns a table into a path and the place_table count stays: without
    the env's word that it is gone, the plan would call make_* with nothing to make it at."""
    rule = ActionMask("collect_diamond", DIAMOND, [], ordered=True)
    survival = ["collect_drink", "eat_cow", "wake_up"]
    done = {"collect_wood": 5, "place_table": 1, "make_wood_sword": 1, "make_wood_pickaxe": 1,
            "collect_stone": 2, "make_stone_sword": 1}  # fmt: skip
    held = {"wood": 2, "stone": 1, "wood_pickaxe": 1, "wood_sword": 1, "stone_sword": 1}
    assert rule.to_collect(held, done).get("wood", 0) == 0, "the table up: wood for the rest"
    table = requirement("place_table").items["wood"]  # type: ignore[union-attr]

    def allowed(inv: dict[str, int], standing: dict[str, bool], placed=done) -> list[str]:
        mask = rule(inv, placed, lambda n: False, standing)
        return [n for n, ok in zip(DIAMOND, mask[rule.n_prim :], strict=True) if ok]

    up = {"table": True, "furnace": False}
    assert allowed(held, up) == ["collect_stone", *survival]
    gone = {"table": False, "furnace": False}
    assert allowed(held, gone) == ["collect_wood", *survival], "wood for a new table first"
    assert allowed({**held, "wood": 2 + table}, gone) == ["place_table", *survival]
    # once every tool made at the stations is held, lost ones stay lost: on to the diamond
    tools = {t: 1 for t in ("wood_pickaxe", "stone_pickaxe", "iron_pickaxe", "wood_sword",
                            "stone_sword")}  # fmt: skip
    late = {**done, "place_furnace": 1, "collect_coal": 1, "collect_iron": 1,
            "make_stone_pickaxe": 1, "make_iron_pickaxe": 1}  # fmt: skip
    assert allowed(tools, gone, late) == ["collect_diamond", *survival]
    # a furnace lost before the iron pickaxe is placed again (its stone first)
    early = {k: v for k, v in tools.items() if k != "iron_pickaxe"}
    inv = {**early, "wood": 1, "coal": 1, "iron": 1}
    assert allowed(inv, {"table": True, "furnace": False}, late) == ["collect_stone", *survival]
    # the same state without `standing` (a caller that does not know) trusts the count
    unknown = rule(held, done, lambda n: False)
    assert unknown.tolist() == rule(held, done, lambda n: False, up).tolist()


def test_the_training_env_masks_by_the_stations_that_still_stand():
    names = ["collect_wood", "place_table", "make_wood_pickaxe"]
    coded = [write_action(a, 80) for a in names]
    cfg = RLConfig(macro_actions=names, reward_terms=[], sample_budget=1, primitive_actions=[])
    env = make_env(get_task("make_wood_pickaxe"), cfg, coded, 0, 4, 80, masking="plan")
    try:
        crafter = env.unwrapped
        x, y = (int(v) for v in crafter.player.pos)
        crafter.player.inventory["wood"] = 1
        crafter.player.achievements["place_table"] = 1
        crafter.world[(x + 1, y)] = "table"
        env._info = crafter.refresh()
        assert env.action_masks().tolist() == [False, False, True]
        crafter.world[(x + 1, y)] = "path"  # an arrow hit it
        assert env.action_masks().tolist() == [True, False, False], "wood for a new one"
    finally:
        env.close()


def test_survival_actions_open_only_when_their_vital_is_needed():
    for ordered in (False, True):
        rule = ActionMask("collect_diamond", DIAMOND, [], ordered=ordered)
        full = {"health": 9, "food": 9, "drink": 9, "energy": 9}
        assert _allowed(rule, DIAMOND, full, {}) == ["collect_wood"]
        # at 2: where the skills' own keep_alive would act anyway (a call above it is a trip
        # for one sip that the skills in plan order lose to)
        assert _allowed(rule, DIAMOND, full | {"drink": 3}, {}) == ["collect_wood"]
        assert _allowed(rule, DIAMOND, full | {"drink": 2}, {}) == ["collect_wood", "collect_drink"]
        assert _allowed(rule, DIAMOND, full | {"food": 3}, {}) == ["collect_wood"]
        assert _allowed(rule, DIAMOND, full | {"food": 2}, {}) == ["collect_wood", "eat_cow"]
        assert _allowed(rule, DIAMOND, full | {"energy": 3}, {}) == ["collect_wood"]
        assert _allowed(rule, DIAMOND, full | {"energy": 2}, {}) == ["collect_wood", "wake_up"]
    # the task itself is never held back by its vital
    for task in ("collect_drink", "eat_cow", "wake_up"):
        rule = ActionMask(task, [task], ["noop"], ordered=True)
        assert _allowed(rule, [task], {"food": 9, "drink": 9, "energy": 9}, {}) == [task]


def test_masking_switches_read_from_params():
    from rlgpt.config import TrainParams

    assert TrainParams().action_masking == "plan" and TrainParams().masked
    assert TrainParams(action_masking=False).action_masking == "off"
    assert TrainParams(action_masking=True).action_masking == "recipes"
    assert TrainParams(action_masking="plan").masked


def test_a_state_met_again_gets_the_same_mask_from_the_memo_and_a_copy_of_it():
    rule = ActionMask("collect_diamond", DIAMOND, ["noop"])
    inv, placed = {"wood": 3, "drink": 9, "food": 9, "energy": 9}, {"place_table": 1}
    first = rule(inv, placed, lambda n: False)
    first[:] = False  # a caller that writes to its mask writes to its own copy
    again = rule(dict(inv), dict(placed), lambda n: False)
    assert again.any() and np.array_equal(again, rule._mask(inv, placed, lambda n: False, None))
    # every input is part of the key: a disabled action or one more wood changes the mask
    off = rule(inv, placed, lambda n: n == "make_wood_pickaxe")
    assert not off[rule.n_prim + DIAMOND.index("make_wood_pickaxe")]
    assert again[rule.n_prim + DIAMOND.index("make_wood_pickaxe")]
    assert "place_table" in _allowed(rule, DIAMOND, {"wood": 3}, {})
    assert "place_table" not in _allowed(rule, DIAMOND, {"wood": 3}, {"place_table": 1})
    # a station an arrow removed brings its step back (standing is part of the key too)
    gone = rule({"wood": 3}, {"place_table": 1}, lambda n: False, {"table": False})
    assert gone[rule.n_prim + DIAMOND.index("place_table")]


def test_a_learned_action_makes_nothing_but_its_effect():
    """In a learned action's own space a crafting or placing primitive other than its effect's
    is hidden (what it makes besides spends what the task's plan needs), but for placing a
    station its effect needs, while the player has what that uses and keeps what the effect
    needs; moving, interacting, sleeping when tired and its own primitive stay free. Outside
    learned spaces primitives are free."""
    from rlgpt.worlds.crafter.recipes import actions

    prims = actions()
    rule = ActionMask("make_stone_pickaxe", [], prims, learned=True)
    free = ActionMask("make_stone_pickaxe", [], prims)

    def allowed(r: ActionMask, **inv: int) -> set[str]:
        mask = r(inv, {}, lambda _: False)
        return {p for p, ok in zip(prims, mask, strict=True) if ok}

    just = allowed(rule, wood=1, stone=1, sapling=1, energy=9)
    for spends in ("make_wood_pickaxe", "place_table", "place_stone", "make_stone_sword"):
        assert spends not in just, spends
    assert {"make_stone_pickaxe", "do", "noop", "move_left"} <= just
    assert "place_plant" not in just  # a sapling to spare, but no step of its effect
    assert "sleep" not in just and "sleep" in allowed(rule, wood=1, stone=1, energy=2)  # tired
    assert "sleep" in allowed(ActionMask("wake_up", [], prims, learned=True), energy=9)
    more = allowed(rule, wood=4, stone=3, iron=1, coal=1)
    assert "place_table" in more  # its own station, with wood to spare
    for other in ("make_wood_pickaxe", "place_stone", "make_iron_pickaxe", "place_furnace"):
        assert other not in more, other  # affordable, but nothing its effect needs
    wood = allowed(ActionMask("collect_wood", [], prims, learned=True), wood=5, stone=5)
    assert not {p for p in wood if p.startswith(("make_", "place_"))}  # no swords of the wood
    assert "collect_wood" not in prims and "do" in wood
    iron = allowed(ActionMask("make_iron_pickaxe", [], prims, learned=True),
                   wood=3, stone=4, coal=1, iron=1)  # fmt: skip
    assert {"place_table", "place_furnace", "make_iron_pickaxe"} <= iron
    assert allowed(free, wood=1, stone=1) == set(prims)
