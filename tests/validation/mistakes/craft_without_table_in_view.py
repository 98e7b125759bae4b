# sub-action: make_stone_sword
# budget: 80
# expect: unmet_precondition
# mistake: walks to the table only if one is visible, then crafts anyway, forever when none is near
# ruff: noqa: F821
def make_stone_sword(view):
    """Craft a stone sword (1 wood, 1 stone) at a crafting table."""
    if view.inventory["wood"] < 1 or view.inventory["stone"] < 1:
        return
    table = view.nearest("table")
    if table is not None and max(abs(table[0]), abs(table[1])) > 1:
        yield from approach(view, "table")
    start = view.achievements["make_stone_sword"]
    while view.achievements["make_stone_sword"] == start:
        yield "make_stone_sword"
