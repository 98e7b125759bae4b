# sub-action: collect_drink
# budget: 80
# expect: api_misuse
# mistake: reads view.player_pos (crafter's info key); the view calls it position
# ruff: noqa: F821
def collect_drink(view):
    """Walk to the closest water and drink from it."""
    start = view.achievements["collect_drink"]
    while view.achievements["collect_drink"] == start:
        water = view.nearest("water")
        if water is None:
            yield from explore(view, 8)
            continue
        # offset from the player to the water
        px, py = view.player_pos
        dx, dy = water[0] - px, water[1] - py
        if abs(dx) + abs(dy) == 1:
            if view.facing != (dx, dy):
                yield MOVES[(dx, dy)]
            else:
                yield "do"
        elif abs(dx) > abs(dy):
            yield "move_right" if dx > 0 else "move_left"
        else:
            yield "move_down" if dy > 0 else "move_up"
