# sub-action: defeat_zombie
# budget: 80
# expect: api_misuse
# mistake: invents view.get_nearest(...) (an attribute of the view that does not exist)
# ruff: noqa: F821
def defeat_zombie(view):
    """Hunt down the nearest zombie and hit it until it dies."""
    start = view.achievements["defeat_zombie"]
    while view.achievements["defeat_zombie"] == start:
        zombie = view.get_nearest("zombie")
        if zombie is None:
            yield from explore(view, 8)
        elif view.facing_name == "zombie":
            yield "do"
        else:
            yield from approach(view, "zombie")
