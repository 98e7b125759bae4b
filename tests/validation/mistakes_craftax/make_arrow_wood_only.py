# sub-action: make_arrow
# budget: 120
# expect: unmet_precondition
# mistake: checks the wood an arrow takes, not the stone
# ruff: noqa: F821
def make_arrow(view):
    """Make arrows beside a table (wood)."""
    if view.inventory["wood"] < 1:
        return
    near = yield from stand_near(view, ("table",), diggable(view))
    if not near:
        return
    start = view.achievements["make_arrow"]
    while view.achievements["make_arrow"] == start:
        yield "make_arrow"
