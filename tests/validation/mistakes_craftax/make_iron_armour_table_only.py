# sub-action: make_iron_armour
# budget: 200
# expect: no_effect
# mistake: crafts iron armour beside a table only; it needs a table and a furnace within reach
# ruff: noqa: F821
def make_iron_armour(view):
    """Make a piece of iron armour at the table."""
    if view.inventory["iron"] < 3 or view.inventory["coal"] < 3:
        return
    start = view.achievements["make_iron_armour"]
    if not (yield from stand_near(view, ("table",), diggable(view))):
        return
    for _ in range(4):
        if view.achievements["make_iron_armour"] != start:
            return
        yield "make_iron_armour"
