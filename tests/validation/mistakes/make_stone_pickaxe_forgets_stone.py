# sub-action: make_stone_pickaxe
# budget: 80
# expect: unmet_precondition
# mistake: checks only the wood: without stone it walks to the table and tries twice
# ruff: noqa: F821
def make_stone_pickaxe(view):
    """Make a stone pickaxe at the table (wood and stone)."""
    if view.inventory["wood"] < 1:
        return
    near = yield from stand_near(view, ("table",))
    if not near:
        return
    start = view.achievements["make_stone_pickaxe"]
    for _ in range(2):  # once more in case the first did not take
        yield "make_stone_pickaxe"
        if view.achievements["make_stone_pickaxe"] > start:
            return
