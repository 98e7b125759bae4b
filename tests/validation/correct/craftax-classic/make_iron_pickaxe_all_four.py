# sub-action: make_iron_pickaxe
# budget: 80
# expect: ok
# mistake: none: checks the four ingredients of Craftax-Classic's recipe and both stations
# ruff: noqa: F821
NEEDS = {"wood": 1, "coal": 1, "iron": 1, "stone": 1}


def make_iron_pickaxe(view):
    """Make an iron pickaxe beside a table and a furnace."""
    if any(view.inventory[item] < n for item, n in NEEDS.items()):
        return
    if view.inventory["iron_pickaxe"] > 0:
        return
    near = yield from stand_near(view, ("table", "furnace"))
    if not near:
        return
    start = view.achievements["make_iron_pickaxe"]
    while view.achievements["make_iron_pickaxe"] == start:
        if not (yield from guard(view)):
            yield "make_iron_pickaxe"
