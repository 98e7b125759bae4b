# sub-action: make_wood_sword
# budget: 80
# expect: api_misuse
# mistake: calls approach(view, "table") as a plain function, so the player never walks
# ruff: noqa: F821
def make_wood_sword(view):
    """Go to the crafting table and make a wood sword (costs 1 wood)."""
    if view.inventory["wood"] < 1:
        return
    if view.nearest("table") is None:
        return  # there is no table around
    # walk next to the table first
    approach(view, "table")
    start = view.achievements["make_wood_sword"]
    while view.achievements["make_wood_sword"] == start:
        yield "make_wood_sword"
