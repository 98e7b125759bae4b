# sub-action: collect_iron
# budget: 80
# expect: timeout
# mistake: retries go_to until it succeeds; with no iron seen go_to returns at once: a spin
# ruff: noqa: F821
def collect_iron(view):
    """Mine iron with the stone pickaxe."""
    if view.inventory["stone_pickaxe"] < 1:
        return
    start = view.achievements["collect_iron"]
    while view.achievements["collect_iron"] == start:
        if view.facing_name == "iron":
            yield "do"
            continue
        found = yield from go_to(view, "iron", ("stone",))
        if not found:
            continue  # try again
