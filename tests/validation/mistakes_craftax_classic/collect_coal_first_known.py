# sub-action: collect_coal
# budget: 80
# expect: exception
# mistake: indexes the coal seen now or remembered without checking that any was ever seen
# ruff: noqa: F821
def collect_coal(view):
    """Mine the nearest coal, in view or remembered (wood pickaxe)."""
    if view.inventory["wood_pickaxe"] < 1:
        return
    start = view.achievements["collect_coal"]
    while view.achievements["collect_coal"] == start:
        if view.facing_name == "coal":
            yield "do"
            continue
        x, y = (view.cells("coal") + view.remembered("coal"))[0]
        if not (yield from go_to(view, "coal", ("stone",))):
            yield MOVES[(1 if x > 0 else -1, 0)] if x else MOVES[(0, 1 if y > 0 else -1)]
