# sub-action: collect_wood
# budget: 80
# expect: unsafe_step
# mistake: walks straight at the nearest tree (x, then y), blind to what lies on the way
# ruff: noqa: F821
def collect_wood(view):
    """Walk straight to the nearest tree and chop it."""
    start = view.achievements["collect_wood"]
    while view.achievements["collect_wood"] == start:
        target = view.nearest("tree")
        if target is None:
            yield from explore(view, 8)
            continue
        dx, dy = target
        if abs(dx) + abs(dy) == 1:
            if view.facing != (dx, dy):
                yield MOVES[(dx, dy)]
            yield "do"
        elif dx != 0 and abs(dx) > 1 or dy == 0:
            yield "move_right" if dx > 0 else "move_left"
        else:
            yield "move_down" if dy > 0 else "move_up"
