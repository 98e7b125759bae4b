"""rlgpt.worlds.craftax_classic: craftax's own game behind CrafterEnv's members, in crafter's
vocabulary; achievement counts; replay per seed; scenario staging; recipe facts on real play."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest
from stable_baselines3.common.env_checker import check_env

pytest.importorskip("craftax")

import jax  # noqa: E402
from craftax.craftax_classic.constants import Achievement, BlockType  # noqa: E402
from craftax.craftax_classic.envs.craftax_symbolic_env import (  # noqa: E402
    CraftaxClassicSymbolicEnvNoAutoReset,
)

from rlgpt.errors import UserError  # noqa: E402
from rlgpt.worlds.craftax_classic import facts  # noqa: E402
from rlgpt.worlds.craftax_classic import game as G  # noqa: E402
from rlgpt.worlds.craftax_classic.env import CraftaxClassicEnv  # noqa: E402
from rlgpt.worlds.craftax_classic.stage import Board, stage  # noqa: E402
from rlgpt.worlds.crafter.recipes import achievements, actions, game_data, semantic_names  # noqa: E402
from rlgpt.worlds.crafter.scenarios import plan_scenarios  # noqa: E402
from rlgpt.worlds.crafter.tasks import get_task  # noqa: E402
from tests.support.world import wrap  # noqa: E402

R = 4
A = {a: i for i, a in enumerate(actions())}
ITEMS = list(game_data()["items"])
ID = {n: i for i, n in enumerate(semantic_names())}
# The test's own reading of craftax's blocks (independent of game.block_names).
BLOCK = {"GRASS": "grass", "WATER": "water", "STONE": "stone", "TREE": "tree", "PATH": "path",
         "COAL": "coal", "IRON": "iron", "DIAMOND": "diamond", "CRAFTING_TABLE": "table",
         "FURNACE": "furnace", "SAND": "sand", "LAVA": "lava", "PLANT": "plant",
         "RIPE_PLANT": "plant"}  # fmt: skip


@pytest.fixture(scope="module")
def env() -> CraftaxClassicEnv:
    return CraftaxClassicEnv(get_task("collect_diamond"), view_radius=R, end_on_success=False)


def arrange(env: CraftaxClassicEnv, seed: int, edit, **vitals) -> dict:
    """Reset to `seed`, clear the 3x3 round the player to grass, apply `edit(board, (x, y))`."""
    env.reset(seed=seed)
    board = Board(env.state)
    px, py = board.player
    board.remove_mobs(lambda kind, xy: False)
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            if (dx, dy) != (0, 0):
                board.clear((px + dx, py + dy), "grass")
    board.inventory = dict.fromkeys(board.inventory, 0)
    board.vitals.update(vitals)
    edit(board, (px, py))
    env.state = board.state()
    return env.refresh()


def expected_window(state, r: int) -> np.ndarray:
    """The window from the raw craftax state: map[row, col], crafter's x = col, y = row."""
    s = jax.device_get(state)
    row, col = (int(v) for v in s.player_position)
    out = np.zeros((2 * r + 1, 2 * r + 1), np.uint8)
    for dx in range(-r, r + 1):
        for dy in range(-r, r + 1):
            y, x = row + dy, col + dx
            if 0 <= y < s.map.shape[0] and 0 <= x < s.map.shape[1]:
                out[dx + r, dy + r] = ID[BLOCK[BlockType(int(s.map[y, x])).name]]
    for kind, name in (("arrows", "arrow"), ("cows", "cow"), ("zombies", "zombie"),
                       ("skeletons", "skeleton")):  # fmt: skip
        mobs = getattr(s, kind)
        for (y, x), alive in zip(mobs.position, mobs.mask, strict=True):
            if alive and abs(x - col) <= r and abs(y - row) <= r:
                out[x - col + r, y - row + r] = ID[name]
    out[r, r] = ID["player"]
    return out


# -- vocabulary, info, observation ------------------------------------------------------
def test_vocabulary_is_matched_by_name():
    assert list(G.action_map()) == list(range(17)), "craftax's action order is crafter's"
    assert sorted(a.name.lower() for a in Achievement) == sorted(achievements())
    names = G.block_names()
    crafter_materials = set(game_data()["materials"])
    assert crafter_materials <= set(names), "every crafter material has a craftax block"
    assert names[BlockType.CRAFTING_TABLE.value] == "table"
    assert names[BlockType.RIPE_PLANT.value] == names[BlockType.PLANT.value] == "plant"
    assert names[BlockType.OUT_OF_BOUNDS.value] == "none"
    assert G.facings() == {1: (-1, 0), 2: (1, 0), 3: (0, -1), 4: (0, 1)}


