# sub-action: collect_coal
# budget: 80
# expect: gave_up
# mistake: returns whenever a zombie is in view instead of fighting it off
# ruff: noqa: F821
def collect_coal(view):
    """Mine coal with the wood pickaxe, avoiding zombies."""
    if view.inventory["wood_pickaxe"] < 1:
        return
    start = view.achievements["collect_coal"]
    while view.achievements["collect_coal"] == start:
        if view.cells("zombie"):
            return  # not worth the risk
        if view.facing_name == "coal":
            yield "do"
        elif not (yield from go_to(view, "coal", ("stone",))):
            yield from explore(view, 8, ("stone",))
