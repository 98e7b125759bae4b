"""rlgpt.worlds.crafter.env.CrafterEnv: SB3-ready gymnasium env over crafter."""

from __future__ import annotations

import gc
import warnings

import numpy as np
import pytest
from stable_baselines3.common.env_checker import check_env

from rlgpt.messages import TaskSpec
from rlgpt.worlds.crafter.author import write_action
from rlgpt.worlds.crafter.env import CrafterEnv
from rlgpt.worlds.crafter.recipes import actions, game_data, semantic_id, semantic_names
from rlgpt.worlds.crafter.tasks import get_task
from tests.support.world import wrap


@pytest.mark.parametrize("kind", ["symbolic", "image"])
def test_check_env_passes_without_warnings(kind):
    env = CrafterEnv(get_task("collect_wood"), kind)
    gc.collect()  # an earlier test's unclosed file must not warn inside this check
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env, warn=True)
    assert [str(w.message) for w in caught if w.category is not ResourceWarning] == []


@pytest.mark.parametrize("kind", ["symbolic", "image"])
def test_observation_matches_space(kind):
    env = CrafterEnv(get_task("collect_wood"), kind)
    obs, info = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    obs, *_ = env.step(actions().index("move_left"))
    assert env.observation_space.contains(obs)
    if kind == "image":
        assert obs.shape == (64, 64, 3) and obs.any(), "the image is rendered"
    assert env.action_space.n == 17


def test_symbolic_observation_decodes_to_the_local_window():
    env = CrafterEnv(get_task("collect_wood"), "symbolic", view_radius=3)
    obs, info = env.reset(seed=5)
    side, n_ids = 7, len(semantic_names())
    window = obs[: side * side * n_ids].reshape(side, side, n_ids)
    assert np.all(window.sum(-1) == 1), "one-hot per cell"
    ids = window.argmax(-1)
    np.testing.assert_array_equal(ids, env.local_window())
    x, y = info["player_pos"]
    np.testing.assert_array_equal(ids, env.semantic()[x - 3 : x + 4, y - 3 : y + 4])
    assert ids[3, 3] == semantic_id("player")
    n_items = len(game_data()["items"])
    thermo = obs[side * side * n_ids : side * side * n_ids + n_items * 9].reshape(n_items, 9)
    health = list(game_data()["items"]).index("health")
    assert thermo[health].sum() == info["inventory"]["health"]
    wood = list(game_data()["items"]).index("wood")
    assert thermo[wood].sum() == 0
    facing = obs[-4:]
    assert facing.sum() == 1


def rollout(seed: int, action_seq: list[int]) -> tuple[list[np.ndarray], list[tuple]]:
    env = CrafterEnv(get_task("collect_diamond"), "symbolic", seed=seed)
    obs, info = env.reset(seed=seed)
    observations, rest = [obs], [(info["player_pos"],)]
    for a in action_seq:
        obs, reward, term, trunc, info = env.step(a)
        observations.append(obs)
        rest.append((reward, term, trunc, info["player_pos"], tuple(info["inventory"].items())))
        if term or trunc:
            break
    return observations, rest


def test_same_seed_same_trajectory():
    rng = np.random.default_rng(0)
    seq = [int(a) for a in rng.integers(0, 17, size=250)]
    obs_a, rest_a = rollout(11, seq)
    obs_b, rest_b = rollout(11, seq)
    assert len(obs_a) == len(obs_b) > 50
    for a, b in zip(obs_a, obs_b, strict=True):
        np.testing.assert_array_equal(a, b)
    assert rest_a == rest_b
    obs_c, _ = rollout(12, seq)
    assert not np.array_equal(obs_a[0], obs_c[0]), "another seed is another world"


def test_reset_with_seed_is_repeatable_on_one_env():
    env = CrafterEnv(get_task("collect_wood"))
    first, _ = env.reset(seed=4)
    for _ in range(20):
        env.step(actions().index("move_right"))
    again, _ = env.reset(seed=4)
    np.testing.assert_array_equal(first, again)


def test_success_terminates_the_episode(make_worker):
    task = get_task("collect_wood")
    worker = make_worker([write_action("collect_wood", 200)])
    env = wrap(CrafterEnv(task), ["collect_wood"], worker, step_budget=200)
    _, info = env.reset(seed=0)
    assert not info["success"]
    _, _, term, trunc, info = env.step(17)
    assert info["success"] is True
    assert info["achievements"]["collect_wood"] == 1
    assert info["inventory"]["wood"] == 1
    assert term is True and trunc is False
    assert 1 <= info["primitive_steps"] < 200, "the macro stops when the episode ends"


def test_step_limit_truncates():
    task = TaskSpec(name="t", achievement="collect_diamond", description="d", max_episode_steps=10)
    env = CrafterEnv(task)
    env.reset(seed=0)
    ends = [env.step(0)[2:4] for _ in range(10)]
    assert ends[:-1] == [(False, False)] * 9
    assert ends[-1] == (False, True)


def test_info_carries_state():
    env = CrafterEnv(get_task("collect_wood"))
    _, info = env.reset(seed=1)
    assert set(info) >= {"inventory", "achievements", "player_pos", "facing", "success"}
    x, y = info["player_pos"]
    assert env.semantic()[x, y] == semantic_id("player")
    assert env.last_info is info
    _, _, _, _, info2 = env.step(actions().index("move_left"))
    assert info2["facing"] == (-1, 0)


def test_standing_says_whether_a_placed_station_is_still_in_the_world():
    env = CrafterEnv(get_task("make_iron_pickaxe"))
    _, info = env.reset(seed=3)
    assert env.standing() == {"furnace": False, "table": False}
    x, y = info["player_pos"]
    env.world[(x + 1, y)] = "table"
    assert env.standing() == {"furnace": False, "table": True}
    env.world[(x + 1, y)] = "path"  # what a skeleton's arrow leaves of it
    assert env.standing()["table"] is False


def test_the_registered_env_and_the_training_env_pass_gymnasium_check_env():
    """What PPO trains on (coded actions inserted, with and without the primitives) keeps the
    gymnasium contract, and so does `gymnasium.make("rlgpt/Crafter-v0")`."""
    import gymnasium
    from gymnasium.utils.env_checker import check_env as gym_check_env

    import rlgpt.worlds.crafter.env  # noqa: F401 - registers the id
    from rlgpt.messages import RLConfig
    from rlgpt.rl.envs import make_env

    made = gymnasium.make("rlgpt/Crafter-v0", task="place_table")
    assert made.unwrapped.task.name == "place_table"
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*different from the unwrapped.*")
        gym_check_env(made.unwrapped, skip_render_check=True)
        coded = [write_action(a, 80) for a in ("collect_wood", "place_table")]
        for prims in (None, []):
            cfg = RLConfig(macro_actions=[c.name for c in coded], reward_terms=[],
                           sample_budget=1, primitive_actions=prims)  # fmt: skip
            env = make_env(get_task("place_table"), cfg, coded, 0, 4, 80)
            try:
                assert env.action_space.n == (17 if prims is None else 0) + 2
                gym_check_env(env, skip_render_check=True)
            finally:
                env.close()
    made.close()


def test_seeding_is_public_and_repeatable():
    env = CrafterEnv(get_task("collect_wood"))
    first, _ = env.reset(seed=7)
    other, _ = env.reset(seed=8)
    again, _ = env.reset(seed=7)
    assert np.array_equal(first, again) and not np.array_equal(first, other)
