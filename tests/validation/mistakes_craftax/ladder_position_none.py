# sub-action: enter_dungeon
# budget: 200
# expect: exception
# mistake: indexes view.ladder("down") without checking it: None until the ladder has been seen
# ruff: noqa: F821
def enter_dungeon(view):
    """Walk to the ladder down and descend."""
    start = view.achievements["enter_dungeon"]
    while view.achievements["enter_dungeon"] == start:
        dx, dy = view.ladder("down")
        if (dx, dy) == (0, 0):
            yield "descend"
        elif dx:
            yield "move_right" if dx > 0 else "move_left"
        else:
            yield "move_down" if dy > 0 else "move_up"
