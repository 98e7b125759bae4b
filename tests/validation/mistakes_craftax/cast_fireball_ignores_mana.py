# sub-action: cast_fireball
# budget: 80
# expect: unmet_precondition
# mistake: checks that the spell is learned but not the mana it costs (2): with none it casts on
# ruff: noqa: F821
def cast_fireball(view):
    """Cast the fireball spell."""
    if view.inventory["fireball"] < 1:
        return
    start = view.achievements["cast_fireball"]
    while view.achievements["cast_fireball"] == start:
        yield "cast_fireball"
