# sub-action: collect_stone
# budget: 80
# expect: api_misuse
# mistake: reads view.inventory["wood_pickaxes"] (plural), an item that does not exist
# ruff: noqa: F821
def collect_stone(view):
    """Mine a stone block; needs at least one wood pickaxe."""
    if view.inventory["wood_pickaxes"] < 1:
        return
    start = view.inventory["stone"]
    while view.inventory["stone"] == start:
        if view.facing_name == "stone":
            yield "do"
            continue
        reached = yield from approach(view, "stone")
        if not reached:
            yield from explore(view, 8)
