"""rlgpt.worlds.crafter.skills.api: ObsView and the navigation skills on hand-built states."""

from __future__ import annotations

import pytest

from rlgpt.worlds.crafter.recipes import semantic_names
from rlgpt.worlds.crafter.skills.api import (
    MOVES,
    WALKABLE,
    ObsView,
    SkillAPIError,
    approach,
    explore,
    face_free,
    path_to,
)
from tests.support.world import one_at_a_time

STEP = {name: d for d, name in MOVES.items()}


def view_of(state: dict) -> ObsView:
    view = ObsView(semantic_names())
    view.update(state)
    return view


def run_gen(gen, limit: int = 200):
    """All yields of a generator and its return value."""
    out = []
    gen = one_at_a_time(gen)
    try:
        while len(out) < limit:
            out.append(next(gen))
    except StopIteration as stop:
        return out, stop.value
    raise AssertionError(f"generator did not finish within {limit} yields: {out[-10:]}")


class GridWorld:
    """A tiny crafter-like world: moving turns the player, and steps only onto walkable cells."""

    def __init__(self, cells: dict[tuple[int, int], str], size: int = 21) -> None:
        self.cells = dict(cells)
        self.size = size
        self.pos = (0, 0)
        self.facing = (0, 1)
        self.visited = [self.pos]

    def material(self, x: int, y: int) -> str:
        if max(abs(x), abs(y)) > self.size:
            return "none"
        return self.cells.get((x, y), "grass")

    def state(self, local_state, radius: int = 4) -> dict:
        px, py = self.pos
        rel = {
            (dx, dy): self.material(px + dx, py + dy)
            for dx in range(-radius, radius + 1)
            for dy in range(-radius, radius + 1)
            if (dx, dy) != (0, 0)
        }
        return local_state(rel, radius=radius, facing=self.facing)

    def act(self, name: str) -> None:
        d = STEP[name]
        self.facing = d
        target = (self.pos[0] + d[0], self.pos[1] + d[1])
        if self.material(*target) in WALKABLE:
            self.pos = target
            self.visited.append(target)

    def drive(self, skill, local_state, *args, limit: int = 100):
        view = view_of(self.state(local_state))
        gen = one_at_a_time(skill(view, *args))
        actions = []
        try:
            while len(actions) < limit:
                a = next(gen)
                actions.append(a)
                self.act(a)
                view.update(self.state(local_state))
        except StopIteration as stop:
            return actions, stop.value
        raise AssertionError("skill did not finish")


# -- ObsView --------------------------------------------------------------------------------
def test_obsview_reads_cells_by_relative_coordinates(local_state):
    state = local_state(
        {(1, 0): "tree", (-2, 3): "water", (0, -1): "stone"},
        radius=4,
        facing=(1, 0),
        inventory={"wood": 2, "health": 7},
        achievements={"collect_wood": 1},
    )
    view = view_of(state)
    assert view.radius == 4
    assert view.at(1, 0) == "tree"
    assert view.at(-2, 3) == "water"
    assert view.at(0, -1) == "stone"
    assert view.at(0, 0) == "player"
    assert view.at(3, 3) == "grass"
    assert view.at(5, 0) == "none", "outside the view"
    assert view.facing == (1, 0)
    assert view.facing_name == "tree"
    assert view.inventory["wood"] == 2
    assert view.vitals == {"health": 7, "food": 0, "drink": 0, "energy": 0}
    assert view.achievements == {"collect_wood": 1}


def test_obsview_is_read_only(local_state):
    view = view_of(local_state({}, inventory={"wood": 1}))
    view.inventory["wood"] = 99
    view.achievements["x"] = 1
    assert view.inventory["wood"] == 1
    assert "x" not in view.achievements


def test_cells_are_sorted_nearest_first(local_state):
    view = view_of(local_state({(3, 3): "tree", (0, 2): "tree", (-1, 0): "tree"}))
    assert view.cells("tree") == [(-1, 0), (0, 2), (3, 3)]
    assert view.nearest("tree") == (-1, 0)
    assert view.nearest("diamond") is None
    assert view.cells("diamond") == []


def _full_view(local_state, cells=None, **kwargs) -> ObsView:
    from rlgpt.worlds.crafter.preconditions import item_sources
    from rlgpt.worlds.crafter.recipes import achievements, game_data

    view = ObsView(semantic_names(), game_data()["items"], achievements(), item_sources())
    view.update(local_state(cells or {}, **kwargs))
    return view


def test_an_item_name_on_the_map_says_where_it_comes_from(local_state):
    view = _full_view(local_state, {(2, 0): "tree"})
    with pytest.raises(SkillAPIError, match="wood is an item: it comes from 'tree'"):
        view.nearest("wood")
    with pytest.raises(SkillAPIError, match="did you mean 'tree'"):
        view.cells("trees")
    with pytest.raises(SkillAPIError, match="'wood' is not on the map"):
        next(approach(view, "wood"))


def test_unknown_view_attribute_lists_what_there_is(local_state):
    view = _full_view(local_state)
    with pytest.raises(SkillAPIError, match="view has no attribute 'find'.*it has: .*nearest"):
        view.find("tree")  # noqa: B018
    with pytest.raises(AttributeError):  # copy and pickle still see plain AttributeErrors
        view.__deepcopy__  # noqa: B018


def test_unknown_inventory_key_names_the_close_one(local_state):
    view = _full_view(local_state, inventory={"wood": 1})
    assert view.inventory["wood"] == 1
    assert view.inventory["stone"] == 0  # a real item that the state left out
    assert view.inventory.get("log", 0) == 0
    with pytest.raises(SkillAPIError, match="did you mean 'wood_pickaxe'"):
        view.inventory["wood_pickaxes"]  # noqa: B018
    with pytest.raises(SkillAPIError, match="not an achievement"):
        view.achievements["collect_log"]  # noqa: B018


