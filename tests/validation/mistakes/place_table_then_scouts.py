# sub-action: place_table
# budget: 80
# expect: no_end
# mistake: after the table stands it scouts for trees for the next recipe, never ending
# ruff: noqa: F821
def place_table(view):
    """Place a crafting table, then look around for more trees."""
    if view.inventory["wood"] < 2:
        return
    start = view.achievements["place_table"]
    while view.achievements["place_table"] == start:
        if view.facing_name in ("grass", "sand", "path"):
            yield "place_table"
        else:
            yield from face_free(view, ("grass", "sand", "path"))
    # the pickaxe will need more wood: find trees while we are here
    for _ in range(3):
        yield from explore(view, 8)
