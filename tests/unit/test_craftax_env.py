"""rlgpt.worlds.craftax: full Craftax's own game behind the World seam; achievement counts;
a view that knows the floor, the ladders and the mobs by kind; validation states staged on
real Craftax states; the offline author's actions judged in the real sandbox."""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Generator
from typing import Any

import numpy as np
import pytest
from stable_baselines3.common.env_checker import check_env

pytest.importorskip("craftax")

import jax  # noqa: E402
from craftax.craftax.envs.craftax_symbolic_env import CraftaxSymbolicEnvNoAutoReset  # noqa: E402

from rlgpt.config import SandboxParams  # noqa: E402
from rlgpt.messages import CodedAction, Scenario  # noqa: E402
from rlgpt.validation.validate import validate_action  # noqa: E402
from rlgpt.worlds import get_world  # noqa: E402
from rlgpt.worlds.craftax import facts as F  # noqa: E402
from rlgpt.worlds.craftax import game as G  # noqa: E402
from rlgpt.worlds.craftax.env import CraftaxEnv  # noqa: E402
from rlgpt.worlds.craftax.stage import Board  # noqa: E402
from tests.support.world import one_at_a_time  # noqa: E402

R = 4
WORLD = get_world("craftax")
A = {a: i for i, a in enumerate(WORLD.primitives())}
SKILLS = WORLD.skills()
API = importlib.import_module(SKILLS.api)


@pytest.fixture(scope="module")
def env() -> Generator[CraftaxEnv, None, None]:
    e = WORLD.make_env(WORLD.task("collect_diamond"), view_radius=R, end_on_success=False)
    yield e  # type: ignore[misc]
    e.close()


def _specs(ach: str) -> list[Scenario]:
    return WORLD.scenarios(ach, count=2, seed_base=10_000, budget=80, radius=R, unmet_steps=8,
                           unknown_steps=50)  # fmt: skip


def _view(env: CraftaxEnv, info: dict[str, Any]) -> Any:
    view = API.ObsView(**SKILLS.view)
    view.update(env.view_state(info, start=True))
    return view


def _drive(env: CraftaxEnv, view: Any, gen: Generator[str, None, Any], limit: int = 200) -> list:
    """Step `env` with what a coded action yields (in process, as the runtime does; a plan
    one step at a time)."""
    taken: list[str] = []
    for act in one_at_a_time(gen):
        taken.append(act)
        *_, info = env.step(A[act])
        view.update(env.view_state(info))
        assert len(taken) < limit, taken[-10:]
    return taken


# -- the env ------------------------------------------------------------------------------
def test_info_contract_observation_and_check_env(env):
    obs, info = env.reset(seed=3)
    assert {"inventory", "achievements", "player_pos", "facing", "success"} <= set(info)
    assert info["floor"] == 0 and info["success"] is False
    assert list(info["inventory"]) == list(F.items()) and len(info["achievements"]) == 67
    assert env.action_space.n == 43 and len(WORLD.primitives()) == 43
    assert {"descend", "ascend", "place_torch", "cast_fireball"} <= set(WORLD.primitives())
    assert info["inventory"]["health"] == 9 and info["inventory"]["wood"] == 0
    assert env.observation_space.contains(obs)
    window = env.local_window()
    assert window.shape == (2 * R + 1, 2 * R + 1) and (window == window[R, R]).sum() == 1
    with pytest.raises(ValueError, match="symbolic"):
        CraftaxEnv(WORLD.task("collect_wood"), "pixels")  # type: ignore[arg-type]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env, warn=True)
    assert [str(w.message) for w in caught if w.category is not ResourceWarning] == []


