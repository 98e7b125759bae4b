# sub-action: collect_wood
# budget: 80
# expect: api_misuse
# mistake: calls its survival helpers from a list, never driving them with yield from
# ruff: noqa: F821
def collect_wood(view):
    """Chop a tree, with the survival checks first."""
    checks = [guard, keep_alive]
    start = view.achievements["collect_wood"]
    while view.achievements["collect_wood"] == start:
        for check in checks:
            check(view)
        if view.facing_name == "tree":
            yield "do"
        elif not (yield from go_to(view, "tree")):
            yield from explore(view, 8)
