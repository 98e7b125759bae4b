# sub-action: place_furnace
# budget: 80
# expect: unmet_precondition
# mistake: believes a furnace costs 1 stone (it costs 4 here), so it keeps placing with 3 stone
# ruff: noqa: F821
def place_furnace(view):
    """Place a furnace in front of the player; a furnace costs 1 stone."""
    if view.inventory["stone"] < 1:
        return
    start = view.achievements["place_furnace"]
    while view.achievements["place_furnace"] == start:
        if view.facing_name in ("grass", "sand", "path"):
            yield "place_furnace"
        else:
            yield from face_free(view)
