# sub-action: place_stone
# budget: 80
# expect: unmet_precondition
# mistake: tries to place a stone before looking at the inventory, then returns
# ruff: noqa: F821
def place_stone(view):
    """Place a stone in front of the player."""
    start = view.achievements["place_stone"]
    for _ in range(4):
        if view.facing_name in ("grass", "sand", "path", "water", "lava"):
            yield "place_stone"
            if view.achievements["place_stone"] == start:
                return  # nothing to place
            return
        yield from face_free(view, ("grass", "sand", "path"))
