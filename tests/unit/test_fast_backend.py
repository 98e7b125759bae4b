"""The fast backend has stock crafter's dynamics: same world, transitions, rewards, done flags."""

from __future__ import annotations

import types

import crafter
import numpy as np
import pytest

from rlgpt.sandbox.client import MacroWorker
from rlgpt.worlds.crafter import worldgen
from rlgpt.worlds.crafter.author import write_action
from rlgpt.worlds.crafter.fast import FastCrafter, balance_object
from rlgpt.worlds.crafter.worldgen import _permutation
from tests.support.world import CRAFTER_SKILLS

SEEDS = list(range(20))


def _stock(seed: int) -> crafter.Env:
    """Stock crafter, with one change: creatures are despawned from a stable order.

    Stock picks from a Python set of objects, whose order follows memory addresses, so two
    stock envs with the same seed diverge too; both sides use the same stable order here.
    """
    env = crafter.Env(seed=seed, length=10_000)
    env._balance_object = types.MethodType(balance_object, env)
    return env


def _compare(stock: crafter.Env, fast: FastCrafter, s_out, f_out, where: str) -> None:
    _, s_rew, s_done, s_info = s_out
    _, f_rew, f_done, f_info = f_out
    np.testing.assert_array_equal(s_info["semantic"], fast.semantic(), err_msg=where)
    assert s_info["inventory"] == f_info["inventory"], where
    assert s_info["achievements"] == f_info["achievements"], where
    assert (s_rew, s_done) == (f_rew, f_done), where
    assert tuple(s_info["player_pos"]) == tuple(f_info["player_pos"]), where
    assert stock._world.daylight == fast._world.daylight, where
    assert _objects(stock) == _objects(fast), where
    s_rng, f_rng = stock._world.random.get_state(), fast._world.random.get_state()
    assert s_rng[2:] == f_rng[2:] and np.array_equal(s_rng[1], f_rng[1]), where


def _objects(env: crafter.Env) -> list[tuple]:
    """Every object in the world's order: its kind, cell, position's dtype and counters (a
    zombie's cooldown, a skeleton's reload, a plant's growth, an arrow's facing)."""
    return [
        (type(o).__name__, tuple(int(v) for v in o.pos), o.pos.dtype.str, o.health,
         getattr(o, "cooldown", None), getattr(o, "reload", None), getattr(o, "grown", None),
         tuple(int(v) for v in getattr(o, "facing", ())), getattr(o, "sleeping", None))
        for o in env._world.objects
    ]  # fmt: skip


@pytest.mark.parametrize("first_draws", [2, 0])
def test_worlds_are_identical_at_reset(monkeypatch, first_draws):
    """Same world, objects and random stream after each reset. With no first batch of draws
    (0 per cell) every walk outruns it and takes the rest of the stream, as one always may;
    each reset reseeds the world's own generator rather than making a new one."""
    monkeypatch.setattr(worldgen, "_FIRST_DRAWS_PER_CELL", first_draws)
    for seed in SEEDS:
        stock, fast = _stock(seed), FastCrafter(seed=seed, length=10_000)
        for _ in range(3):  # episodes: the episode counter seeds the world
            stock.reset()
            fast.reset()
            np.testing.assert_array_equal(stock._sem_view(), fast.semantic())
            assert _objects(stock) == _objects(fast)
            s_rng, f_rng = stock._world.random.get_state(), fast._world.random.get_state()
            assert s_rng[2:] == f_rng[2:] and np.array_equal(s_rng[1], f_rng[1])
            assert stock._world.random.standard_normal() == fast._world.random.standard_normal()


def test_noise_permutation_is_opensimplex_own():
    """The compiled permutation tables equal opensimplex's for the seeds a world draws (0 to
    2**31 - 2), edges included."""
    from opensimplex.internals import _init

    rng = np.random.default_rng(0)
    for seed in [0, 1, 2**31 - 2, *rng.integers(0, 2**31 - 1, 300).tolist()]:
        perm, grad = _permutation(seed)
        want_perm, want_grad = _init(seed)
        np.testing.assert_array_equal(perm, want_perm)
        np.testing.assert_array_equal(grad, want_grad)


def _scripted_actions(worker: MacroWorker, fast: FastCrafter, names: list[str]):
    """Primitive actions of coded actions run against `fast`'s state (one per yield)."""
    for name in names:
        state = _state(fast)
        prim = worker.start(name, state)
        steps = 0
        while prim is not None and steps < 120:
            yield prim
            steps += 1
            prim = worker.next(_state(fast))


