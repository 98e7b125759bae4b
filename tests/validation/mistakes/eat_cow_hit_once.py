# sub-action: eat_cow
# budget: 80
# expect: no_effect
# mistake: hits the cow once and returns; a cow needs 3 hits without a sword
# ruff: noqa: F821
def eat_cow(view):
    """Walk to the nearest cow and eat it."""
    reached = yield from approach(view, "cow")
    if not reached:
        return
    yield "do"  # eat the cow