def test_info_contract_and_observation_layout(env):
    obs, info = env.reset(seed=3)
    assert set(info) == {"inventory", "achievements", "player_pos", "facing", "success"}
    assert list(info["inventory"]) == ITEMS and list(info["achievements"]) == achievements()
    assert all(type(v) is int for v in [*info["inventory"].values(),
                                        *info["achievements"].values()])  # fmt: skip
    assert info["player_pos"] == (32, 32) and info["facing"] == (0, -1), "craftax starts up"
    assert info["inventory"]["health"] == 9 and info["success"] is False
    assert env.action_space.n == 17 and env.area == (64, 64)
    side, n_ids = 2 * R + 1, len(semantic_names())
    assert obs.shape == (side * side * n_ids + len(ITEMS) * 9 + 4,), "CrafterEnv's layout"
    assert env.observation_space.contains(obs)
    ids = obs[: side * side * n_ids].reshape(side, side, n_ids)
    assert np.all(ids.sum(-1) == 1)
    np.testing.assert_array_equal(ids.argmax(-1), env.local_window())
    thermo = obs[side * side * n_ids : -4].reshape(len(ITEMS), 9)
    assert thermo[ITEMS.index("health")].sum() == 9 and thermo[ITEMS.index("wood")].sum() == 0
    assert obs[-4:].tolist() == [0, 0, 1, 0], "facing up in crafter's facing order"
    with pytest.raises(ValueError, match="symbolic"):
        CraftaxClassicEnv(get_task("collect_wood"), "image")  # type: ignore[arg-type]


def test_check_env_passes_without_warnings(env):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env, warn=True)
    assert [str(w.message) for w in caught if w.category is not ResourceWarning] == []


@pytest.mark.parametrize("where", [(32, 32), (0, 0), (63, 10), (5, 63), (63, 63), (2, 61)])
def test_window_matches_the_raw_state_at_the_edges(env, where):
    def edit(board, xy):
        board.player = where
        board.add_creature("cow", (min(63, where[0] + 1), where[1]))
        board.add_creature("zombie", (where[0], max(0, where[1] - 2)))

    arrange(env, 11, edit)
    assert env.last_info["player_pos"] == where
    np.testing.assert_array_equal(env.local_window(), expected_window(env.state, R))
    np.testing.assert_array_equal(env.local_window(2), expected_window(env.state, 2))
    x, y = where
    padded = np.pad(env.semantic(), R)
    np.testing.assert_array_equal(padded[x : x + 2 * R + 1, y : y + 2 * R + 1],
                                  env.local_window())  # fmt: skip


def test_moves_follow_crafters_axes(env):
    arrange(env, 2, lambda b, xy: None)
    x, y = env.last_info["player_pos"]
    for move, d in (("move_right", (1, 0)), ("move_down", (0, 1)), ("move_left", (-1, 0)),
                    ("move_up", (0, -1))):  # fmt: skip
        *_, info = env.step(A[move])
        assert info["facing"] == d and info["player_pos"] == (x + d[0], y + d[1])
        row, col = (int(v) for v in jax.device_get(env.state.player_position))
        assert (col, row) == info["player_pos"], "crafter x is craftax's column"
        x, y = info["player_pos"]


# -- counts, reward, replay ----------------------------------------------------------------
def test_counts_are_crafters_counters(env):
    def edit(board, xy):
        board.inventory["wood"] = 9
        board.clear((xy[0], xy[1] - 1), "tree")

    arrange(env, 5, edit)
    *_, info = env.step(A["do"])
    assert info["inventory"]["wood"] == 9, "capped, as crafter"
    assert info["achievements"]["collect_wood"] == 1, "counted at the cap, as crafter"
    for _ in range(2):  # two tables, two pickaxes: craftax's flag would say 1
        env.step(A["place_table"])
        *_, info = env.step(A["make_wood_pickaxe"])
        env.step(A["move_right"])
    assert info["achievements"]["place_table"] == 2
    assert info["achievements"]["make_wood_pickaxe"] == 2
    assert info["inventory"]["wood"] == 9 - 2 * 2 - 2 and info["inventory"]["wood_pickaxe"] == 2


def test_eating_a_cow_and_waking_up_count(env):
    def edit(board, xy):
        board.add_creature("cow", (xy[0], xy[1] - 1))
        board.mobs["cows"]["health"][:] = 1

    arrange(env, 6, edit, food=3)
    *_, info = env.step(A["do"])
    assert info["achievements"]["eat_cow"] == 1 and info["inventory"]["food"] == 9
    arrange(env, 6, lambda b, xy: None, energy=8)
    env.step(A["sleep"])
    for _ in range(60):
        *_, info = env.step(A["noop"])
        if info["achievements"]["wake_up"]:
            break
    assert info["achievements"]["wake_up"] == 1 and info["inventory"]["energy"] == 9


