"""Recipe graph, planner and task registry (rlgpt.worlds.crafter.recipes / planner / tasks)."""

from __future__ import annotations

from collections import Counter

import pytest

from rlgpt.errors import UserError
from rlgpt.worlds.crafter.planner import is_plannable, plan_counts, plan_steps, precondition_of
from rlgpt.worlds.crafter.recipes import (
    achievements,
    actions,
    game_data,
    semantic_id,
    semantic_names,
)
from rlgpt.worlds.crafter.tasks import get_task, registry
from rlgpt.worlds.grid.tasks import PAPER_NAMES

PAPER_TASKS = [
    "collect_wood", "place_table", "make_wood_pickaxe", "collect_stone", "make_stone_pickaxe",
    "place_furnace", "make_iron_pickaxe", "collect_diamond", "eat_cow",
]  # fmt: skip
# Achievements the recipe data does not describe (creatures, sleep): they need nothing first.
NO_RECIPE = {"defeat_zombie", "defeat_skeleton", "eat_cow", "wake_up"}


def simulate(plan: list[tuple[str, int]]) -> tuple[Counter, Counter]:
    """Execute a plan against crafter's data.yaml; fail if a step's requirements are unmet.

    Returns (items collected per item, items consumed per item).
    """
    data = game_data()
    inv: Counter[str] = Counter()
    stations: set[str] = set()
    collected: Counter[str] = Counter()
    consumed: Counter[str] = Counter()
    done: set[str] = set()
    for ach, count in plan:
        kind, _, name = ach.partition("_")
        for _ in range(count):
            if kind == "collect":
                source = [m for m, c in data["collect"].items() if name in c["receive"]]
                assert source, f"{ach}: nothing yields {name}"
                for tool, n in data["collect"][source[0]]["require"].items():
                    assert inv[tool] >= n, f"{ach} needs {tool}>={n}, has {inv[tool]}"
                inv[name] += 1
                collected[name] += 1
            elif kind == "place":
                for item, n in data["place"][name]["uses"].items():
                    assert inv[item] >= n, f"{ach} needs {item}>={n}, has {inv[item]}"
                    inv[item] -= n
                    consumed[item] += n
                stations.add(name)
            elif kind == "make":
                info = data["make"][name]
                for station in info["nearby"]:
                    assert station in stations, f"{ach} needs a {station} placed first"
                for item, n in info["uses"].items():
                    assert inv[item] >= n, f"{ach} needs {item}>={n}, has {inv[item]}"
                    inv[item] -= n
                    consumed[item] += n
                inv[name] += info["gives"]
            elif ach == "eat_plant":
                assert "place_plant" in done, "eat_plant needs a plant placed first"
            else:
                assert ach in NO_RECIPE, f"unexpected step {ach}"
        done.add(ach)
    return collected, consumed


def test_wood_pickaxe_plan():
    assert plan_steps("make_wood_pickaxe") == [
        ("collect_wood", 3),
        ("place_table", 1),
        ("make_wood_pickaxe", 1),
    ]


def test_wood_pickaxe_counts_follow_the_recipe_data():
    """The 3 is derived: table uses + pickaxe uses, as written in crafter's data.yaml."""
    data = game_data()
    wood = data["place"]["table"]["uses"]["wood"] + data["make"]["wood_pickaxe"]["uses"]["wood"]
    assert plan_counts("make_wood_pickaxe")["collect_wood"] == wood


@pytest.mark.parametrize("task", sorted(registry()))
def test_every_plan_is_executable_and_minimal(task):
    plan = plan_steps(task)
    names = [a for a, _ in plan]
    assert names[-1] == registry()[task].achievement
    assert len(names) == len(set(names)), "repeated steps are merged into one (name, count)"
    assert all(count >= 1 for _, count in plan)
    for i, name in enumerate(names):
        if name.startswith("make_"):
            assert "place_table" in names[:i], f"{name} comes before place_table"
    collected, consumed = simulate(plan)
    for item, n in collected.items():  # nothing is gathered that no later step needs
        extra = 1 if task == f"collect_{item}" else 0
        assert n == consumed[item] + extra, f"{task}: collects {n} {item}, uses {consumed[item]}"


