# sub-action: enter_sewers
# budget: 300
# expect: died
# mistake: on the closed ladder, descends and steps away from monsters, never fighting for it
# ruff: noqa: F821
def enter_sewers(view):
    """In the gnomish mines: stand on the ladder down and descend, out of monsters' way."""
    if view.floor_name != "gnomish_mines":
        return
    start = view.achievements["enter_sewers"]
    while view.achievements["enter_sewers"] == start:
        dig = diggable(view)
        near = [m for m in hostiles(view) if abs(m[0]) + abs(m[1]) <= 2]
        if near:
            dx, dy, _ = near[0]
            away = (-1 if dx > 0 else 1, 0) if abs(dx) >= abs(dy) else (0, -1 if dy > 0 else 1)
            yield MOVES[away]
        elif view.standing_on() in ("ladder_down", "ladder_down_blocked"):
            yield "descend"
        elif view.ladder("down") is not None:
            if not (yield from stand_on(view, "ladder_down", dig)):
                yield "noop"
        else:
            yield from explore_dark(view, 8, dig)