def test_a_zombie_wakes_the_player_and_that_counts_as_wake_up(env):
    """A difference from crafter (where being hurt wakes the player without the achievement)."""

    def edit(board, xy):
        board.add_creature("zombie", (xy[0] + 1, xy[1]))
        board.sleeping = True

    arrange(env, 8, edit, energy=3)
    *_, info = env.step(A["noop"])
    assert info["inventory"]["health"] == 9 - 7, "a sleeper takes 7"
    assert info["achievements"]["wake_up"] == 1 and not env.frame.sleeping


def test_counts_follow_inventory_over_random_play(env):
    env.reset(seed=21)
    rng = np.random.default_rng(0)
    collect = {f"collect_{i}": i for i in ("wood", "stone", "coal", "sapling", "drink")}
    seen = dict.fromkeys(achievements(), 0)
    for a in rng.integers(0, 17, size=1500):
        before = env.last_info
        *_, term, _, info = env.step(int(a))
        gained = {k: info["inventory"][k] - before["inventory"][k] for k in ITEMS}
        rose = {k for k, v in info["achievements"].items() if v > before["achievements"][k]}
        for ach in rose:
            seen[ach] += 1
        for ach, item in collect.items():
            if item != "drink" and before["inventory"][item] < 9:
                assert (ach in rose) == (gained[item] > 0), (ach, gained)
        for name in ("wood_pickaxe", "wood_sword", "stone_pickaxe", "stone_sword"):
            assert (f"make_{name}" in rose) == (gained[name] > 0)
        if "place_table" in rose:
            assert actions()[a] == "place_table" and gained["wood"] == -2
        if term:
            env.reset()
    assert seen["collect_wood"] > 0 and sum(seen.values()) > 5


def test_steps_are_craftaxs_own_steps(env):
    """Step by step equal to craftax's symbolic env (no auto-reset) from the same keys (floats
    to an ulp); the achievement flags are exactly the counts that are positive."""
    ref = CraftaxClassicSymbolicEnvNoAutoReset()
    params = ref.default_params
    env.reset(seed=4)
    key = jax.random.fold_in(jax.random.PRNGKey(4), 0)
    world_key, run_key = jax.random.split(key)
    _, state = ref.reset(world_key, params)
    order = G.achievement_map()
    rng = np.random.default_rng(1)
    for a in rng.integers(0, 17, size=200):
        run_key, sub = jax.random.split(run_key)
        _, state, reward, done, _ = ref.step(sub, state, int(a), params)
        _, ours, term, _, info = env.step(int(a))
        mine, theirs = jax.device_get(env.state), jax.device_get(state)
        for leaf_a, leaf_b in zip(jax.tree.leaves(mine.replace(achievements=None)),
                                  jax.tree.leaves(theirs.replace(achievements=None)),
                                  strict=True):  # fmt: skip
            if np.issubdtype(np.asarray(leaf_a).dtype, np.floating):  # XLA fuses differently:
                np.testing.assert_allclose(leaf_a, leaf_b, atol=1e-6)  # daylight, to 1e-7
            else:
                np.testing.assert_array_equal(leaf_a, leaf_b)
        counts = np.array(list(info["achievements"].values()))
        np.testing.assert_array_equal(theirs.achievements[order], counts > 0)
        assert ours == pytest.approx(float(reward)) and term == bool(done)
        if term:
            break


def test_an_episode_replays_from_its_seed_and_actions(env):
    def play(seed: int) -> list:
        out = [env.reset(seed=seed)[0]]
        for a in np.random.default_rng(seed).integers(0, 17, size=150):
            obs, reward, term, trunc, info = env.step(int(a))
            out += [obs, reward, term, info["player_pos"], tuple(info["inventory"].values())]
            if term:
                break
        return out

    first, again = play(9), play(9)
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert not np.array_equal(first[0], play(10)[0]), "another seed, another world"
    env.reset(seed=9)
    second = env.reset()[0]
    env.reset(seed=9)
    assert np.array_equal(env.reset()[0], second), "the next episode of a seed is fixed too"
    assert not np.array_equal(second, first[0])