def test_deep_plan_has_the_expected_order():
    names = [a for a, _ in plan_steps("collect_diamond")]
    order = ["collect_wood", "place_table", "make_wood_pickaxe", "collect_stone",
             "make_stone_pickaxe", "collect_iron", "make_iron_pickaxe",
             "collect_diamond"]  # fmt: skip
    assert [n for n in names if n in order] == order
    assert names.index("place_furnace") < names.index("make_iron_pickaxe")
    assert names.index("collect_coal") < names.index("make_iron_pickaxe")


def test_unknown_achievement_cannot_be_planned():
    assert not is_plannable("make_spaceship")
    with pytest.raises(ValueError, match="unknown achievement"):
        plan_steps("make_spaceship")


def test_plan_steps_returns_a_fresh_list():
    plan = plan_steps("make_wood_pickaxe")
    plan.clear()
    assert len(plan_steps("make_wood_pickaxe")) == 3


def test_preconditions_come_from_recipes():
    assert "wood_pickaxe>=1" in precondition_of("collect_stone")
    assert "table" in precondition_of("make_wood_pickaxe")
    assert "wood>=2" in precondition_of("place_table")


def test_registry_has_one_task_per_achievement():
    tasks = registry()
    assert sorted(tasks) == sorted(achievements())
    assert len(tasks) == 22
    for name, spec in tasks.items():
        assert spec.achievement == name
        assert spec.max_episode_steps > 0
    # deeper plans get longer episodes
    assert tasks["collect_diamond"].max_episode_steps > tasks["collect_wood"].max_episode_steps


def test_paper_tasks_exist_with_their_paper_names():
    assert sorted(PAPER_NAMES) == sorted(PAPER_TASKS)
    for name in PAPER_TASKS:
        spec = get_task(name)
        assert spec.paper_name == PAPER_NAMES[name]
        assert spec.paper_name in spec.description
    assert get_task("collect_diamond").paper_name == "ObtainDiamond"
    assert get_task("collect_sapling").paper_name is None


def test_unknown_task_is_user_error():
    with pytest.raises(UserError, match="unknown task 'nope'") as info:
        get_task("nope")
    assert "rlgpt tasks" in str(info.value)


def test_semantic_names_and_actions_match_crafter():
    names = semantic_names()
    assert names[0] == "none"
    assert semantic_id("player") == 13
    assert semantic_id("cow") == 14
    assert semantic_id("plant") == 18
    assert semantic_id("tree") == list(game_data()["materials"]).index("tree") + 1
    assert len(actions()) == 17
    assert actions()[0] == "noop"
    assert "place_table" in actions()


def test_a_climb_that_meets_nights_takes_swords_first_and_a_short_one_does_not():
    from rlgpt.worlds.crafter.planner import climb_steps, plan_steps

    iron = [a for a, _ in climb_steps("make_iron_pickaxe")]
    assert iron.index("make_wood_sword") < iron.index("make_wood_pickaxe")
    assert iron.index("make_stone_sword") < iron.index("make_iron_pickaxe")
    assert dict(climb_steps("make_iron_pickaxe"))["collect_wood"] > dict(
        plan_steps("make_iron_pickaxe"))["collect_wood"]  # fmt: skip
    assert climb_steps("make_stone_pickaxe") == plan_steps("make_stone_pickaxe")


def test_an_unknown_task_suggests_the_nearest_of_its_own_world():
    """A misspelling gets the closest names of the world asked for, not Crafter's list."""
    from rlgpt.worlds import get_world

    with pytest.raises(UserError) as info:
        get_task("make_wod_pickaxe")
    assert "try one of: make_wood_pickaxe" in str(info.value)
    with pytest.raises(UserError) as other:
        get_world("craftax").task("enter_dungen")
    assert "try one of: enter_dungeon" in str(other.value)


def test_a_plant_waited_for_in_the_open_is_waited_for_armed():
    """Craftax-Classic's plants need no pen (its recipes' rules), so eat_plant's player waits
    600 steps in the open: its plan makes both swords before the sapling is sown. Crafter's
    eat_plant waits sealed in a pen: no swords."""
    from rlgpt.worlds.craftax_classic.facts import RECIPES
    from rlgpt.worlds.crafter.planner import climb_steps, waits_outside

    classic = [a for a, _ in climb_steps("eat_plant", RECIPES)]
    assert waits_outside("eat_plant", RECIPES) and not waits_outside("eat_plant")
    assert classic.index("make_stone_sword") < classic.index("place_plant")
    assert "make_wood_sword" not in [a for a, _ in climb_steps("eat_plant")]
    assert not waits_outside("collect_wood", RECIPES)
