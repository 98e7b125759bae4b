# sub-action: enter_dungeon
# budget: 200
# expect: api_misuse
# mistake: calls the floor skill descend(view) like a function: the generator never runs
# ruff: noqa: F821
def enter_dungeon(view):
    """Go down the ladder to the dungeon."""
    start = view.achievements["enter_dungeon"]
    while view.achievements["enter_dungeon"] == start:
        descend(view)
        yield "noop"
