# sub-action: collect_ruby
# budget: 400
# expect: exception
# mistake: indexes the rubies seen now or remembered without checking that any was ever seen
# ruff: noqa: F821
def collect_ruby(view):
    """In the gnomish mines: mine the nearest ruby (diamond pickaxe)."""
    if view.inventory["diamond_pickaxe"] < 1 or view.floor_name != "gnomish_mines":
        return
    start = view.achievements["collect_ruby"]
    while view.achievements["collect_ruby"] == start:
        dig = diggable(view)
        if view.facing_name == "ruby":
            yield "do"
            continue
        nearest = (view.cells("ruby") or view.remembered("ruby"))[0]
        if abs(nearest[0]) + abs(nearest[1]) > 20 or not (yield from go_to(view, "ruby", dig)):
            yield from explore(view, 4, dig)
