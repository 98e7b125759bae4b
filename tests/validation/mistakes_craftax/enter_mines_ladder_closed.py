# sub-action: enter_gnomish_mines
# budget: 300
# expect: gave_up
# mistake: descends at once on the dungeon's ladder down, closed until 8 kills there
# ruff: noqa: F821
def enter_gnomish_mines(view):
    """In the dungeon: find the ladder down and take it to the gnomish mines."""
    if view.floor_name != "dungeon":
        return
    start = view.achievements["enter_gnomish_mines"]
    for _ in range(40):
        if view.achievements["enter_gnomish_mines"] != start:
            return
        dig = diggable(view)
        if (yield from keep_alive(view, dig)):
            continue
        if view.standing_on() == "ladder_down":
            yield "descend"
        elif view.ladder("down") is not None:
            yield from stand_on(view, "ladder_down", dig)
        else:
            yield from explore_dark(view, 8, dig)
