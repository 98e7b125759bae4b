# sub-action: make_arrow
# budget: 80
# expect: no_effect
# mistake: crafts arrows wherever it stands; make_arrow needs a table within reach
# ruff: noqa: F821
def make_arrow(view):
    """Make arrows from wood and stone."""
    if view.inventory["wood"] < 1 or view.inventory["stone"] < 1:
        return
    start = view.achievements["make_arrow"]
    for _ in range(3):
        if view.achievements["make_arrow"] != start:
            return
        yield "make_arrow"
