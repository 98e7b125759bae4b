# sub-action: wake_up
# budget: 80
# expect: died
# mistake: tries to wall itself in but sleeps in the open when that fails (no pickaxe), night or day; asleep, a zombie's blow costs 7 health
# ruff: noqa: F821
def wake_up(view):
    """Wall the player in for the night, then sleep until rested."""
    if view.inventory["energy"] >= 9:
        return
    yield from shelter(view)
    start = view.achievements["wake_up"]
    while view.achievements["wake_up"] == start:
        yield "sleep"
