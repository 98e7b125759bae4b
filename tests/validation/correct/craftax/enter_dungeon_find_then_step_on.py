# sub-action: enter_dungeon
# budget: 300
# expect: ok
# mistake: none: looks for the ladder when none is known, walks onto it and descends
# ruff: noqa: F821
def enter_dungeon(view):
    """On the overworld: find the ladder down, stand on it and descend."""
    if view.floor_name != "overworld":
        return
    start = view.achievements["enter_dungeon"]
    while view.achievements["enter_dungeon"] == start:
        dig = diggable(view)
        if (yield from keep_alive(view, dig)):
            continue
        if view.standing_on() == "ladder_down":
            yield "descend"
        elif view.ladder("down") is None:
            yield from find_ladder(view, "down", dig, 4)
        elif not (yield from stand_on(view, "ladder_down", dig)):
            yield from explore(view, 4, dig, ("path",))
