# sub-action: learn_fireball
# budget: 80
# expect: invalid_action
# mistake: yields "read" to read the book; Craftax's action is "read_book"
# ruff: noqa: F821
def learn_fireball(view):
    """Read a book to learn the fireball spell."""
    if view.inventory["book"] < 1:
        return
    start = view.achievements["learn_fireball"]
    for _ in range(4):
        if view.achievements["learn_fireball"] != start:
            return
        yield "read"
