# sub-action: enter_gnomish_mines
# budget: 300
# expect: timeout
# mistake: waits for standing_on() == "ladder_down"; closed, it reads "ladder_down_blocked": a spin
# ruff: noqa: F821
def enter_gnomish_mines(view):
    """In the dungeon: stand on the ladder down and descend until in the gnomish mines."""
    if view.floor_name != "dungeon":
        return
    start = view.achievements["enter_gnomish_mines"]
    while view.achievements["enter_gnomish_mines"] == start:
        dig = diggable(view)
        if view.standing_on() == "ladder_down":
            yield "descend"
        elif view.ladder("down") is not None:
            yield from stand_on(view, "ladder_down", dig)
        else:
            yield from explore_dark(view, 8, dig)
