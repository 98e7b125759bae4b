# sub-action: eat_cow
# budget: 80
# expect: invalid_action
# mistake: yields a list of three "do" at once (a cow takes 3 hits); each yield must be one action
# ruff: noqa: F821
def eat_cow(view):
    """Walk to the nearest cow and hit it three times to eat it."""
    start = view.achievements["eat_cow"]
    while view.achievements["eat_cow"] == start:
        if view.facing_name == "cow":
            # a cow has 3 health: hit it three times in a row
            yield ["do", "do", "do"]
            continue
        reached = yield from approach(view, "cow")
        if not reached:
            yield from explore(view, 8)