# -- path_to --------------------------------------------------------------------------------
def water_wall_with_tree(radius: int = 4) -> dict[tuple[int, int], str]:
    """Tree at (2, 0); water at dx=1 for dy in [-radius, 1]: only a detour below reaches it."""
    cells = {(1, dy): "water" for dy in range(-radius, 2)}
    cells[(2, 0)] = "tree"
    return cells


def test_path_to_takes_the_walkable_detour(local_state):
    view = view_of(local_state(water_wall_with_tree()))
    path = path_to(view, {(2, 0)})
    assert path == [(0, 1), (0, 1), (1, 0), (1, 0), (0, -1)]
    x = y = 0
    for dx, dy in path:
        x, y = x + dx, y + dy
        assert view.at(x, y) in WALKABLE
    assert abs(x - 2) + abs(y - 0) == 1, "ends next to the tree"


def test_path_to_is_none_when_unreachable(local_state):
    cells = {(dx, dy): "water" for dx in (1, 2, 3) for dy in (-1, 0, 1)}
    cells[(2, 0)] = "tree"
    cells.update({(dx, dy): "stone" for dx in range(-4, 5) for dy in range(-4, 5)
                  if (dx, dy) not in cells and (dx, dy) != (0, 0)})  # fmt: skip
    view = view_of(local_state(cells))
    assert path_to(view, {(2, 0)}) is None


def test_path_to_adjacent_target_is_empty(local_state):
    view = view_of(local_state({(0, 1): "tree"}))
    assert path_to(view, {(0, 1)}) == []


# -- approach -------------------------------------------------------------------------------
def test_approach_behind_water_walks_around_and_faces_the_tree(local_state):
    world = GridWorld(water_wall_with_tree())
    actions, reached = world.drive(approach, local_state, "tree")
    assert reached is True
    assert actions[0] == "move_down"
    assert all(world.material(*p) in WALKABLE or p == (0, 0) for p in world.visited)
    assert world.material(world.pos[0] + world.facing[0], world.pos[1] + world.facing[1]) == "tree"
    # down, down, right, right, up: the last step up already faces the tree
    assert actions == ["move_down", "move_down", "move_right", "move_right", "move_up"]


def test_approach_adjacent_only_turns(local_state):
    world = GridWorld({(-1, 0): "tree"})
    actions, reached = world.drive(approach, local_state, "tree")
    assert (actions, reached) == (["move_left"], True)
    assert world.pos == (0, 0) and world.facing == (-1, 0)


def test_approach_already_facing_returns_true_without_moving(local_state):
    view = view_of(local_state({(0, 1): "tree"}, facing=(0, 1)))
    assert run_gen(approach(view, "tree")) == ([], True)


def test_approach_without_target_returns_false(local_state):
    view = view_of(local_state({}))
    assert run_gen(approach(view, "tree")) == ([], False)


def test_approach_unreachable_returns_false(local_state):
    cells = {(dx, dy): "water" for dx in range(-4, 5) for dy in range(-4, 5)
             if max(abs(dx), abs(dy)) == 1}  # fmt: skip
    cells[(3, 3)] = "tree"
    view = view_of(local_state(cells))
    assert run_gen(approach(view, "tree")) == ([], False)


# -- explore / face_free ------------------------------------------------------------------------
def test_explore_walks_in_the_facing_direction(local_state):
    view = view_of(local_state({}, facing=(1, 0)))
    actions, _ = run_gen(explore(view, 5))
    assert actions == ["move_right"] * 5


def test_explore_turns_toward_the_longest_open_direction(local_state):
    # facing up into stone; left is open for one cell, right for the whole view
    cells = {(0, -1): "stone", (-2, 0): "stone"}
    view = view_of(local_state(cells, facing=(0, -1)))
    actions, _ = run_gen(explore(view, 1))
    assert actions == ["move_right"]


def test_explore_turns_back_only_from_a_dead_end(local_state):
    cells = {(0, 1): "stone", (-1, 0): "water", (1, 0): "tree"}
    view = view_of(local_state(cells, facing=(0, 1)))
    actions, _ = run_gen(explore(view, 1))
    assert actions == ["move_up"]


def test_explore_when_boxed_in_still_yields_every_step(local_state):
    box = {d: "stone" for d in MOVES}
    world = GridWorld(box)
    actions, _ = world.drive(explore, local_state, 4)
    assert len(actions) == 4, "explore always yields: a coded action cannot stall the runtime"
    assert world.pos == (0, 0)
    assert len(set(actions)) > 1, "it turns around rather than pushing one wall"


def test_explore_with_no_steps_yields_nothing(local_state):
    assert run_gen(explore(view_of(local_state({})), 0)) == ([], None)


def test_explore_in_world_never_enters_water(local_state):
    cells = {(x, 3): "water" for x in range(-30, 30)}
    world = GridWorld(cells)
    world.drive(explore, local_state, 10)
    assert world.pos[1] <= 2
    assert all(world.material(*p) != "water" for p in world.visited)


@pytest.mark.parametrize(
    "cells, facing, expected, ok",
    [
        ({(0, 1): "stone", (-1, 0): "grass"}, (0, 1), ["move_left"], True),
        ({d: "stone" for d in MOVES} | {(1, 0): "grass"}, (1, 0), [], True),
    ],
)
def test_face_free(local_state, cells, facing, expected, ok):
    view = view_of(local_state(cells, facing=facing, default="stone"))
    assert run_gen(face_free(view)) == (expected, ok)
