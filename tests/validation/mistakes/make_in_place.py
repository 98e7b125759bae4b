# sub-action: make_wood_pickaxe
# budget: 80
# expect: no_effect
# mistake: only checks that a table is visible and crafts in place; it must be within one cell
# ruff: noqa: F821
def make_wood_pickaxe(view):
    """Craft a wood pickaxe at the table."""
    if view.inventory["wood"] < 1:
        return
    if view.nearest("table") is None:
        return  # no table around, cannot craft
    start = view.achievements["make_wood_pickaxe"]
    while view.achievements["make_wood_pickaxe"] == start:
        yield "make_wood_pickaxe"
