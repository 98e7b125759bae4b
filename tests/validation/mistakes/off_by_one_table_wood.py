# sub-action: place_table
# budget: 80
# expect: unmet_precondition
# mistake: checks wood >= 1 although a table needs 2, so with 1 wood it keeps trying to place
# ruff: noqa: F821
def place_table(view):
    """Place a crafting table on a free cell in front of the player."""
    if view.inventory["wood"] < 1:
        return  # no wood, no table
    start = view.achievements["place_table"]
    while view.achievements["place_table"] == start:
        if view.facing_name in WALKABLE:
            yield "place_table"
        else:
            yield from face_free(view)
