# sub-action: wake_up
# budget: 80
# expect: no_action
# mistake: only sleeps when energy is below 3, though any energy under the maximum lets it sleep
# ruff: noqa: F821
def wake_up(view):
    """Sleep until the player wakes up again. Only worth it when tired."""
    if view.inventory["energy"] >= 3:
        return  # not tired enough to sleep
    start = view.achievements["wake_up"]
    while view.achievements["wake_up"] == start:
        yield "sleep"
