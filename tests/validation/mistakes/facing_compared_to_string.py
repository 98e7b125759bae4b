# sub-action: collect_drink
# budget: 80
# expect: timeout
# mistake: compares view.facing (a (dx, dy) tuple) to "water"; at the water it spins, never yielding
# ruff: noqa: F821
def collect_drink(view):
    """Walk to the nearest water and drink once."""
    start = view.achievements["collect_drink"]
    while view.achievements["collect_drink"] == start:
        if view.facing == "water":
            yield "do"
        else:
            found = yield from approach(view, "water")
            if not found:
                yield from explore(view, 8)
