# sub-action: collect_stone
# budget: 80
# expect: no_effect
# mistake: walks straight at the nearest stone, stepping aside for lava only; anything else stops it
# ruff: noqa: F821
def collect_stone(view):
    """Collect one stone with the wood pickaxe."""
    if view.inventory["wood_pickaxe"] < 1:
        return
    start = view.inventory["stone"]
    while view.inventory["stone"] == start:
        if (yield from guard(view)):
            continue
        if view.facing_name == "stone":
            yield "do"
            continue
        target = view.nearest("stone")
        if target is None:
            yield from explore(view, 4)
            continue
        dx, dy = target
        if abs(dx) >= abs(dy) and dx != 0:
            step, move = (1 if dx > 0 else -1, 0), "move_right" if dx > 0 else "move_left"
        else:
            step, move = (0, 1 if dy > 0 else -1), "move_down" if dy > 0 else "move_up"
        if view.at(*step) == "lava":
            yield "move_up" if step[1] == 0 else "move_right"
        else:
            yield move
