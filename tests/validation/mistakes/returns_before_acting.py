# sub-action: collect_drink
# budget: 80
# expect: no_action
# mistake: assumes the player already faces water and returns otherwise, never walking to it
# ruff: noqa: F821
def collect_drink(view):
    """Drink from the water in front of the player until thirst is quenched."""
    if view.facing_name != "water":
        return  # we must be facing water to drink
    start = view.achievements["collect_drink"]
    while view.achievements["collect_drink"] == start:
        yield "do"
