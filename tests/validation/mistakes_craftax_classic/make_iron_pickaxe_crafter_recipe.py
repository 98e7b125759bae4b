# sub-action: make_iron_pickaxe
# budget: 80
# expect: unmet_precondition
# mistake: checks Crafter's recipe (wood, coal, iron): Craftax-Classic's also takes a stone
# ruff: noqa: F821
def make_iron_pickaxe(view):
    """Make an iron pickaxe beside a table and a furnace (wood, coal and iron)."""
    if any(view.inventory[item] < 1 for item in ("wood", "coal", "iron")):
        return
    near = yield from stand_near(view, ("table", "furnace"))
    if not near:
        return
    start = view.achievements["make_iron_pickaxe"]
    while view.achievements["make_iron_pickaxe"] == start:
        yield "make_iron_pickaxe"
