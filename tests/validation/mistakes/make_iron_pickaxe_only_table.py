# sub-action: make_iron_pickaxe
# budget: 80
# expect: no_effect
# mistake: walks only to the table; an iron pickaxe also needs a furnace within one cell
# ruff: noqa: F821
def make_iron_pickaxe(view):
    """Walk to the table and craft an iron pickaxe (1 wood, 1 coal, 1 iron)."""
    for item in ("wood", "coal", "iron"):
        if view.inventory[item] < 1:
            return
    table = view.nearest("table")
    if table is None:
        return
    if max(abs(table[0]), abs(table[1])) > 1:
        reached = yield from approach(view, "table")
        if not reached:
            return
    start = view.achievements["make_iron_pickaxe"]
    while view.achievements["make_iron_pickaxe"] == start:
        yield "make_iron_pickaxe"
