# sub-action: collect_sapling
# budget: 80
# expect: api_misuse
# mistake: calls the survival skill keep_alive(view) like a function: it never runs
# ruff: noqa: F821
def collect_sapling(view):
    """Collect a sapling from grass, staying alive."""
    start = view.achievements["collect_sapling"]
    while view.achievements["collect_sapling"] == start:
        keep_alive(view)  # drink and eat first if needed
        if view.facing_name == "grass":
            yield "do"
        else:
            yield from face_free(view, ("grass",))
