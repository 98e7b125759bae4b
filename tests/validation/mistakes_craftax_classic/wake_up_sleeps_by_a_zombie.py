# sub-action: wake_up
# budget: 80
# expect: died
# mistake: sleeps in the open by day with a zombie in view (one blow on a sleeper takes 7)
# ruff: noqa: F821
def wake_up(view):
    """Sleep until rested: walled in when it can, else in the open while it is light."""
    if view.inventory["energy"] >= 9:
        return
    safe = yield from shelter(view)
    start = view.achievements["wake_up"]
    while view.achievements["wake_up"] == start:
        if (yield from guard(view)):
            continue
        if safe or view.daylight >= 0.6:
            yield "sleep"
        else:
            yield "noop"
