# sub-action: defeat_zombie
# budget: 80
# expect: exception
# mistake: clips the offset to a diagonal step like (-1, -1) and looks it up in MOVES (KeyError)
# ruff: noqa: F821
def defeat_zombie(view):
    """Move toward the nearest zombie and hit it until it is defeated."""
    start = view.achievements["defeat_zombie"]
    while view.achievements["defeat_zombie"] == start:
        if view.facing_name == "zombie":
            yield "do"
            continue
        zombie = view.nearest("zombie")
        if zombie is None:
            yield from explore(view, 8)
            continue
        dx, dy = zombie
        # one step toward the zombie
        step = (max(-1, min(1, dx)), max(-1, min(1, dy)))
        yield MOVES[step]
