# sub-action: collect_drink
# budget: 80
# expect: repeated_effect
# mistake: drinks five times per call to fill up, so one call raises collect_drink five times
# ruff: noqa: F821
def collect_drink(view):
    """Walk to water and drink until full."""
    found = yield from go_to(view, "water")
    if not found:
        yield from explore(view, 8)
        return
    for _ in range(5):  # a few sips: one is hardly worth the walk
        if view.facing_name != "water":
            break
        yield "do"