def test_steps_are_craftaxs_own_steps(env):
    """Step by step equal to craftax's symbolic env without auto-reset, from the same state and
    keys: every leaf of the state (floats to 1e-6), the reward and the end; and the
    achievement flags are exactly the positive counts, but for what was given when staging
    (craftax flags collect_wood while wood is held; rlgpt counts a rise of wood)."""
    ref = CraftaxSymbolicEnvNoAutoReset()
    params = ref.default_params
    ref_step = jax.jit(ref.step_env)
    _arrange(env, 4, {"wood": 5, "stone": 3, "sapling": 1, "food": 1, "drink": 1})
    board = Board(env.state)  # something to fight, to eat and to lose health to
    x, y = board.player
    board.add_mob("zombie", (x + 2, y))
    board.add_mob("cow", (x - 2, y))
    env.state = board.state()
    env.refresh()
    state, key = env.state, env._key
    rng = np.random.default_rng(1)
    healths = set()
    given = np.isin(F.achievements(), ["collect_wood", "collect_stone", "collect_sapling"])
    for a in rng.integers(0, 43, size=150):
        key, sub = jax.random.split(key)
        _, state, reward, done, _ = ref_step(sub, state, int(a), params)
        _, ours, term, _, info = env.step(int(a))
        mine, theirs = G.fetch(env.state), G.fetch(state)
        for leaf_a, leaf_b in zip(jax.tree.leaves(mine), jax.tree.leaves(theirs), strict=True):
            if np.issubdtype(np.asarray(leaf_a).dtype, np.floating):
                np.testing.assert_allclose(leaf_a, leaf_b, atol=1e-6)
            else:
                np.testing.assert_array_equal(leaf_a, leaf_b)
        counts = np.array(list(info["achievements"].values()))
        np.testing.assert_array_equal(theirs.achievements, (counts > 0) | given)
        assert ours == pytest.approx(float(reward), abs=1e-5) and term == bool(done)
        healths.add(info["inventory"]["health"])
        if term:
            break
    assert len(healths) > 1 and sum(info["achievements"].values()) >= 1, "the run did things"


def _arrange(env: CraftaxEnv, seed: int, items: dict[str, int]) -> dict[str, Any]:
    """Reset to `seed`; grass round the player, no mobs near, `items` given."""
    env.reset(seed=seed)
    board = Board(env.state)
    x, y = board.player
    board.remove_mobs(lambda _, xy: abs(xy[0] - x) + abs(xy[1] - y) > 12)
    for dx in range(-2, 3):
        for dy in range(-2, 3):
            if (dx, dy) != (0, 0):
                board.clear((x + dx, y + dy), "grass")
    board.give(items)
    env.state = board.state()
    return env.refresh()


def test_counts_count_what_craftax_flags_once(env):
    _arrange(env, 5, {"wood": 9})
    for _ in range(2):  # two tables, two pickaxes: craftax's flags say 1 each
        env.step(A["place_table"])
        *_, info = env.step(A["make_wood_pickaxe"])
        env.step(A["move_right"])
        env.step(A["move_right"])
    assert info["achievements"]["place_table"] == 2
    assert info["achievements"]["make_wood_pickaxe"] == 1, "the pickaxe level rose once"
    flags = G.fetch(env.state).achievements
    assert flags[F.achievements().index("place_table")]
    assert info["inventory"]["wood_pickaxe"] == 1 and info["inventory"]["wood"] == 9 - 2 * 2 - 1


def test_the_packed_state_is_craftaxs_state_leaf_for_leaf_and_old_snapshots_still_load(env):
    """Between calls the state lives packed (one buffer per dtype, game.py); unpacked on the
    device or on the host it is craftax's EnvState exactly, packing it back changes nothing,
    and a snapshot that holds the state as a tree (taken before packing) restores and goes on
    step for step as the packed one."""
    import pickle

    env.reset(seed=11)
    for a in (A["move_left"], A["do"], A["move_up"], A["do"]):
        env.step(a)
    tree, host = G.fetch(env.state), env.host_state()
    assert len(G.layout().dtypes) <= 4 < len(jax.tree.leaves(tree)) // 8  # buffers, not leaves
    for a, b in zip(jax.tree.leaves(tree), jax.tree.leaves(host), strict=True):
        assert np.asarray(a).dtype == np.asarray(b).dtype
        np.testing.assert_array_equal(a, b)
    again = G.fetch(G.layout().as_state(G.layout().as_packed(tree)))
    for a, b in zip(jax.tree.leaves(tree), jax.tree.leaves(again), strict=True):
        np.testing.assert_array_equal(a, b)
    packed_blob = env.snapshot()
    fields = list(pickle.loads(packed_blob))
    fields[0] = env.state  # the state as a tree, as snapshots held it before
    old_blob = pickle.dumps(tuple(fields))
    runs = []
    for blob in (packed_blob, old_blob):
        env.restore(blob)
        steps = [env.step(int(a)) for a in np.random.default_rng(3).integers(0, 43, size=40)]
        runs.append([(r, t, i["player_pos"], tuple(i["inventory"].values())) for _, r, t, _, i
                     in steps])  # fmt: skip
    assert runs[0] == runs[1]


