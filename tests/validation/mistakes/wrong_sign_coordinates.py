# sub-action: collect_wood
# budget: 80
# expect: no_effect
# mistake: takes the offset from the tree to the player (wrong sign), so it walks away from the tree
# ruff: noqa: F821
def collect_wood(view):
    """Walk to the nearest tree, one step at a time, and chop it."""
    start = view.inventory["wood"]
    for _ in range(80):
        if view.inventory["wood"] > start:
            return
        if view.facing_name == "tree":
            yield "do"
            continue
        tree = view.nearest("tree")
        if tree is None:
            return  # no tree around
        # direction between us and the tree
        dx, dy = -tree[0], -tree[1]
        if abs(dx) >= abs(dy):
            yield "move_right" if dx > 0 else "move_left"
        else:
            yield "move_down" if dy > 0 else "move_up"
