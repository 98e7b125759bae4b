# sub-action: enter_gnomish_mines
# budget: 200
# expect: no_action
# mistake: compares view.floor_name with "dungeons" (the floor is "dungeon"), so it never acts
# ruff: noqa: F821
def enter_gnomish_mines(view):
    """From the dungeon, clear it and take its ladder down to the gnomish mines."""
    if view.floor_name != "dungeons":
        return
    start = view.achievements["enter_gnomish_mines"]
    while view.achievements["enter_gnomish_mines"] == start:
        if not (yield from descend(view)):
            return
