# sub-action: collect_stone
# budget: 80
# expect: ok
# mistake: none: walks to stone seen now or earlier, else explores toward stone, then mines it
# ruff: noqa: F821
def collect_stone(view):
    """Mine one stone (wood pickaxe), searching for it when none is known."""
    if view.inventory["wood_pickaxe"] < 1:
        return
    start = view.achievements["collect_stone"]
    while view.achievements["collect_stone"] == start:
        if (yield from guard(view)):  # not keep_alive: its night shelter is mined stone
            continue
        if view.facing_name == "stone":
            yield "do"
        elif not (yield from go_to(view, "stone")):
            yield from explore(view, 6, (), ("stone", "path"))
