# sub-action: defeat_zombie
# budget: 80
# expect: invalid_action
# mistake: a bare `yield` to "wait one tick" yields None; waiting is "noop"
# ruff: noqa: F821
def defeat_zombie(view):
    """Let the zombie come to us, then fight it until it is defeated."""
    start = view.achievements["defeat_zombie"]
    while view.achievements["defeat_zombie"] == start:
        zombie = view.nearest("zombie")
        if zombie is None:
            yield from explore(view, 8)
            continue
        dx, dy = zombie
        if abs(dx) + abs(dy) == 1:
            if view.facing != (dx, dy):
                yield MOVES[(dx, dy)]  # turn toward it
            yield "do"
        else:
            # zombies chase the player: wait a tick for it to come closer
            yield
