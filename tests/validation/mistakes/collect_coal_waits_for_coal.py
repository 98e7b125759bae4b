# sub-action: collect_coal
# budget: 80
# expect: no_effect
# mistake: where no coal is known, waits in place for some to come into view instead of searching
# ruff: noqa: F821
def collect_coal(view):
    """Mine coal seen now or earlier (wood pickaxe); wait for some to show up otherwise."""
    if view.inventory["wood_pickaxe"] < 1:
        return
    start = view.achievements["collect_coal"]
    while view.achievements["collect_coal"] == start:
        if (yield from guard(view)):
            continue
        if view.facing_name == "coal":
            yield "do"
        elif not (yield from go_to(view, "coal", ("stone",))):
            yield "noop"  # none known yet