def _state(fast: FastCrafter) -> dict:
    player = fast._player
    x, y = (int(v) for v in player.pos)
    sem = np.pad(fast.semantic(), 4)
    return {
        "local": sem[x : x + 9, y : y + 9].tolist(),
        "inventory": dict(player.inventory),
        "achievements": dict(player.achievements),
        "facing": tuple(int(v) for v in player.facing),
    }


@pytest.mark.parametrize("seed", SEEDS)
def test_random_then_scripted_play_is_identical(seed):
    stock, fast = _stock(seed), FastCrafter(seed=seed, length=10_000)
    stock.reset()
    fast.reset()
    rng = np.random.default_rng(seed)
    n = 0
    for a in rng.integers(0, 17, size=400):  # random play, through the first night
        n += 1
        s_out, f_out = stock.step(int(a)), fast.step(int(a))
        _compare(stock, fast, s_out, f_out, f"seed {seed} random step {n}")
        if s_out[2]:
            stock.reset()
            fast.reset()
    plan = ["collect_wood"] * 5 + ["place_table", "make_wood_pickaxe", "make_wood_sword"]
    plan += ["collect_stone", "collect_stone", "place_stone", "eat_cow", "collect_drink"]
    coded = [write_action(name, 120) for name in dict.fromkeys(plan)]
    worker = MacroWorker(coded, CRAFTER_SKILLS)
    try:
        for a in _scripted_actions(worker, fast, plan):
            n += 1
            idx = crafter.constants.actions.index(a)
            s_out, f_out = stock.step(idx), fast.step(idx)
            _compare(stock, fast, s_out, f_out, f"seed {seed} scripted step {n} ({a})")
            if s_out[2]:
                break
    finally:
        worker.close()
    for a in [6] * 60 + [5] * 40:  # sleep, then hit whatever is in front
        n += 1
        s_out, f_out = stock.step(a), fast.step(a)
        _compare(stock, fast, s_out, f_out, f"seed {seed} sleep/do step {n}")
        if s_out[2]:
            break


def test_a_snapshot_leaves_out_the_sprites_and_views_and_continues_exactly(monkeypatch):
    """A pickled FastCrafter (a snapshot) holds no sprites, views or chunk table: loading builds
    them again, and the loaded env goes on as the original does, step for step (the semantic
    map, every object, the random stream, the image). A snapshot pickled whole (as before)
    loads and goes on the same."""
    import pickle

    from rlgpt.worlds.crafter.creatures import FastWorld

    fast = FastCrafter(seed=3, length=10_000)
    fast.reset()
    for a in np.random.default_rng(3).integers(0, 17, size=60):
        fast.step(int(a))
    blob = pickle.dumps(fast)
    with monkeypatch.context() as m:  # the whole dicts, as a snapshot was pickled before
        m.setattr(FastCrafter, "__getstate__", lambda self: self.__dict__)
        m.setattr(FastWorld, "__getstate__", lambda self: self.__dict__)
        whole = pickle.dumps(fast)
    assert len(blob) < len(whole) / 2
    loaded, old = pickle.loads(blob), pickle.loads(whole)
    assert loaded._world._chunk_keys is fast._world._chunk_keys  # one table per shape
    assert loaded._local_view._world is loaded._world and loaded._sem_view._world is loaded._world
    for a in np.random.default_rng(4).integers(0, 17, size=200):
        want = fast.step(int(a))
        for env in (loaded, old):
            got = env.step(int(a))
            assert (got[1], got[2], got[3]["inventory"]) == (want[1], want[2], want[3]["inventory"])
            np.testing.assert_array_equal(env.semantic(), fast.semantic())
            assert _objects(env) == _objects(fast)
    s_rng, f_rng = fast._world.random.get_state(), loaded._world.random.get_state()
    assert s_rng[2:] == f_rng[2:] and np.array_equal(s_rng[1], f_rng[1])
    np.testing.assert_array_equal(crafter.Env.render(loaded), crafter.Env.render(fast))


def test_a_generated_worlds_creatures_have_crafters_fields():
    """The creatures world generation builds without their constructors carry the fields
    crafter's constructors give them, in their order, with the same values."""
    for seed in SEEDS[:5]:
        stock, fast = _stock(seed), FastCrafter(seed=seed, length=10_000)
        stock.reset()
        fast.reset()
        for s, f in zip(stock._world.objects, fast._world.objects, strict=True):
            assert type(s) is type(f) and list(vars(s)) == list(vars(f))
            assert f.world is fast._world and f.random is fast._world.random
            assert getattr(f, "player", fast._player) is fast._player
            assert s.inventory == f.inventory and s.removed == f.removed