def test_an_episode_replays_from_its_seed(env):
    def play(seed: int) -> list[Any]:
        out: list[Any] = [env.reset(seed=seed)[0]]
        for a in np.random.default_rng(seed).integers(0, 43, size=60):
            obs, reward, term, _, info = env.step(int(a))
            out += [obs, reward, info["player_pos"], tuple(info["inventory"].values())]
        return out

    first, again = play(9), play(9)
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert not np.array_equal(first[0], play(10)[0]), "another seed, another world"


# -- floors, ladders, mobs: the view --------------------------------------------------------
def test_descending_a_staged_ladder_changes_floor_and_the_view_follows(env):
    spec = next(s for s in _specs("enter_dungeon") if s.name == "met-1")
    info = WORLD.stage(env, spec)
    view = _view(env, info)
    assert view.floor == 0 and view.floor_name == "overworld" and view.cleared
    assert view.at(*spec.target_at) == "ladder_down" and view.ladder("down") == spec.target_at
    assert view.remembered("tree") or view.remembered("grass")
    taken = _drive(env, view, API.descend(view))
    assert taken[-1] == "descend" and env.last_info["floor"] == 1
    assert env.last_info["achievements"]["enter_dungeon"] == 1
    assert view.floor == 1 and view.floor_name == "dungeon" and not view.cleared
    assert view.standing_on() == "ladder_up" and view.ladder("up") == (0, 0)
    assert view.remembered("tree") == [], "the memory is the new floor's"
    for _ in range(3):  # counted once per arrival: up and down again counts again
        env.step(A["noop"])
    env.step(A["ascend"])
    *_, info = env.step(A["descend"])
    assert info["floor"] == 1 and info["achievements"]["enter_dungeon"] == 2


@pytest.mark.parametrize(("ach", "kind", "floor"), [
    ("defeat_gnome_archer", "ranged", "gnomish_mines"), ("defeat_zombie", "melee", "overworld"),
    ("eat_snail", "passive", "dungeon"),
])  # fmt: skip
def test_the_view_knows_mobs_by_kind_on_their_floor(env, ach, kind, floor):
    spec = _specs(ach)[0]
    info = WORLD.stage(env, spec)
    view = _view(env, info)
    assert view.floor_name == floor and info["floor"] == F.floors().index(floor)
    dx, dy = spec.target_at
    assert (dx, dy, spec.target) in view.mobs(kind) and view.kind_of(spec.target) == kind
    others = {"melee", "ranged", "passive"} - {kind}
    assert all((dx, dy, spec.target) not in view.mobs(k) for k in others)
    if floor != "overworld":
        assert view.lit(dx, dy) and view.ladder("up") == (0, 0), "arrived by its ladder up"


# -- validation states and the sandbox --------------------------------------------------------
def test_a_met_scenario_takes_effect_and_an_unmet_one_does_not(env):
    specs = _specs("make_wood_pickaxe")
    unmet = next(s for s in specs if s.missing.startswith("wood"))
    for spec in (specs[0], unmet):
        WORLD.stage(env, spec)
        assert spec.stations["table"] == (3, 0) and spec.facing == (0, 1)
        for a in ("move_right", "move_right", "make_wood_pickaxe"):
            *_, info = env.step(A[a])
        assert info["achievements"]["make_wood_pickaxe"] == (spec.precondition == "met")
    by_name = {s.name: s for s in _specs("enter_dungeon")}
    assert by_name["unmet-1"].floor == "dungeon" and "floor" in by_name["unmet-1"].missing
    info = WORLD.stage(env, by_name["unmet-1"])
    view = _view(env, info)
    assert view.floor_name == "dungeon" and view.standing_on() == "ladder_up"
    env.step(A["descend"])  # the dungeon's ladder down is elsewhere, and shut
    assert env.last_info["floor"] == 1 and env.last_info["achievements"]["enter_dungeon"] == 0


