# sub-action: collect_wood
# budget: 80
# expect: repeated_effect
# mistake: collects until it holds five wood, raising collect_wood again and again in one call
# ruff: noqa: F821
def collect_wood(view):
    """Collect enough wood for a table and a pickaxe."""
    while view.inventory["wood"] < 5:
        if view.facing_name == "tree":
            yield "do"
        elif not (yield from go_to(view, "tree")):
            yield from explore(view, 8)
