# sub-action: place_table
# budget: 80
# expect: no_effect
# mistake: places straight ahead without turning; facing a tree or stone the placement never works
# ruff: noqa: F821
def place_table(view):
    """Place a crafting table right in front of the player."""
    if view.inventory["wood"] < 2:
        return
    start = view.achievements["place_table"]
    while view.achievements["place_table"] == start:
        yield "place_table"
