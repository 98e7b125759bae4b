# sub-action: collect_diamond
# budget: 200
# expect: unmet_precondition
# mistake: checks for a stone pickaxe, as for iron; diamond needs an iron pickaxe
# ruff: noqa: F821
def collect_diamond(view):
    """Mine a diamond."""
    if view.inventory["stone_pickaxe"] < 1:
        return
    start = view.achievements["collect_diamond"]
    while view.achievements["collect_diamond"] == start:
        dig = diggable(view)
        if view.facing_name == "diamond":
            yield "do"
        elif not (yield from go_to(view, "diamond", dig)):
            yield from explore(view, 8, dig)
