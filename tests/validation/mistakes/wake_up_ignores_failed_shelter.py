# sub-action: wake_up
# budget: 80
# expect: died
# mistake: sleeps in the open when the shelter fails (no pickaxe): asleep, a zombie kills
# ruff: noqa: F821
def wake_up(view):
    """Wall the player in for the night, then sleep until rested."""
    if view.inventory["energy"] >= 9:
        return
    yield from shelter(view)
    start = view.achievements["wake_up"]
    while view.achievements["wake_up"] == start:
        yield "sleep"