# -- memory, view, runtime -----------------------------------------------------------------
def test_the_packed_state_and_a_snapshot_from_before_packing(env):
    """The state lives packed between calls (packed.py); unpacked, on the device or the host,
    it is the same EnvState, and a snapshot that holds it as a tree restores and goes on
    step for step as a packed one."""
    import pickle

    env.reset(seed=21)
    for a in ("move_left", "do", "move_up", "do"):
        env.step(A[a])
    tree = jax.device_get(env.state)
    assert len(G.layout().dtypes) <= 4 < len(jax.tree.leaves(tree)) // 8  # buffers, not leaves
    for a, b in zip(jax.tree.leaves(tree), jax.tree.leaves(env.host_state()), strict=True):
        assert np.asarray(a).dtype == np.asarray(b).dtype
        np.testing.assert_array_equal(a, b)
    fields = list(pickle.loads(env.snapshot()))
    old = pickle.dumps(tuple([env.state, *fields[1:]]))  # the state as a tree, as before
    runs = []
    for blob in (env.snapshot(), old):
        env.restore(blob)
        steps = [env.step(int(a)) for a in np.random.default_rng(5).integers(0, 17, size=40)]
        runs.append([(r, i["player_pos"], tuple(i["inventory"].values())) for _, r, _, _, i
                     in steps])  # fmt: skip
    assert runs[0] == runs[1]


def test_view_state_memory_and_the_lava_guard(env):
    info = arrange(env, 12, lambda b, xy: b.clear((xy[0] + 1, xy[1]), "lava"))
    state = env.view_state(info, start=True)
    assert state["area"] == (64, 64) and 0.0 <= state["daylight"] <= 1.0
    memory = np.frombuffer(bytes.fromhex(state["memory"]), np.uint8).reshape(64, 64)
    x, y = info["player_pos"]
    assert memory[x + 1, y] == ID["lava"] and memory[x, y] == ID["grass"], "no creatures"
    assert memory[x + R + 1, y] == 0 and memory[x - R, y] != 0, "only what was seen"

    class Runner:
        def start(self, name, state):
            return "move_right"

        def next(self, state):
            return None

        def stop(self):
            pass

        def close(self):
            pass

    wrapper = wrap(env, ["walk"], Runner())
    wrapper.reset(seed=12)
    arrange(env, 12, lambda b, xy: b.clear((xy[0] + 1, xy[1]), "lava"))
    assert env.material_at((x + 1, y)) == "lava" and env.unsafe_move("move_right") == "lava"
    *_, term, _, out = wrapper.step(wrapper.index_of("walk"))
    assert not term and out["player_pos"] == (x, y) and "lava" in wrapper.faults["walk"]


# -- staging -----------------------------------------------------------------------------
def _plan(ach: str):
    return plan_scenarios(ach, count=2, seed_base=10_000, budget=80, radius=R,
                          unmet_steps=8, unknown_steps=50)  # fmt: skip


@pytest.mark.parametrize("ach", ["make_wood_pickaxe", "make_iron_pickaxe", "eat_plant",
                                 "defeat_skeleton", "place_table", "collect_stone"])  # fmt: skip
def test_staging_lays_out_the_scenario(env, ach):
    for spec in _plan(ach):
        info = stage(env, spec)
        names = [[semantic_names()[i] for i in col] for col in env.local_window()]

        def name(d: tuple[int, int], names=names) -> str:
            return names[d[0] + R][d[1] + R]

        assert info["facing"] == tuple(spec.facing)
        assert {k: info["inventory"][k] for k in spec.inventory} == spec.inventory
        in_view = spec.memory == "view"  # a remembered target lies beyond the window
        for station, d in spec.stations.items():
            assert not in_view or name(d) == station
        if spec.target_at and in_view:
            assert name(spec.target_at) == spec.target
        if spec.front:
            assert name(spec.facing) == spec.front
        for hostile, d in spec.hostiles.items():
            assert name(d) == hostile
        for material, cells in spec.hazards.items():
            assert [name(d) for d in cells] == [material] * len(cells)
        s = jax.device_get(env.state)
        if spec.daylight is not None:
            assert abs(float(s.light_level) - spec.daylight) < 0.03
        hostile = ("zombies", "arrows") + (() if ach == "defeat_skeleton" else ("skeletons",))
        for kind in hostile:
            placed = int(kind == "zombies" and "zombie" in spec.hostiles)
            assert getattr(s, kind).mask.sum() == placed, "no hostile near the player unasked"
    step = G.game(R).step
    assert step._cache_size() <= 1, "a staged state steps without a recompile"  # type: ignore[attr-defined]


