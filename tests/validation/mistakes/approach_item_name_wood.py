# sub-action: collect_wood
# budget: 80
# expect: api_misuse
# mistake: approaches "wood" (the item) instead of "tree" (what is on the map)
# ruff: noqa: F821
def collect_wood(view):
    """Walk to the nearest wood and chop it."""
    start = view.inventory["wood"]
    while view.inventory["wood"] == start:
        reached = yield from approach(view, "wood")
        if reached:
            yield "do"
        else:
            # nothing in sight: look further away
            yield from explore(view, 8)
