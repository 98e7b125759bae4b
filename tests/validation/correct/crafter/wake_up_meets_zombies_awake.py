# sub-action: wake_up
# budget: 80
# expect: ok
# mistake: none: keeps watch while a zombie is in view, fights it when it comes, sleeps after
# ruff: noqa: F821
def wake_up(view):
    """Sleep until rested, walled in at night; never asleep with a zombie in view."""
    if view.inventory["energy"] >= 9:
        return
    safe = yield from shelter(view)
    start = view.achievements["wake_up"]
    while view.achievements["wake_up"] == start:
        if (yield from guard(view)):
            continue
        if view.cells("zombie") and not safe:
            if not (yield from approach(view, "zombie")):
                yield "noop"
        elif safe or view.daylight >= 0.6:
            yield "sleep"
        else:
            yield "noop"
