# sub-action: collect_sapling
# budget: 80
# expect: ok
# mistake: none: hits the grass it faces, turning to fresh grass when it faces anything else
# ruff: noqa: F821
def collect_sapling(view):
    """Collect a sapling from the grass (one hit in ten yields one)."""
    start = view.achievements["collect_sapling"]
    while view.achievements["collect_sapling"] == start:
        if (yield from guard(view)):
            continue
        if (yield from keep_alive(view)):
            continue
        if view.facing_name == "grass":
            yield "do"
        elif not (yield from face_free(view, ("grass",))):
            yield from explore(view, 4)
