# expect: ok
def act(view):
    start = view.achievements["collect_wood"]
    while view.achievements["collect_wood"] == start:
        if view.facing_name == "tree":
            yield "do"
        elif view.nearest("tree") is not None:
            reached = yield from approach(view, "tree")
            if not reached:
                yield from explore(view, 8)
        else:
            yield from explore(view, 8)
