# sub-action: make_wood_sword
# budget: 80
# expect: unsafe_step
# mistake: steps toward the table one axis at a time without a path, onto whatever is in between
# ruff: noqa: F821
def make_wood_sword(view):
    """Walk to the table and make a wood sword."""
    if view.inventory["wood"] < 1:
        return
    start = view.achievements["make_wood_sword"]
    for _ in range(40):
        if view.achievements["make_wood_sword"] != start:
            return
        tables = view.cells("table")
        if not tables:
            return
        dx, dy = tables[0]
        if max(abs(dx), abs(dy)) <= 1:
            yield "make_wood_sword"
        elif dx:
            yield "move_right" if dx > 0 else "move_left"
        else:
            yield "move_down" if dy > 0 else "move_up"
