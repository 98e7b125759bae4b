# sub-action: wake_up
# budget: 80
# expect: died
# mistake: lies down wherever it stands, at night too, and goes back to sleep after each blow
# ruff: noqa: F821
def wake_up(view):
    """Sleep until rested."""
    if view.inventory["energy"] >= 9:
        return
    start = view.achievements["wake_up"]
    while view.achievements["wake_up"] == start:
        yield "sleep"