def test_a_closed_ladder_state_opens_at_one_kill_with_the_floors_above_cleared(env):
    spec = next(s for s in _specs("enter_gnomish_mines") if s.state == "closed_ladder")
    assert spec.floor == "dungeon" and spec.effect == "optional" and spec.max_steps <= 200
    ((fighter, at),) = spec.hostiles.items()
    assert fighter == "orc_soldier" and any(k.endswith("_sword") for k in spec.inventory)
    info = WORLD.stage(env, spec)
    view = _view(env, info)
    killed = np.asarray(env.state.monsters_killed)
    assert killed[0] >= F.KILLS_TO_OPEN, "the overworld above: cleared on the way down"
    assert killed[1] == F.KILLS_TO_OPEN - 1 and not view.cleared, "one kill short"
    assert view.at(*spec.target_at) == "ladder_down_blocked" and (*at, fighter) in view.mobs()
    # the met states of a floor below the dungeon: every floor above cleared, its own open
    deeper = next(s for s in _specs("enter_sewers") if s.name == "met-1")
    WORLD.stage(env, deeper)
    killed = np.asarray(env.state.monsters_killed)
    assert (killed[:3] >= F.KILLS_TO_OPEN).all()


# defeat_orc_solider: its kill falls inside keep_alive (resting upstairs when hurt), which
# must end there; defeat_necromancer wins the game, which ends the episode and is no death
@pytest.mark.parametrize("ach", ["make_wood_pickaxe", "make_stone_pickaxe", "enter_dungeon",
                                 "collect_diamond", "defeat_orc_solider",
                                 "defeat_necromancer"])  # fmt: skip
def test_the_authors_reference_action_validates_in_the_sandbox(ach):
    action = WORLD.author().write_action(ach, 80)
    verdict = validate_action(action, sandbox=SandboxParams(), world="craftax")
    assert verdict.ok, verdict.feedback()
    met = [o for o in verdict.scenarios if o.scenario.startswith("met")]
    unmet = [o for o in verdict.scenarios if o.scenario.startswith("unmet")]
    assert len(met) == 3 and all(o.effect for o in met)
    assert unmet and all(o.ok and o.steps <= 8 for o in unmet)


def _coded(name: str, source: str) -> CodedAction:
    return CodedAction(name=name, docstring="", source=source, step_budget=80)


def test_buggy_actions_fail_with_what_went_wrong():
    no_walk = _coded(
        "make_wood_pickaxe",
        "def make_wood_pickaxe(view):\n"
        "    if view.inventory['wood'] >= 1:\n        yield 'make_wood_pickaxe'\n",
    )
    verdict = validate_action(no_walk, sandbox=SandboxParams(), world="craftax")
    assert not verdict.ok and verdict.error_kind == "no_effect"
    assert "0 of 3 scenarios" in verdict.message and "table at (3, 0)" in verdict.trace
    lingers = _coded("enter_dungeon", "def enter_dungeon(view):\n"
                     "    yield from stand_on(view, 'ladder_down')\n    yield 'descend'\n"
                     "    while True:\n        yield 'noop'\n")  # fmt: skip
    verdict = validate_action(lingers, sandbox=SandboxParams(), world="craftax")
    assert not verdict.ok and verdict.error_kind == "no_end"
    assert "reached 'enter_dungeon'" in verdict.message
    typo = _coded(
        "make_wood_pickaxe",
        "def make_wood_pickaxe(view):\n"
        "    if view.inventory['woods'] < 1:\n        return\n    yield 'noop'\n",
    )
    verdict = validate_action(typo, sandbox=SandboxParams(), world="craftax")
    assert not verdict.ok and verdict.error_kind == "api_misuse"
    assert "'woods' is not an item (did you mean 'wood'?)" in verdict.message


