# sub-action: defeat_zombie
# budget: 200
# expect: no_end
# mistake: waits for zombies and fights them in a loop with no end: it never returns after the kill
# ruff: noqa: F821
def defeat_zombie(view):
    """Wait for zombies and kill them."""
    while True:
        if not (yield from guard(view)):
            if view.cells("zombie"):
                yield from approach(view, "zombie")
            else:
                yield "noop"
