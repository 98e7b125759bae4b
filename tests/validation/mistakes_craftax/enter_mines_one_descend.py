# sub-action: enter_gnomish_mines
# budget: 300
# expect: unmet_precondition
# mistake: descends from anywhere, as if one ladder led to the mines (not from the overworld)
# ruff: noqa: F821
def enter_gnomish_mines(view):
    """Go down to the gnomish mines."""
    yield from descend(view)
