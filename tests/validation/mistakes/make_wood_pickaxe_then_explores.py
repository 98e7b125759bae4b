# sub-action: make_wood_pickaxe
# budget: 80
# expect: no_end
# mistake: once the pickaxe is made it walks on to find stone instead of returning
# ruff: noqa: F821
def make_wood_pickaxe(view):
    """Make a wood pickaxe at a table, then head for stone."""
    if view.inventory["wood"] < 1:
        return
    near = yield from stand_near(view, ("table",))
    if not near:
        return
    start = view.achievements["make_wood_pickaxe"]
    while view.achievements["make_wood_pickaxe"] == start:
        yield "make_wood_pickaxe"
    while not view.cells("stone"):  # next step of the plan: stone
        yield from explore(view, 6)
    yield from approach(view, "stone")
