# sub-action: collect_iron
# budget: 80
# expect: gave_up
# mistake: returns when no iron was ever seen, instead of searching for some
# ruff: noqa: F821
def collect_iron(view):
    """Mine iron seen now or earlier this episode (stone pickaxe)."""
    if view.inventory["stone_pickaxe"] < 1:
        return
    if not (view.cells("iron") or view.remembered("iron")):
        return  # none known
    start = view.achievements["collect_iron"]
    while view.achievements["collect_iron"] == start:
        if view.facing_name == "iron":
            yield "do"
        elif not (yield from go_to(view, "iron", ("stone",))):
            yield from explore(view, 8, ("stone",))
