# sub-action: collect_wood
# budget: 80
# expect: invalid_action
# mistake: with no tree in sight it yields a random key of MOVES (an offset), not a name
# ruff: noqa: F821
import random


def collect_wood(view):
    """Chop the nearest tree; wander when none is in sight."""
    start = view.achievements["collect_wood"]
    while view.achievements["collect_wood"] == start:
        if view.facing_name == "tree":
            yield "do"
        elif view.cells("tree") or view.remembered("tree"):
            yield from go_to(view, "tree")
        else:
            yield random.choice(list(MOVES))  # wander
