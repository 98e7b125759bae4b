# sub-action: wake_up
# budget: 400
# expect: ok
# mistake: none: fights any monster in view before it sleeps, walled in when it can be
# ruff: noqa: F821
def wake_up(view):
    """Sleep until awake, never with a monster in view unless walled in."""
    if view.vitals["energy"] >= 7 + 2 * view.inventory["dexterity"] and not view.sleeping:
        return
    start = view.achievements["wake_up"]
    yield from shelter(view, diggable(view))
    for _ in range(400):
        if view.achievements["wake_up"] != start:
            return
        if hostiles(view) and not sealed(view):
            yield from fight(view, None, 20)
        else:
            yield "sleep"
