# sub-action: collect_wood
# budget: 80
# expect: api_misuse
# mistake: calls view.find("tree"), a method the view does not have (it is view.nearest)
# ruff: noqa: F821
def collect_wood(view):
    """Collect one piece of wood from the nearest tree."""
    start = view.inventory["wood"]
    while view.inventory["wood"] == start:
        tree = view.find("tree")
        if tree is None:
            yield from explore(view, 8)
            continue
        dx, dy = tree
        if abs(dx) + abs(dy) == 1:
            # adjacent: face the tree, then chop
            if view.facing != (dx, dy):
                yield MOVES[(dx, dy)]
            yield "do"
        else:
            yield from approach(view, "tree")
