# sub-action: collect_sapling
# budget: 80
# expect: api_misuse
# mistake: looks for "sapling" on the map; saplings are items that come from hitting grass
# ruff: noqa: F821
def collect_sapling(view):
    """Pick up a sapling lying near the player."""
    start = view.inventory["sapling"]
    while view.inventory["sapling"] == start:
        if view.facing_name == "sapling":
            yield "do"
            continue
        target = view.nearest("sapling")
        if target is None:
            yield from explore(view, 6)
        else:
            yield from approach(view, "sapling")
