# sub-action: place_table
# budget: 80
# expect: invalid_action
# mistake: misspells the primitive as "place_tabel", which is no Crafter action
# ruff: noqa: F821
def place_table(view):
    """Place a crafting table in front of the player (a table costs 2 wood)."""
    if view.inventory["wood"] < 2:
        return  # not enough wood yet
    start = view.achievements["place_table"]
    while view.achievements["place_table"] == start:
        if view.facing_name in WALKABLE:
            yield "place_tabel"
        else:
            # the cell in front is blocked: turn toward an open one first
            yield from face_free(view)
