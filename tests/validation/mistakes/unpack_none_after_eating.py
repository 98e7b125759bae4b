# sub-action: eat_cow
# budget: 80
# expect: exception
# mistake: unpacks view.nearest("cow") without a None check; after eating, no cow is left to find
# ruff: noqa: F821
def eat_cow(view):
    """Chase the nearest cow and hit it until we have eaten."""
    while True:
        dx, dy = view.nearest("cow")
        if abs(dx) + abs(dy) == 1:
            if view.facing != (dx, dy):
                yield MOVES[(dx, dy)]  # face the cow
            yield "do"
        else:
            yield from approach(view, "cow")
