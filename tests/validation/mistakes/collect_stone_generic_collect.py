# sub-action: collect_stone
# budget: 80
# expect: invalid_action
# mistake: yields a generic "collect" action (as in some other games); mining is "do"
# ruff: noqa: F821
def collect_stone(view):
    """Mine one block of stone with the wooden pickaxe."""
    if view.inventory["wood_pickaxe"] == 0:
        return  # stone cannot be mined by hand
    start = view.inventory["stone"]
    while view.inventory["stone"] == start:
        if view.facing_name == "stone":
            yield "collect"
        else:
            found = yield from approach(view, "stone")
            if not found:
                yield from explore(view, 6)
