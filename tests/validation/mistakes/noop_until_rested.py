# sub-action: wake_up
# budget: 80
# expect: no_effect
# mistake: waits with "noop" for energy to refill; energy only refills while sleeping ("sleep")
# ruff: noqa: F821
def wake_up(view):
    """Rest until energy is full again and the player wakes up."""
    if view.inventory["energy"] >= 9:
        return  # already rested
    # resting: wait until energy is back to full
    while view.inventory["energy"] < 9:
        yield "noop"
