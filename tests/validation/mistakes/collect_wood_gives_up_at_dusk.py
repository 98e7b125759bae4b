# sub-action: collect_wood
# budget: 80
# expect: gave_up
# mistake: returns as soon as daylight drops: at dusk the call does nothing
# ruff: noqa: F821
def collect_wood(view):
    """Chop a tree; too dangerous once it gets dark."""
    start = view.achievements["collect_wood"]
    while view.achievements["collect_wood"] == start:
        if view.daylight < 0.5:
            return  # zombies come out at night
        if view.facing_name == "tree":
            yield "do"
        elif not (yield from go_to(view, "tree")):
            yield from explore(view, 8)