# -- plans across floors --------------------------------------------------------------------
def test_plans_reach_across_floors():
    steps = [a for a, _ in WORLD.plan(WORLD.task("enter_gnomish_mines"))]
    assert steps[-1] == "enter_gnomish_mines"
    order = [steps.index(a) for a in ("make_wood_pickaxe", "enter_dungeon", "find_bow",
                                      "enter_gnomish_mines")]  # fmt: skip
    assert order == sorted(order), steps
    diamond = dict(WORLD.plan(WORLD.task("collect_diamond")))
    assert "make_iron_pickaxe" in diamond and "enter_dungeon" not in diamond


def test_a_deep_state_holds_the_pickaxes_its_way_down_left():
    """Pickaxes are never used up: below the overworld the staged player holds the best one
    the plan makes on its way, or the one that mined what it holds; a withheld one stays
    withheld, and the overworld's states give exactly what the requirement names."""
    from rlgpt.worlds.craftax.scenarios import plan_scenarios

    def states(ach: str) -> dict[str, dict[str, int]]:
        return {
            s.name: s.inventory
            for s in plan_scenarios(
                ach, count=1, seed_base=0, budget=9, radius=4, unmet_steps=8, unknown_steps=8
            )
        }

    fire = states("defeat_fire_elemental")  # a diamond sword: diamonds mined with iron
    assert fire["met-1"]["iron_pickaxe"] == 1 and fire["unseen"]["iron_pickaxe"] == 1
    assert states("open_chest")["met-1"]["stone_pickaxe"] == 1  # the gear made before the dungeon
    ruby = states("collect_ruby")
    assert ruby["met-1"]["diamond_pickaxe"] == 1
    assert ruby["unmet-1"]["diamond_pickaxe"] == 0 and ruby["unmet-1"]["iron_pickaxe"] == 1
    assert states("make_iron_pickaxe")["met-1"] == {"wood": 1, "stone": 1, "iron": 1, "coal": 1}


def test_a_survival_skill_stops_at_a_kill_and_never_answers_true_without_a_step():
    from rlgpt.worlds.craftax.skills.navigate import until_defeat

    class Seen:  # what until_defeat reads of a view: the achievement counters
        achievements = {"defeat_zombie": 0, "collect_drink": 0}

    view = Seen()

    def idle():  # a skill that says it acted but took no step: a caller's loop would spin
        return True
        yield "noop"  # noqa: B901 - makes it a generator

    gen = until_defeat(view, idle())
    with pytest.raises(StopIteration) as done:
        next(gen)
    assert done.value.value is False
    closed = []

    def fights():
        try:
            for _ in range(5):
                yield "do"
        finally:
            closed.append(True)

    taken, gen = [], until_defeat(view, fights())
    try:
        while True:
            taken.append(next(gen))
            view.achievements["collect_drink"] += 1  # no defeat: goes on
            if len(taken) == 2:  # the runtime steps the game: the second blow kills
                view.achievements["defeat_zombie"] += 1
    except StopIteration as stop:
        assert stop.value is True  # stopped right after the kill, the rest of the fight unrun
    assert taken == ["do", "do"] and closed == [True]


@pytest.mark.parametrize("ach", ["collect_stone", "enter_sewers"])
def test_the_views_grid_is_remembered_at_cell_by_cell(env, ach):
    """`ObsView._grid` (the explore frontier's one-pass scan) answers what `remembered_at`
    answers, on the overworld and below it, at the map's edge, before and after walking."""
    spec = next(s for s in _specs(ach) if s.state == "remembered")
    info = WORLD.stage(env, spec)
    view = _view(env, info)
    for move in ["move_left"] * 6 + ["move_up"] * 30:
        grid = view._grid(25)
        assert all(grid[c] == view.remembered_at(*c) for c in grid), move
        _, _, _, _, info = env.step(A[move])
        view.update(env.view_state(info))
