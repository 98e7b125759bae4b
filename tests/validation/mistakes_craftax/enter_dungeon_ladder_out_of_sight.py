# sub-action: enter_dungeon
# budget: 300
# expect: gave_up
# mistake: returns when the ladder down was never seen, instead of looking for it
# ruff: noqa: F821
def enter_dungeon(view):
    """On the overworld: walk onto the ladder down and descend to the dungeon."""
    if view.floor_name != "overworld":
        return
    ladder = view.ladder("down")
    if ladder is None:
        return  # no ladder known
    start = view.achievements["enter_dungeon"]
    while view.achievements["enter_dungeon"] == start:
        if view.standing_on() == "ladder_down":
            yield "descend"
        elif not (yield from stand_on(view, "ladder_down", diggable(view))):
            yield from explore(view, 4, diggable(view))
