# sub-action: collect_wood
# budget: 80
# expect: gate
# mistake: imports numpy for np.sign; a coded action may only import math, random, itertools, etc.
# ruff: noqa: F821
import numpy as np


def collect_wood(view):
    """Step toward the nearest tree with np.sign and chop it."""
    start = view.inventory["wood"]
    while view.inventory["wood"] == start:
        if view.facing_name == "tree":
            yield "do"
            continue
        tree = view.nearest("tree")
        if tree is None:
            yield from explore(view, 8)
            continue
        dx, dy = tree
        if abs(dx) >= abs(dy):
            yield MOVES[(int(np.sign(dx)), 0)]
        else:
            yield MOVES[(0, int(np.sign(dy)))]
