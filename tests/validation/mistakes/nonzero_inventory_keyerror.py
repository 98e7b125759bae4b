# sub-action: make_stone_pickaxe
# budget: 80
# expect: exception
# mistake: filters the inventory to items it holds, then indexes "wood_pickaxe" it does not hold
# ruff: noqa: F821
def make_stone_pickaxe(view):
    """Craft a stone pickaxe at the nearest table."""
    items = {name: count for name, count in view.inventory.items() if count > 0}
    # a stone pickaxe is crafted from the wood pickaxe plus 1 wood and 1 stone
    if items["wood_pickaxe"] < 1 or items["wood"] < 1 or items["stone"] < 1:
        return
    table = view.nearest("table")
    if table is None:
        return
    if max(abs(table[0]), abs(table[1])) > 1:
        reached = yield from approach(view, "table")
        if not reached:
            return
    start = view.achievements["make_stone_pickaxe"]
    while view.achievements["make_stone_pickaxe"] == start:
        yield "make_stone_pickaxe"