def test_a_met_scenario_takes_effect_and_an_unmet_one_does_not(env):
    for spec in _plan("make_wood_pickaxe")[:1] + [s for s in _plan("make_wood_pickaxe")
                                                  if s.name == "unmet-1"]:  # fmt: skip
        stage(env, spec)
        assert spec.stations["table"] == (3, 0)
        for a in ("move_right", "move_right", "make_wood_pickaxe"):
            *_, info = env.step(A[a])
        assert info["achievements"]["make_wood_pickaxe"] == (spec.precondition == "met")
    stage(env, _plan("eat_plant")[0])
    for a in ("move_right", "move_right", "do"):
        *_, info = env.step(A[a])
    assert info["achievements"]["eat_plant"] == 1, "the staged plant is ripe"


# -- recipe facts on the real game -------------------------------------------------------
def _trial(env, front: str, inv: dict, action: str, stations=()) -> tuple[dict, str]:
    def edit(board, xy):
        for station, dx in zip(stations, (-1, 1), strict=False):  # diagonals count as near
            board.clear((xy[0] + dx, xy[1] + 1), station)
        board.clear((xy[0], xy[1] - 1), front)
        for k, v in inv.items():
            (board.vitals if k in board.vitals else board.inventory)[k] = v

    before = arrange(env, 7, edit, drink=5)
    x, y = before["player_pos"]
    *_, info = env.step(A[action])
    delta = {k: info["inventory"][k] - before["inventory"][k] for k in ITEMS}
    return {k: v for k, v in delta.items() if v}, env.material_at((x, y - 1))


RECIPES = facts.game_data()


@pytest.mark.parametrize("material", [m for m in RECIPES["collect"] if m != "grass"])
def test_collect_recipes_hold(env, material):
    info = RECIPES["collect"][material]
    assert _trial(env, material, info["require"], "do") == (info["receive"], info["leaves"])
    for item, n in info["require"].items():
        assert _trial(env, material, {item: n - 1}, "do") == ({}, material)


@pytest.mark.parametrize("name", list(RECIPES["place"]))
def test_place_recipes_hold(env, name):
    info = RECIPES["place"][name]
    placed = "plant" if name == "plant" else name
    spent = {k: -v for k, v in info["uses"].items()}
    for where in ("grass", "sand", "path", "water", "lava", "tree"):
        effect = (spent, placed) if where in info["where"] else ({}, where)
        assert _trial(env, where, info["uses"], f"place_{name}") == effect, where
    for item, n in info["uses"].items():
        assert _trial(env, "grass", {**info["uses"], item: n - 1}, f"place_{name}") == (
            {}, "grass")  # fmt: skip


@pytest.mark.parametrize("name", list(RECIPES["make"]))
def test_make_recipes_hold(env, name):
    info = RECIPES["make"][name]
    effect = {**{k: -v for k, v in info["uses"].items()}, name: info["gives"]}
    assert _trial(env, "grass", info["uses"], f"make_{name}", info["nearby"])[0] == effect
    for item, n in info["uses"].items():
        short = {**info["uses"], item: n - 1}
        assert _trial(env, "grass", short, f"make_{name}", info["nearby"])[0] == {}
    assert _trial(env, "grass", info["uses"], f"make_{name}", info["nearby"][:-1])[0] == {}


def test_the_patch_still_differs_from_crafter():
    crafter = game_data()
    for section, entries in facts.PATCH.items():
        for name, fields in entries.items():
            for field, value in fields.items():
                assert crafter[section][name].get(field) != value, (section, name, field)
    assert len(facts.differences()) == 5


def test_saplings_come_from_grass_one_time_in_ten_and_ripen_in_600_steps(env):
    arrange(env, 13, lambda b, xy: None)
    got = 0
    for _ in range(300):
        *_, info = env.step(A["do"])
        got = info["achievements"]["collect_sapling"]
    assert 12 <= got <= 55, got  # binomial(300, 0.1): mean 30
    arrange(env, 13, lambda b, xy: b.inventory.update(sapling=1))
    *_, info = env.step(A["place_plant"])
    x, y = info["player_pos"]
    assert info["achievements"]["place_plant"] == 1 and env.material_at((x, y - 1)) == "plant"
    steps = 1
    while jax.device_get(env.state.map[y - 1, x]) != BlockType.RIPE_PLANT.value:
        env.step(A["noop"])
        steps += 1
        assert steps <= 700
    assert steps == 600, "craftax: ripe at 600 steps (crafter: after 300)"


def test_without_jax_the_import_is_a_one_line_user_error():
    code = ("import sys; sys.modules['jax'] = None\n"
            "try:\n    import rlgpt.worlds.craftax_classic.env\n"
            "except Exception as e:\n    print(type(e).__name__, e)")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()  # fmt: skip
    assert out.startswith(UserError.__name__) and "pip install -e '.[craftax]'" in out
    assert "\n" not in out
