# sub-action: wake_up
# budget: 80
# expect: api_misuse
# mistake: assigns shelter(view) to a variable as if it returned whether the player is walled in
# ruff: noqa: F821
def wake_up(view):
    """Wall the player in, then sleep until rested."""
    if view.inventory["energy"] >= 9:
        return
    safe = shelter(view)
    start = view.achievements["wake_up"]
    while view.achievements["wake_up"] == start:
        if safe or view.daylight > 0.6:
            yield "sleep"
        else:
            yield "noop"
