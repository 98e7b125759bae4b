# sub-action: collect_stone
# budget: 80
# expect: no_effect
# mistake: waits in place for stone to come into view instead of walking to find some
# ruff: noqa: F821
def collect_stone(view):
    """Mine stone once some is in view (wood pickaxe)."""
    if view.inventory["wood_pickaxe"] < 1:
        return
    start = view.achievements["collect_stone"]
    while view.achievements["collect_stone"] == start:
        if (yield from guard(view)):
            continue
        if not view.cells("stone"):
            yield "noop"  # it will show up
        elif view.facing_name == "stone":
            yield "do"
        else:
            yield from approach(view, "stone")
