# sub-action: collect_stone
# budget: 80
# expect: gave_up
# mistake: returns when no stone is in view, never searching for it
# ruff: noqa: F821
def collect_stone(view):
    """Mine the nearest stone."""
    if view.inventory["wood_pickaxe"] < 1:
        return
    start = view.achievements["collect_stone"]
    while view.achievements["collect_stone"] == start:
        if not view.cells("stone"):
            return  # nothing to mine here
        if view.facing_name == "stone":
            yield "do"
        else:
            yield from approach(view, "stone")
