# sub-action: wake_up
# budget: 80
# expect: no_effect
# mistake: yields "sleep" once and returns, as if waking up were immediate
# ruff: noqa: F821
def wake_up(view):
    """Sleep to restore energy; the player wakes up when rested."""
    if view.inventory["energy"] >= 9:
        return  # not tired, cannot sleep
    yield "sleep"
