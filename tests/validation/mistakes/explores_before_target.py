# sub-action: collect_stone
# budget: 80
# expect: no_effect
# mistake: explores thirty rounds to "map the area" before going to the stone: past its budget
# ruff: noqa: F821
def collect_stone(view):
    """Survey the surroundings first so the closest stone is known, then mine it."""
    if view.inventory["wood_pickaxe"] < 1:
        return
    # look around for a while to reveal more of the map
    for _ in range(30):
        yield from explore(view, 5)
    start = view.inventory["stone"]
    while view.inventory["stone"] == start:
        if view.facing_name == "stone":
            yield "do"
            continue
        reached = yield from approach(view, "stone")
        if not reached:
            yield from explore(view, 8)
