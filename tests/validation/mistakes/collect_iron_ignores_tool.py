# sub-action: collect_iron
# budget: 80
# expect: unmet_precondition
# mistake: never checks for the stone pickaxe, so without one it walks to the iron anyway
# ruff: noqa: F821
def collect_iron(view):
    """Find iron and mine one piece of it."""
    if view.inventory["iron"] > 0:
        return  # we already have iron
    start = view.inventory["iron"]
    while view.inventory["iron"] == start:
        if view.facing_name == "iron":
            yield "do"
        elif view.nearest("iron") is not None:
            reached = yield from approach(view, "iron")
            if not reached:
                yield from explore(view, 8)
        else:
            yield from explore(view, 8)
