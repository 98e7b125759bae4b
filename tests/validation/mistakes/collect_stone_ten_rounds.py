# sub-action: collect_stone
# budget: 80
# expect: gave_up
# mistake: bounds its search to ten rounds, so as not to loop forever, and gives up after them
# ruff: noqa: F821
def collect_stone(view):
    """Collect one stone with the wood pickaxe (ten rounds of search at most)."""
    if view.inventory["wood_pickaxe"] < 1:
        return
    start = view.inventory["stone"]
    for _ in range(10):
        if view.inventory["stone"] > start:
            return
        if (yield from guard(view)):
            continue
        if view.facing_name == "stone":
            yield "do"
        elif not (yield from go_to(view, "stone")):
            yield from explore(view, 4)
