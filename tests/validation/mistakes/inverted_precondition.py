# sub-action: place_table
# budget: 80
# expect: no_action
# mistake: inverts the wood check, so it returns exactly when it has the 2 wood it needs
# ruff: noqa: F821
def place_table(view):
    """Place a crafting table next to the player. Requires 2 wood."""
    # not enough wood -> nothing to do
    if view.inventory["wood"] >= 2:
        return
    start = view.achievements["place_table"]
    while view.achievements["place_table"] == start:
        if view.facing_name in ("grass", "sand", "path"):
            yield "place_table"
        else:
            yield from face_free(view)
