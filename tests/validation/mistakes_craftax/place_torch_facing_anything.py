# sub-action: place_torch
# budget: 80
# expect: no_effect
# mistake: places the torch on whatever it faces; a torch goes only on free ground
# ruff: noqa: F821
def place_torch(view):
    """Place a torch to light the way."""
    if view.inventory["torch"] < 1:
        return
    start = view.achievements["place_torch"]
    for _ in range(5):
        if view.achievements["place_torch"] != start:
            return
        yield "place_torch"
