# sub-action: defeat_orc_solider
# budget: 200
# expect: api_misuse
# mistake: reads the achievement as "defeat_orc_soldier"; Craftax spells it "defeat_orc_solider"
# ruff: noqa: F821
def defeat_orc_solider(view):
    """Find an orc soldier in the dungeon and kill it."""
    start = view.achievements["defeat_orc_soldier"]
    while view.achievements["defeat_orc_soldier"] == start:
        if view.cells("orc_soldier"):
            yield from fight(view, "orc_soldier", 30)
        else:
            yield from explore(view, 8)
