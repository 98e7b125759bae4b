# sub-action: eat_cow
# budget: 80
# expect: no_effect
# mistake: treats view.nearest("cow") as a name ("cow" when adjacent); it is an offset: never hits
# ruff: noqa: F821
def eat_cow(view):
    """Wander until a cow is next to the player, then hit it until it is eaten."""
    start = view.achievements["eat_cow"]
    for _ in range(200):
        if view.achievements["eat_cow"] > start:
            return
        if view.nearest("cow") == "cow":
            # the cow is right in front of us
            yield "do"
        else:
            yield from explore(view, 4)
