# sub-action: make_iron_sword
# budget: 80
# expect: no_effect
# mistake: crafts beside the table only, as if the furnace came with it: apart, nothing is made
# ruff: noqa: F821
def make_iron_sword(view):
    """Make an iron sword at the table once a furnace has been seen (wood, coal, iron, stone)."""
    if any(view.inventory[item] < 1 for item in ("wood", "coal", "iron", "stone")):
        return
    if not (view.cells("table") or view.remembered("table")):
        return
    near = yield from stand_near(view, ("table",))
    if not near:
        return
    start = view.achievements["make_iron_sword"]
    for _ in range(3):
        if view.achievements["make_iron_sword"] != start:
            return
        yield "make_iron_sword"
