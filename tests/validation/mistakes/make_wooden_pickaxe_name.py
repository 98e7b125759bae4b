# sub-action: make_wood_pickaxe
# budget: 80
# expect: invalid_action
# mistake: calls the craft "make_wooden_pickaxe" (natural English) instead of "make_wood_pickaxe"
# ruff: noqa: F821
def make_wood_pickaxe(view):
    """Walk to the nearest crafting table and craft a wooden pickaxe (uses 1 wood)."""
    if view.inventory["wood"] < 1:
        return
    table = view.nearest("table")
    if table is None:
        return  # no table in sight, nothing we can do here
    dx, dy = table
    # crafting only works when the table is within one cell
    if max(abs(dx), abs(dy)) > 1:
        reached = yield from approach(view, "table")
        if not reached:
            return
    start = view.achievements["make_wood_pickaxe"]
    while view.achievements["make_wood_pickaxe"] == start:
        yield "make_wooden_pickaxe"
