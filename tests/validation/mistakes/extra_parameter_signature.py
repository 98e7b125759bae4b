# sub-action: place_furnace
# budget: 80
# expect: signature
# mistake: adds a second parameter with a default; a coded action takes exactly `view`
# ruff: noqa: F821
def place_furnace(view, stone_needed=4):
    """Place a furnace in front of the player when there is enough stone."""
    if view.inventory["stone"] < stone_needed:
        return
    start = view.achievements["place_furnace"]
    while view.achievements["place_furnace"] == start:
        if view.facing_name in ("grass", "sand", "path"):
            yield "place_furnace"
        else:
            yield from face_free(view)
