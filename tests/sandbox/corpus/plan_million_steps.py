# expect: invalid_action
def act(view):
    yield plan(view, ["noop"] * 1_000_000)
