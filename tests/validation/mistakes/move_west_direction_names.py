# sub-action: collect_wood
# budget: 80
# expect: invalid_action
# mistake: maps steps to compass names ("move_east", "move_west"), which are no Crafter actions
# ruff: noqa: F821

# Compass names for the four unit steps.
DIRECTIONS = {
    (-1, 0): "move_west",
    (1, 0): "move_east",
    (0, -1): "move_north",
    (0, 1): "move_south",
}


def collect_wood(view):
    """Walk to the nearest tree along the shortest path and collect one wood."""
    start = view.inventory["wood"]
    while view.inventory["wood"] == start:
        if view.facing_name == "tree":
            yield "do"
            continue
        tree = view.nearest("tree")
        if tree is None:
            yield from explore(view, 8)
            continue
        path = path_to(view, {tree})
        if path is None:
            yield from explore(view, 4)
        elif path:
            yield DIRECTIONS[path[0]]
        else:
            yield DIRECTIONS[tree]  # already next to it: turn to face it
