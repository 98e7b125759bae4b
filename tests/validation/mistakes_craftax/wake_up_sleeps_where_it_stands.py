# sub-action: wake_up
# budget: 400
# expect: died
# mistake: sleeps where it stands when it cannot wall itself in, with a zombie three cells away
# ruff: noqa: F821
def wake_up(view):
    """Wall the player in if it can, then sleep until awake."""
    if view.vitals["energy"] >= 7 + 2 * view.inventory["dexterity"] and not view.sleeping:
        return
    start = view.achievements["wake_up"]
    yield from shelter(view, diggable(view))
    for _ in range(400):
        if view.achievements["wake_up"] != start:
            return
        yield "sleep"
