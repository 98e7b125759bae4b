"""The oracle (the tech-tree benchmark's ceiling) plays real Crafter episodes."""

from __future__ import annotations

from rlgpt.worlds.crafter.env import CrafterEnv
from rlgpt.worlds.crafter.oracle import Oracle
from rlgpt.worlds.crafter.tasks import get_task


def test_the_oracle_climbs_to_the_stone_pickaxe_on_every_seed():
    oracle = Oracle(CrafterEnv(get_task("make_stone_pickaxe")))
    runs = [oracle.episode(seed) for seed in range(3)]
    assert all(r.success and r.end == "success" for r in runs), runs
    assert all(r.steps < 200 for r in runs), "a whole-map planner needs few steps"


def test_the_oracle_places_the_furnace_beside_the_table_and_makes_iron_tools():
    env = CrafterEnv(get_task("make_iron_pickaxe"))
    oracle = Oracle(env)
    wins = [oracle.episode(seed) for seed in range(4)]
    assert sum(r.success for r in wins) >= 3, wins
    assert env.player.inventory["iron_pickaxe"] == 1 or not wins[-1].success
