# sub-action: enter_gnomish_mines
# budget: 300
# expect: timeout
# mistake: walks to the ladder with go_to, which stops beside it without a step: the loop spins
# ruff: noqa: F821
def enter_gnomish_mines(view):
    """In the dungeon: clear the floor, walk to its ladder down and descend."""
    if view.floor_name != "dungeon":
        return
    start = view.achievements["enter_gnomish_mines"]
    while view.achievements["enter_gnomish_mines"] == start:
        dig = diggable(view)
        if (yield from keep_alive(view, dig)):
            continue
        if not view.cleared:
            yield from clear_floor(view, dig, 30)
        elif view.standing_on() == "ladder_down":
            yield "descend"
        elif not (yield from go_to(view, "ladder_down", dig)):
            yield "noop"  # the ladder will turn up
