# sub-action: eat_cow
# budget: 80
# expect: invalid_action
# mistake: yields "attack" to hit the cow; Crafter has no attack action, hitting is "do"
# ruff: noqa: F821
def eat_cow(view):
    """Find a cow, walk up to it and attack it until it is eaten (about 3 hits)."""
    start = view.achievements["eat_cow"]
    while view.achievements["eat_cow"] == start:
        if view.facing_name == "cow":
            yield "attack"  # hit the cow
        elif view.nearest("cow") is not None:
            yield from approach(view, "cow")
        else:
            # no cow visible: wander to find one
            yield from explore(view, 10)
