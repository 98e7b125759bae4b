# sub-action: drink_potion
# budget: 80
# expect: invalid_action
# mistake: drinks a "purple" potion: Craftax has red, green, blue, pink, cyan, yellow
# ruff: noqa: F821
def drink_potion(view):
    """Drink a potion."""
    start = view.achievements["drink_potion"]
    for _ in range(4):
        if view.achievements["drink_potion"] != start:
            return
        yield "drink_potion_purple"
