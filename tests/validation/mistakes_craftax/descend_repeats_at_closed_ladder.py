# sub-action: enter_gnomish_mines
# budget: 300
# expect: died
# mistake: descends again and again on a closed ladder, never fighting: the floor's monster kills it
# ruff: noqa: F821
def enter_gnomish_mines(view):
    """In the dungeon: stand on the ladder down and descend until in the gnomish mines."""
    if view.floor_name != "dungeon":
        return
    start = view.achievements["enter_gnomish_mines"]
    while view.achievements["enter_gnomish_mines"] == start:
        dig = diggable(view)
        if view.standing_on() in ("ladder_down", "ladder_down_blocked"):
            yield "descend"
        elif view.ladder("down") is not None:
            yield from stand_on(view, "ladder_down", dig)
        else:
            yield from explore_dark(view, 8, dig)
