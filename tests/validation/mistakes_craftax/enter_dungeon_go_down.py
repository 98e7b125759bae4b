# sub-action: enter_dungeon
# budget: 200
# expect: invalid_action
# mistake: yields "go_down" to take the ladder; Craftax's action is "descend"
# ruff: noqa: F821
def enter_dungeon(view):
    """Find the ladder down, stand on it and go down to the dungeon."""
    start = view.achievements["enter_dungeon"]
    while view.achievements["enter_dungeon"] == start:
        if view.standing_on() == "ladder_down":
            yield "go_down"
        elif not (yield from stand_on(view, "ladder_down", diggable(view))):
            yield from explore(view, 8)
