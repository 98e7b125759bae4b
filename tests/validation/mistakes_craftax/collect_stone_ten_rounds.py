# sub-action: collect_stone
# budget: 80
# expect: gave_up
# mistake: bounds its search to ten rounds, so as not to loop forever, and gives up after them
# ruff: noqa: F821
def collect_stone(view):
    """Collect one stone with the wood pickaxe (ten rounds of search at most)."""
    floors = ("overworld", "gnomish_mines", "troll_mines", "fire_realm", "ice_realm")
    if view.inventory["wood_pickaxe"] < 1 or view.floor_name not in floors:
        return
    start = view.inventory["stone"]
    for _ in range(10):
        if view.inventory["stone"] > start:
            return
        if (yield from guard(view)):
            continue
        if view.facing_name == "stone":
            yield "do"
        elif not (yield from go_to(view, "stone", diggable(view))):
            yield from explore(view, 4, diggable(view))
