# sub-action: collect_stone
# budget: 80
# expect: exception
# mistake: calls a helper find_nearest(view, "stone") that is not part of the skill API (NameError)
# ruff: noqa: F821
def collect_stone(view):
    """Mine the closest stone block with the wood pickaxe."""
    if view.inventory["wood_pickaxe"] < 1:
        return
    start = view.inventory["stone"]
    while view.inventory["stone"] == start:
        target = find_nearest(view, "stone")
        if target is None:
            yield from explore(view, 8)
            continue
        if view.facing_name == "stone":
            yield "do"
        else:
            yield from approach(view, "stone")
