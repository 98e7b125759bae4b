# sub-action: collect_drink
# budget: 80
# expect: signature
# mistake: writes a policy function that returns one action per call instead of a generator
def collect_drink(view):
    """Return the next action that brings the player to water and drinks."""
    if view.facing_name == "water":
        return "do"
    water = view.nearest("water")
    if water is None:
        return "move_left"  # nothing in sight: wander
    dx, dy = water
    if abs(dx) >= abs(dy):
        return "move_right" if dx > 0 else "move_left"
    return "move_down" if dy > 0 else "move_up"
