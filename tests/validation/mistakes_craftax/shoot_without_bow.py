# sub-action: fire_bow
# budget: 80
# expect: unmet_precondition
# mistake: shoots without checking for a bow and arrows, so without them it shoots forever
# ruff: noqa: F821
def fire_bow(view):
    """Shoot an arrow."""
    start = view.achievements["fire_bow"]
    while view.achievements["fire_bow"] == start:
        yield "shoot_arrow"
