# sub-action: make_stone_pickaxe
# budget: 80
# expect: timeout
# mistake: computes the next step toward the table but forgets to yield it, so the loop spins
# ruff: noqa: F821, F841
def make_stone_pickaxe(view):
    """Walk to the table and craft a stone pickaxe (1 wood, 1 stone)."""
    if view.inventory["wood"] < 1 or view.inventory["stone"] < 1:
        return
    table = view.nearest("table")
    if table is None:
        return
    # walk until the table is within one cell
    while max(abs(table[0]), abs(table[1])) > 1:
        path = path_to(view, {table})
        if not path:
            return
        step = MOVES[path[0]]
        table = view.nearest("table")
    yield "make_stone_pickaxe"
