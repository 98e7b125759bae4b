# sub-action: collect_diamond
# budget: 80
# expect: no_action
# mistake: checks for a stone pickaxe instead of the iron pickaxe diamonds need, and returns
# ruff: noqa: F821
def collect_diamond(view):
    """Mine a diamond; diamonds need a good pickaxe."""
    if view.inventory["stone_pickaxe"] < 1:
        return  # no suitable pickaxe
    start = view.inventory["diamond"]
    while view.inventory["diamond"] == start:
        if view.facing_name == "diamond":
            yield "do"
            continue
        reached = yield from approach(view, "diamond")
        if not reached:
            yield from explore(view, 8)
