# sub-action: collect_drink
# budget: 80
# expect: exception
# mistake: takes the nearest water seen without checking that any was: an empty list indexed
# ruff: noqa: F821
def collect_drink(view):
    """Drink from the nearest water, in view or remembered."""
    start = view.achievements["collect_drink"]
    while view.achievements["collect_drink"] == start:
        if view.facing_name == "water":
            yield "do"
            continue
        nearest = (view.cells("water") or view.remembered("water"))[0]
        if abs(nearest[0]) + abs(nearest[1]) == 1:
            yield MOVES[nearest]  # next to it: turn to face it
        elif not (yield from go_to(view, "water")):
            yield from explore(view, 8)
