# sub-action: make_stone_pickaxe
# budget: 80
# expect: gave_up
# mistake: refuses to work while food or drink is low, although the recipe does not need them
# ruff: noqa: F821
def make_stone_pickaxe(view):
    """Make a stone pickaxe at the table, when fed and watered."""
    if view.inventory["wood"] < 1 or view.inventory["stone"] < 1:
        return
    if view.inventory["food"] < 4 or view.inventory["drink"] < 4:
        return  # eat and drink first
    near = yield from stand_near(view, ("table",))
    if not near:
        return
    start = view.achievements["make_stone_pickaxe"]
    while view.achievements["make_stone_pickaxe"] == start:
        yield "make_stone_pickaxe"
